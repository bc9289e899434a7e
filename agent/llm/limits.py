"""Limits on one model answer that need no SDK: its deadline, Retry-After, naming non-answers.

The deadline's watchdog shuts the stream's socket when time is up, which wakes a read
blocked on a server that sends only SSE keep-alive comments.
"""

from __future__ import annotations

import contextlib
import email.utils
import logging
import re
import socket
import threading
import time
from typing import Any

from termwise.agent.llm.base import Failure, LlmError
from termwise.agent.llm.routing import Route

log = logging.getLogger(__name__)


class Deadline:
    """The end of one answer's time, and a watchdog that shuts a stream when it passes."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds if seconds > 0 else None
        self.passed = False
        self._timer: threading.Timer | None = None

    def left(self) -> float | None:
        return None if self.end is None else max(0.0, self.end - time.monotonic())

    def watch(self, stream: Any) -> None:
        left = self.left()
        if left is None:
            return

        def fire() -> None:
            self.passed = True
            abort(stream)

        self._timer = threading.Timer(left, fire)
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def content_type(response: Any) -> str:
    try:
        return str(response.headers.get("content-type", "")).lower()
    except Exception:  # a response object without headers: assume the normal case
        return "text/event-stream"


def not_an_answer(route: Route, kind: str, text: str, url: str = "") -> LlmError:
    """Name what came instead of a model answer, with the address it came from."""
    where = url or f"{route.provider.base_url.rstrip('/')}/chat/completions"
    head = text.lstrip()[:200].lower()
    if "html" in kind or head.startswith(("<!doctype", "<html", "<head", "<body", "<")):
        m = re.search(r"<title[^>]*>(.*?)</title>", text, re.I | re.S)
        title = f' titled "{" ".join(m.group(1).split())[:80]}"' if m else ""
        what = f"an HTML page{title}"
        hint = "; is the base URL right? It usually ends in /v1"
    elif text.strip():
        what = f"{kind or 'an untyped body'} that is not a model answer: {_snippet(text)}"
        hint = ""
    else:
        what = f"an empty {kind or 'untyped'} body"
        hint = ""
    return LlmError(
        f"{where} answered HTTP 200 with {what}{hint}",
        reason=Failure.NOT_AN_ANSWER,
        retryable=False,
    )


def _snippet(text: str, n: int = 120) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= n else flat[: n - 1] + "…")


def seconds_text(value: float) -> str:
    if value >= 120:
        return f"{value / 60:.0f} min ({value:.0f} s)"
    return f"{value:.0f} s"


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return seconds if seconds == seconds and seconds >= 0 else None  # not NaN
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def abort(stream: Any) -> None:
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
