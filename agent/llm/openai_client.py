"""The real model client over the `openai` SDK (the only module that imports `openai`).

Every request carries the task's token budget and, where the provider offers it, the
answer's JSON schema (a provider that refuses the field is remembered and asked plainly
from then on). One answer has an overall deadline besides the idle timeout: a watchdog
shuts the socket when it passes, so a server that keeps the connection alive with SSE
comments cannot hold a caller forever. A model that loops on one phrase is cut off.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import openai
from termwise.agent.base.cancel import CancelToken
from termwise.agent.llm.base import (
    REPETITION,
    ChatDelta,
    Failure,
    LlmError,
    Message,
    Task,
    ToolCallDelta,
)
from termwise.agent.llm.limits import (
    Deadline,
    abort,
    content_type,
    not_an_answer,
    parse_retry_after,
    seconds_text,
)
from termwise.agent.llm.repetition import RepetitionGuard
from termwise.agent.llm.routing import Route
from termwise.agent.llm.schemas import AnswerSchema

log = logging.getLogger(__name__)

MAX_RETRY_WAIT = 30.0  # never sleep longer than this for one Retry-After
BASE_BACKOFF = 0.5
ANSWER_DEADLINE = 60.0
PEEK_BYTES = 65_536  # how much of a body that is not an event stream is read to name it
# A 400/422 naming one of these is a refusal of the schema, not of the request.
_SCHEMA_WORDS = re.compile(r"response_format|json_schema|schema|grammar|structured", re.I)


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
        answer_deadline: float = ANSWER_DEADLINE,
        structured_output: bool = True,
    ) -> None:
        self.routes = dict(routes)
        self.connect_timeout = connect_timeout
        self.first_token_timeout = first_token_timeout
        self.max_retries = max(0, max_retries)
        self.max_retry_wait = max_retry_wait
        self.answer_deadline = answer_deadline
        self.structured_output = structured_output
        self._sdk_clients: dict[tuple[str, str], openai.OpenAI] = {}
        self._no_schema: set[tuple[str, str]] = set()  # (base_url, model) that refused one
        self._lock = threading.Lock()

    # -- public --------------------------------------------------------------------

    def route(self, task: Task) -> Route:
        try:
            return self.routes[task]
        except KeyError:
            raise LlmError(
                f"no model is set up for the {task!r} task",
                reason=Failure.NO_ROUTE,
                retryable=False,
            ) from None

    def uses_schema(self, task: Task) -> bool:
        """Whether a request for `task` with a schema would carry it now (for reports)."""
        route = self.route(task)
        return self._schema_mode(route) is not None

    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        task: Task,
        tools: Sequence[dict[str, Any]] | None = None,
        cancel: CancelToken | None = None,
        schema: AnswerSchema | None = None,
    ) -> Iterator[ChatDelta]:
        route = self.route(task)
        deadline = Deadline(self.answer_deadline)
        kwargs = self._request(route, messages, tools, schema)
        stream = self._open(route, kwargs, cancel, deadline, stream=True)
        if stream is None:  # cancelled while connecting or waiting to retry
            return
        remove = cancel.add_callback(lambda: abort(stream)) if cancel else (lambda: None)
        deadline.watch(stream)
        got_text = False
        try:
            kind = content_type(stream.response)
            if "text/event-stream" not in kind:
                yield from self._not_a_stream(stream, route, kind)
                return
            guard = RepetitionGuard()
            events = 0
            for chunk in stream:
                events += 1
                if cancel is not None and cancel.cancelled:
                    return
                delta = _to_delta(chunk)
                if delta is None:
                    continue
                got_text = got_text or bool(delta.text or delta.tool_calls)
                yield delta
                if guard.feed(delta.text):
                    log.info("%s repeats %r; stopped reading", route.model, guard.unit[:40])
                    yield ChatDelta(finish_reason=REPETITION)
                    return
            if deadline.passed:
                raise self._deadline_error(route, got_text)
            if events == 0:
                raise LlmError(
                    f"{_where(route)} answered with an empty event stream (no data at all)",
                    reason=Failure.NOT_AN_ANSWER,
                )
        except LlmError:
            raise
        except Exception as exc:
            if cancel is not None and cancel.cancelled:
                return  # the abort itself broke the read; not an error
            if deadline.passed:
                raise self._deadline_error(route, got_text) from exc
            raise _describe(
                exc, route, midstream=True, timeout=self.first_token_timeout, got_text=got_text
            ) from exc
        finally:
            deadline.stop()
            remove()
            with contextlib.suppress(Exception):
                stream.close()

    def complete(self, messages: Sequence[Message], *, task: Task) -> str:
        route = self.route(task)
        deadline = Deadline(self.answer_deadline)
        kwargs = self._request(route, messages, None, None)
        result = self._open(route, kwargs, None, deadline, stream=False)
        if result is None:
            return ""
        if not hasattr(result, "choices"):  # the SDK hands back the body when it is not JSON
            raise not_an_answer(route, "", str(result)[:PEEK_BYTES])
        if not result.choices:
            return ""
        return result.choices[0].message.content or ""

    # -- internals -----------------------------------------------------------------

    def _sdk(self, route: Route) -> openai.OpenAI:
        if route.provider.needs_key and not route.api_key:
            name = route.provider.name
            env_hint = f" or set {route.provider.key_env}" if route.provider.key_env else ""
            raise LlmError(
                f"no API key for provider {name!r}: run `termwise config set-key {name}`{env_hint}",
                reason=Failure.NO_KEY,
                retryable=False,
            )
        key = route.api_key or "not-needed"  # local servers take any key; the SDK wants one
        ident = (route.provider.base_url, key)
        with self._lock:
            client = self._sdk_clients.get(ident)
            if client is None:
                client = openai.OpenAI(
                    base_url=route.provider.base_url,
                    api_key=key,
                    timeout=self._timeout(None),
                    max_retries=0,  # retries are ours: bounded, cancellable, honouring Retry-After
                )
                self._sdk_clients[ident] = client
        return client

    def _timeout(self, left: float | None) -> openai.Timeout:
        """Connect and idle timeouts, never beyond what is left of the answer's time."""
        read = self.first_token_timeout
        connect = self.connect_timeout
        if left is not None:
            read, connect = min(read, left), min(connect, left)
        return openai.Timeout(read, connect=connect, read=read)

    def _schema_mode(self, route: Route) -> str | None:
        """ "strict" or "bounded" when this route's requests carry a schema now, else None."""
        mode = route.provider.structured
        if not self.structured_output or mode == "off":
            return None
        with self._lock:
            if (route.provider.base_url, route.model) in self._no_schema:
                return None
        return "strict" if mode == "strict" else "bounded"

    def _request(
        self,
        route: Route,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]] | None,
        schema: AnswerSchema | None,
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": route.model,
            "messages": list(messages),
            "temperature": route.temperature,
        }
        if route.max_tokens > 0:
            kwargs[route.provider.token_field] = route.max_tokens
        if tools:
            kwargs["tools"] = list(tools)
        mode = self._schema_mode(route) if schema is not None and not tools else None
        if schema is not None and mode is not None:
            kwargs["response_format"] = schema.response_format(strict=mode == "strict")
        return kwargs

    def _open(
        self,
        route: Route,
        kwargs: dict[str, Any],
        cancel: CancelToken | None,
        deadline: Deadline,
        *,
        stream: bool,
    ) -> Any:
        """Send the request, retrying 429/5xx within the deadline; None when cancelled."""
        attempt = 0
        while True:
            if cancel is not None and cancel.cancelled:
                return None
            left = deadline.left()
            if left is not None and left <= 0:
                raise self._deadline_error(route, False)
            try:
                sdk = self._sdk(route)
                return sdk.chat.completions.create(
                    stream=stream, timeout=self._timeout(left), **kwargs
                )
            except openai.APIStatusError as exc:
                status = exc.status_code
                if "response_format" in kwargs and self._schema_refused(route, exc):
                    del kwargs["response_format"]
                    continue  # asked again at once, without the schema; not a retry
                if not (status == 429 or status >= 500) or attempt >= self.max_retries:
                    raise _describe(exc, route, attempts=attempt + 1) from exc
                wait = self._wait_before_retry(route, exc, attempt, deadline)
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
                if deadline.left() == 0.0:
                    raise self._deadline_error(route, False) from exc
                raise _describe(exc, route, timeout=self.first_token_timeout) from exc
            attempt += 1
            if cancel is not None:
                if cancel.wait(wait):
                    return None
            else:
                time.sleep(wait)

    def _schema_refused(self, route: Route, exc: openai.APIStatusError) -> bool:
        """True (and remembered) when a 4xx says the provider does not take our schema."""
        if exc.status_code not in (400, 404, 415, 422, 501):
            return False
        probing = route.provider.structured == "probe"
        said = _SCHEMA_WORDS.search(_status_detail(exc) or str(exc.body or ""))
        if not (said or (probing and exc.status_code in (400, 422))):
            return False
        log.info(
            "%s (%s) does not take a response schema (HTTP %s); asking plainly from now on",
            route.provider.name,
            route.model,
            exc.status_code,
        )
        with self._lock:
            self._no_schema.add((route.provider.base_url, route.model))
        return True

    def _wait_before_retry(
        self, route: Route, exc: openai.APIStatusError, attempt: int, deadline: Deadline
    ) -> float:
        """Seconds to wait before the next attempt; raises when the wait cannot fit."""
        asked = parse_retry_after(exc.response.headers.get("retry-after"))
        left = deadline.left()
        limit = self.max_retry_wait if left is None else min(self.max_retry_wait, left)
        if asked is not None and asked > limit:
            why = (
                f"the {deadline.seconds:g} s answer deadline"
                if left is not None and asked > left
                else f"the {self.max_retry_wait:g} s Termwise waits between attempts"
            )
            what = (
                "is rate limiting (HTTP 429)"
                if exc.status_code == 429
                else (f"failed with HTTP {exc.status_code}")
            )
            raise LlmError(
                f"{_where(route)} {what} and asks to wait {seconds_text(asked)} before trying "
                f"again, beyond {why}; try again later",
                reason=Failure.RATE_LIMITED if exc.status_code == 429 else Failure.SERVER,
                status=exc.status_code,
            ) from exc
        wait = asked if asked is not None else self._backoff(attempt, None)
        if left is not None and wait >= left:
            raise self._deadline_error(route, False) from exc
        return wait

    def _backoff(self, attempt: int, retry_after: str | None) -> float:
        wait = parse_retry_after(retry_after)
        if wait is None:
            wait = BASE_BACKOFF * (2**attempt) * (1 + random.random() * 0.25)
        return max(0.0, min(wait, self.max_retry_wait))

    def _deadline_error(self, route: Route, got_text: bool) -> LlmError:
        what = "did not finish its answer" if got_text else "sent no answer"
        return LlmError(
            f"{_where(route)} {what} within {self.answer_deadline:g} s (the answer deadline, "
            "llm.answer_deadline); the connection was closed",
            reason=Failure.DEADLINE,
        )

    def _not_a_stream(self, stream: Any, route: Route, kind: str) -> Iterator[ChatDelta]:
        """A 200 answer that is not an event stream: a whole JSON answer, or name what it is."""
        response = stream.response
        body = bytearray()
        for part in response.iter_bytes():
            body += part
            if len(body) >= PEEK_BYTES:
                break
        text = bytes(body[:PEEK_BYTES]).decode("utf-8", "replace")
        url = str(getattr(response, "url", "") or "")
        if "json" in kind or text.lstrip().startswith("{"):
            try:
                data = json.loads(text)
            except (ValueError, RecursionError):
                data = None
            choices = data.get("choices") if isinstance(data, dict) else None
            if isinstance(choices, list) and choices and isinstance(choices[0], dict):
                # A server that ignored stream=true and sent the whole answer at once.
                message = choices[0].get("message") or {}
                content = message.get("content") if isinstance(message, dict) else None
                if isinstance(content, str):
                    yield ChatDelta(text=content)
                finish = choices[0].get("finish_reason")
                yield ChatDelta(finish_reason=finish if isinstance(finish, str) else "stop")
                return
        raise not_an_answer(route, kind, text, url)


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
    if not isinstance(text, str):
        text = ""
    if not text and not calls and not choice.finish_reason:
        return None
    return ChatDelta(text=text, tool_calls=tuple(calls), finish_reason=choice.finish_reason)


def _where(route: Route) -> str:
    return f"{route.provider.name} ({route.provider.base_url})"


def _describe(
    exc: BaseException,
    route: Route,
    *,
    midstream: bool = False,
    attempts: int = 1,
    timeout: float = 0.0,
    got_text: bool = False,
) -> LlmError:
    """Turn an SDK or transport error into one clear sentence with its reason."""
    where = _where(route)
    if isinstance(exc, LlmError):
        return exc
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = _status_detail(exc)
        if status in (401, 403):
            return LlmError(
                f"{where} rejected the API key (HTTP {status}); set one with "
                f"`termwise config set-key {route.provider.name}`",
                reason=Failure.AUTH,
                retryable=False,
                status=status,
            )
        if status == 404:
            return LlmError(
                f"{where} does not know model {route.model!r} (HTTP 404){detail}",
                reason=Failure.UNKNOWN_MODEL,
                retryable=False,
                status=status,
            )
        if status == 429:
            return LlmError(
                f"{where} is rate limiting (HTTP 429) after {attempts} attempt(s){detail}",
                reason=Failure.RATE_LIMITED,
                status=status,
            )
        if status >= 500:
            return LlmError(
                f"{where} failed with HTTP {status}{detail}", reason=Failure.SERVER, status=status
            )
        return LlmError(
            f"{where} refused the request (HTTP {status}){detail}",
            reason=Failure.REFUSED,
            retryable=False,
            status=status,
        )
    if isinstance(exc, openai.APITimeoutError):
        if midstream and got_text:
            return LlmError(
                f"{where} stopped sending for {timeout:g}s; the answer is incomplete",
                reason=Failure.TIMEOUT,
            )
        return LlmError(
            f"{where} sent no answer within {timeout:g}s (first-token timeout)",
            reason=Failure.TIMEOUT,
        )
    if isinstance(exc, RecursionError):
        return LlmError(
            f"{where} sent a stream chunk nested too deeply to read; the answer is cut short",
            reason=Failure.NOT_AN_ANSWER,
        )
    if isinstance(exc, json.JSONDecodeError):
        return LlmError(
            f"{where} sent a malformed stream chunk (not JSON); the answer is cut short",
            reason=Failure.NOT_AN_ANSWER,
        )
    if isinstance(exc, openai.APIConnectionError):
        if midstream:
            return LlmError(f"the connection to {where} broke mid-answer", reason=Failure.BROKEN)
        return LlmError(f"cannot reach {where}: {_root_cause(exc)}", reason=Failure.UNREACHABLE)
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
