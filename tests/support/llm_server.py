"""A loopback OpenAI-compatible HTTP server for tests: real sockets, SSE, scripted faults.

Usage (through the `llm_server` fixture in tests/conftest.py)::

    llm_server.reply(text='{"command": "ls"}\\n', chunk_size=3)
    client = OpenAI(base_url=llm_server.base_url, api_key="x")

Each request to `/v1/chat/completions` takes the next queued `Reply` (or what
`responder(request_json)` returns, when set and not None). With nothing queued it
answers an empty text. Streaming answers use chunked transfer encoding like real
providers, so a cut connection is a protocol error on the client side.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ToolCall:
    """A tool call the model makes; `arguments` is streamed in `chunk_size` pieces."""

    name: str
    arguments: str
    id: str = ""


@dataclass
class Reply:
    """One scripted answer of the server."""

    text: str = ""
    chunk_size: int = 8  # characters per content delta
    tool_calls: list[ToolCall] = field(default_factory=list)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str = ""  # body message for status >= 400
    delay: float = 0.0  # seconds before the first token (headers are already sent)
    header_delay: float = 0.0  # seconds before the response headers
    chunk_delay: float = 0.0  # seconds between chunks
    stall_after: int | None = None  # after N content deltas: stop sending, keep the socket open
    cut_after: int | None = None  # after N content deltas: drop the connection mid-body
    invalid_after: int | None = None  # after N content deltas: send a chunk that is not JSON
    finish_reason: str | None = None  # default: "tool_calls" with tool calls, else "stop"
    model: str = ""  # default: the model the request named
    keepalive: float = 0.0  # with stall_after: an SSE comment every this many seconds meanwhile
    body: str | None = None  # a 200 with this body (and `content_type`) instead of an answer
    content_type: str = "text/html; charset=utf-8"
    raw_events: list[str] = field(default_factory=list)  # SSE data sent before the text


class LlmServer:
    """A threaded HTTP server speaking enough of the OpenAI chat API for the client tests."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.models: list[str] = ["test", "test-small"]
        # fn(request_json) -> Reply (or a str of text, or a dict of Reply fields); None = queue
        self.responder: Callable[[dict[str, Any]], Any] | None = None
        self.requests: list[dict[str, Any]] = []  # JSON bodies of chat requests, in order
        self.request_headers: list[dict[str, str]] = []
        self.first_token_times: list[float] = []  # perf_counter() when a first delta was flushed
        self.models_requests = 0
        self.keepalives_sent = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._disconnect = threading.Event()
        self._request_seen = threading.Condition(self._lock)
        handler = _make_handler(self)
        self._httpd = _QuietServer((host, port), handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- control -------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlmServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def reply(self, text: str = "", **kwargs: Any) -> Reply:
        """Queue one answer (see `Reply` for the knobs); returns it."""
        r = make_reply({"text": text, **kwargs})
        with self._lock:
            self._queue.append(r)
        return r

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()

    def wait_disconnect(self, timeout: float) -> bool:
        """True once a client closed a streaming answer before it was complete."""
        return self._disconnect.wait(timeout)

    def reset_disconnect(self) -> None:
        self._disconnect.clear()

    def wait_requests(self, n: int, timeout: float) -> bool:
        """True once at least `n` chat requests arrived."""
        deadline = time.monotonic() + timeout
        with self._request_seen:
            while len(self.requests) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._request_seen.wait(left)
        return True

    # -- used by the handler -------------------------------------------------------

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        if self.responder is not None:
            routed = self.responder(body)
            if routed is not None:
                return make_reply(routed)
        with self._lock:
            return self._queue.popleft() if self._queue else Reply()

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._request_seen:
            self.requests.append(body)
            self.request_headers.append(headers)
            self._request_seen.notify_all()


def _tool_call(tc: Any) -> ToolCall:
    """A ToolCall from itself, {"name", "arguments"} or the OpenAI {"id", "function": {…}} shape."""
    if isinstance(tc, ToolCall):
        return tc
    fn = tc.get("function", tc)
    args = fn.get("arguments", "")
    if not isinstance(args, str):
        args = json.dumps(args)
    return ToolCall(name=fn["name"], arguments=args, id=tc.get("id", ""))


def make_reply(spec: Any) -> Reply:
    """A Reply from a Reply, a plain text, or a dict of Reply fields."""
    if isinstance(spec, Reply):
        return spec
    if isinstance(spec, str):
        return Reply(text=spec)
    fields = dict(spec)
    fields["tool_calls"] = [_tool_call(tc) for tc in fields.get("tool_calls") or []]
    return Reply(**fields)


class _QuietServer(ThreadingHTTPServer):
    """Clients dropping idle keep-alive connections is normal; other errors still print."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class _ClientGone(Exception):
    """The client closed the connection while we were answering."""


def _make_handler(server: LlmServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        _done = False  # the stream's [DONE] went out

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        # -- routing -----------------------------------------------------------------

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                server.models_requests += 1
                data = [
                    {"id": m, "object": "model", "created": 1700000000, "owned_by": "loopback"}
                    for m in server.models
                ]
                self._send_json(200, {"object": "list", "data": data})
            else:
                self._send_json(404, _error_body("not found", "invalid_request_error"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, _error_body("not found", "invalid_request_error"))
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._send_json(400, _error_body("request body is not JSON", "invalid_request"))
                return
            server._record(body, {k.lower(): v for k, v in self.headers.items()})
            reply = server._next_reply(body)
            if reply.header_delay:
                self._sleep(reply.header_delay)
            if reply.status >= 400:
                message = reply.error_message or f"scripted error {reply.status}"
                self._send_json(reply.status, _error_body(message, "server_error"), reply.headers)
                return
            self._done = False
            if reply.body is not None:
                self._send_raw(200, reply.body.encode(), reply.content_type, reply.headers)
                return
            try:
                if body.get("stream"):
                    self._stream(body, reply)
                else:
                    self._complete(body, reply)
            except (_ClientGone, BrokenPipeError, ConnectionResetError):
                if not self._done:  # closing after [DONE] is what clients normally do
                    server._disconnect.set()
                self.close_connection = True

        # -- answers -----------------------------------------------------------------

        def _complete(self, body: dict[str, Any], reply: Reply) -> None:
            if reply.delay:
                self._sleep(reply.delay)
            message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
            if reply.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": tc.id or f"call_{i}",
                        "type": "function",
                        "function": {"name": tc.name, "arguments": tc.arguments},
                    }
                    for i, tc in enumerate(reply.tool_calls)
                ]
            finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
            self._send_json(
                200,
                {
                    "id": "chatcmpl-loopback",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": reply.model or body.get("model", "test"),
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": {
                        "prompt_tokens": 10,
                        "completion_tokens": max(1, len(reply.text) // 4),
                        "total_tokens": 10 + max(1, len(reply.text) // 4),
                    },
                },
                reply.headers,
            )

        def _stream(self, body: dict[str, Any], reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.flush()
            model = reply.model or body.get("model", "test")
            created = int(time.time())

            def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
                return {
                    "id": "chatcmpl-loopback",
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [
                        {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                    ],
                }

            if reply.delay:
                self._sleep(reply.delay)
            self._event(json.dumps(chunk({"role": "assistant", "content": ""})))
            for raw in reply.raw_events:
                self._event(raw)
            size = max(1, reply.chunk_size)
            pieces = [reply.text[i : i + size] for i in range(0, len(reply.text), size)]
            sent = 0
            first = True
            for piece in pieces:
                if self._fault(reply, sent):
                    return
                if reply.chunk_delay and not first:
                    self._sleep(reply.chunk_delay)
                self._event(json.dumps(chunk({"content": piece})))
                if first:
                    server.first_token_times.append(time.perf_counter())
                    first = False
                sent += 1
            for i, tc in enumerate(reply.tool_calls):
                head = {
                    "index": i,
                    "id": tc.id or f"call_{i}",
                    "type": "function",
                    "function": {"name": tc.name, "arguments": ""},
                }
                self._event(json.dumps(chunk({"tool_calls": [head]})))
                args = tc.arguments
                for j in range(0, len(args), size):
                    if self._fault(reply, sent):
                        return
                    part = {"index": i, "function": {"arguments": args[j : j + size]}}
                    self._event(json.dumps(chunk({"tool_calls": [part]})))
                    sent += 1
            if self._fault(reply, sent):
                return
            finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
            self._event(json.dumps(chunk({}, finish)))
            if (body.get("stream_options") or {}).get("include_usage"):
                usage = chunk({})
                usage["choices"] = []
                usage["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                self._event(json.dumps(usage))
            self._done = True
            self._event("[DONE]")
            self._write_raw(b"0\r\n\r\n")

        def _fault(self, reply: Reply, sent: int) -> bool:
            """Play the scripted fault due after `sent` deltas; True when the answer is over."""
            if reply.invalid_after is not None and sent == reply.invalid_after:
                self._event('{"id": "chatcmpl-loopback", "choices": [{"delta": {"content": "ok')
                self._event("[DONE]")
                self._write_raw(b"0\r\n\r\n")
                return True
            if reply.cut_after is not None and sent == reply.cut_after:
                # Half a chunk, then the socket goes away: the body can never complete.
                self._write_raw(b"40\r\ndata: {")
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return True
            if reply.stall_after is not None and sent == reply.stall_after:
                self._wait_for_client_close(reply.keepalive)
                return True
            return False

        # -- plumbing ----------------------------------------------------------------

        def _event(self, data: str) -> None:
            payload = f"data: {data}\n\n".encode()
            self._write_raw(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            self._check_alive()

        def _write_raw(self, data: bytes) -> None:
            self.wfile.write(data)
            self.wfile.flush()

        def _check_alive(self) -> None:
            """Raise _ClientGone when the peer has closed its side (EOF waiting to be read)."""
            sock = self.connection
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                try:
                    data = sock.recv(1, socket.MSG_PEEK)
                except OSError as exc:
                    raise _ClientGone from exc
                if not data:
                    raise _ClientGone

        def _sleep(self, seconds: float) -> None:
            deadline = time.monotonic() + seconds
            while not server._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._check_alive()
                time.sleep(min(left, 0.02))

        def _wait_for_client_close(self, keepalive: float = 0.0) -> None:
            """Send nothing (or an SSE comment every `keepalive` s) until the client leaves."""
            last = time.monotonic()
            while not server._stop.is_set():
                self._check_alive()
                if keepalive and time.monotonic() - last >= keepalive:
                    payload = b": keep-alive\n\n"
                    self._write_raw(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
                    server.keepalives_sent += 1
                    last = time.monotonic()
                time.sleep(0.02)

        def _send_raw(
            self, status: int, data: bytes, content_type: str, headers: dict[str, str]
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def _send_json(
            self, status: int, obj: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

    return Handler


def _error_body(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
