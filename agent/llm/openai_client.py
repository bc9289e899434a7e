"""The real model client over the `openai` SDK (the only module that imports `openai`)."""

from __future__ import annotations

import contextlib
import email.utils
import json
import logging
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import openai
from termwise.agent.base.cancel import CancelToken
from termwise.agent.llm.base import (
    UNREACHABLE,
    ChatDelta,
    LlmError,
    Message,
    Task,
    ToolCallDelta,
)
from termwise.agent.llm.routing import Route

log = logging.getLogger(__name__)

MAX_RETRY_WAIT = 30.0  # never sleep longer than this for one Retry-After
BASE_BACKOFF = 0.5


class OpenAIClient:
    """Streams chat answers from OpenAI-compatible endpoints, one route per task."""

    def __init__(
        self,
        routes: Mapping[Task, Route],
        *,
        connect_timeout: float = 10.0,
        first_token_timeout: float = 45.0,
        max_retries: int = 3,
        max_retry_wait: float = MAX_RETRY_WAIT,
    ) -> None:
        self.routes = dict(routes)
        self.connect_timeout = connect_timeout
        self.first_token_timeout = first_token_timeout
        self.max_retries = max(0, max_retries)
        self.max_retry_wait = max_retry_wait
        self._sdk_clients: dict[tuple[str, str], openai.OpenAI] = {}
        self._lock = threading.Lock()

    # -- public --------------------------------------------------------------------

    def route(self, task: Task) -> Route:
        try:
            return self.routes[task]
        except KeyError:
            raise LlmError(f"no model is set up for the {task!r} task", retryable=False) from None

    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        task: Task,
        tools: Sequence[dict[str, Any]] | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[ChatDelta]:
        route = self.route(task)
        kwargs = self._request(route, messages, tools)
        stream = self._with_retries(
            route, lambda: self._sdk(route).chat.completions.create(stream=True, **kwargs), cancel
        )
        if stream is None:  # cancelled while connecting or waiting to retry
            return
        remove = cancel.add_callback(lambda: _abort(stream)) if cancel else (lambda: None)
        got_text = False
        try:
            for chunk in stream:
                if cancel is not None and cancel.cancelled:
                    return
                delta = _to_delta(chunk)
                if delta is not None:
                    got_text = got_text or bool(delta.text or delta.tool_calls)
                    yield delta
        except Exception as exc:
            if cancel is not None and cancel.cancelled:
                return  # the abort itself broke the read; not an error
            raise _describe(
                exc, route, midstream=True, timeout=self.first_token_timeout, got_text=got_text
            ) from exc
        finally:
            remove()
            with contextlib.suppress(Exception):
                stream.close()

    def complete(self, messages: Sequence[Message], *, task: Task) -> str:
        route = self.route(task)
        kwargs = self._request(route, messages, None)
        result = self._with_retries(
            route, lambda: self._sdk(route).chat.completions.create(**kwargs), None
        )
        if result is None or not result.choices:
            return ""
        return result.choices[0].message.content or ""

    # -- internals -----------------------------------------------------------------

    def _sdk(self, route: Route) -> openai.OpenAI:
        if route.provider.needs_key and not route.api_key:
            name = route.provider.name
            env_hint = f" or set {route.provider.key_env}" if route.provider.key_env else ""
            raise LlmError(
                f"no API key for provider {name!r}: run `termwise config set-key {name}`{env_hint}",
                retryable=False,
            )
        key = route.api_key or "not-needed"  # local servers take any key; the SDK wants one
        ident = (route.provider.base_url, key)
        with self._lock:
            client = self._sdk_clients.get(ident)
            if client is None:
                timeout = openai.Timeout(
                    self.first_token_timeout,
                    connect=self.connect_timeout,
                    read=self.first_token_timeout,
                )
                client = openai.OpenAI(
                    base_url=route.provider.base_url,
                    api_key=key,
                    timeout=timeout,
                    max_retries=0,  # retries are ours: bounded, cancellable, honouring Retry-After
                )
                self._sdk_clients[ident] = client
        return client

    def _request(
        self, route: Route, messages: Sequence[Message], tools: Sequence[dict[str, Any]] | None
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": route.model,
            "messages": list(messages),
            "temperature": route.temperature,
        }
        if tools:
            kwargs["tools"] = list(tools)
        return kwargs

    def _with_retries(
        self, route: Route, call: Callable[[], Any], cancel: CancelToken | None
    ) -> Any:
        attempt = 0
        while True:
            if cancel is not None and cancel.cancelled:
                return None
            try:
                return call()
            except openai.APIStatusError as exc:
                status = exc.status_code
                if not (status == 429 or status >= 500) or attempt >= self.max_retries:
                    raise _describe(exc, route, attempts=attempt + 1) from exc
                wait = self._backoff(attempt, exc.response.headers.get("retry-after"))
                log.info(
                    "%s answered %s; retry %d in %.1fs",
                    route.provider.name,
                    status,
                    attempt + 1,
                    wait,
                )
            except LlmError:
                raise
            except Exception as exc:
                raise _describe(exc, route, timeout=self.first_token_timeout) from exc
            attempt += 1
            if cancel is not None:
                if cancel.wait(wait):
                    return None
            else:
                time.sleep(wait)

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        wait = _parse_retry_after(retry_after)
        if wait is None:
            wait = BASE_BACKOFF * (2**attempt) * (1 + random.random() * 0.25)
        return max(0.0, min(wait, self.max_retry_wait))


def _parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _abort(stream: Any) -> None:
    """Close a stream from another thread: shutting the socket down wakes a blocked read."""
    try:
        net = stream.response.extensions.get("network_stream")
        sock = net.get_extra_info("socket") if net is not None else None
        if isinstance(sock, socket.socket):
            sock.shutdown(socket.SHUT_RDWR)
    except Exception as exc:  # already closed, or a transport without a socket
        log.debug("abort: socket shutdown failed: %s", exc)
    with contextlib.suppress(Exception):
        stream.response.close()


def _to_delta(chunk: Any) -> ChatDelta | None:
    if not getattr(chunk, "choices", None):
        return None
    choice = chunk.choices[0]
    delta = choice.delta
    calls: list[ToolCallDelta] = []
    for tc in getattr(delta, "tool_calls", None) or []:
        fn = tc.function
        calls.append(
            ToolCallDelta(
                index=tc.index,
                id=tc.id,
                name=fn.name if fn is not None else None,
                arguments=(fn.arguments or "") if fn is not None else "",
            )
        )
    text = getattr(delta, "content", None) or ""
    if not text and not calls and not choice.finish_reason:
        return None
    return ChatDelta(text=text, tool_calls=tuple(calls), finish_reason=choice.finish_reason)


def _describe(
    exc: BaseException,
    route: Route,
    *,
    midstream: bool = False,
    attempts: int = 1,
    timeout: float = 0.0,
    got_text: bool = False,
) -> LlmError:
    """Turn an SDK or transport error into one clear sentence."""
    where = f"{route.provider.name} ({route.provider.base_url})"
    if isinstance(exc, LlmError):
        return exc
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = _status_detail(exc)
        if status in (401, 403):
            return LlmError(
                f"{where} rejected the API key (HTTP {status}); set one with "
                f"`termwise config set-key {route.provider.name}`",
                retryable=False,
                status=status,
            )
        if status == 404:
            return LlmError(
                f"{where} does not know model {route.model!r} (HTTP 404){detail}",
                retryable=False,
                status=status,
            )
        if status == 429:
            return LlmError(
                f"{where} is rate limiting (HTTP 429) after {attempts} attempt(s){detail}",
                status=status,
            )
        if status >= 500:
            return LlmError(f"{where} failed with HTTP {status}{detail}", status=status)
        return LlmError(
            f"{where} refused the request (HTTP {status}){detail}", retryable=False, status=status
        )
    if isinstance(exc, openai.APITimeoutError):
        if midstream and got_text:
            return LlmError(f"{where} stopped sending for {timeout:g}s; the answer is incomplete")
        return LlmError(f"{where} sent no answer within {timeout:g}s (first-token timeout)")
    if isinstance(exc, json.JSONDecodeError):
        return LlmError(
            f"{where} sent a malformed stream chunk (not JSON); the answer is cut short"
        )
    if isinstance(exc, openai.APIConnectionError):
        if midstream:
            return LlmError(f"the connection to {where} broke mid-answer")
        return LlmError(f"{UNREACHABLE}{where}: {_root_cause(exc)}")
    if isinstance(exc, openai.OpenAIError):
        return LlmError(f"{where}: {exc}")
    return LlmError(f"{where}: unexpected {type(exc).__name__}: {exc}")


def _status_detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    message = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            message = str(inner.get("message") or "")
        elif isinstance(body.get("message"), str):
            message = body["message"]
    return f": {message[:200]}" if message else ""


def _root_cause(exc: BaseException) -> str:
    seen: BaseException = exc
    while seen.__cause__ is not None:
        seen = seen.__cause__
    text = str(seen) or type(seen).__name__
    return text[:200]
