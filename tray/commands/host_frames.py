"""What the host sends an attached client, read back: output frames go to the terminal
as they arrive (straight from the receive buffer, several in one vectored write), and
the events that end an attach (exit, detached, dropped) become an Outcome."""

from __future__ import annotations

import os
import sys
from typing import Any

from termwise.tray.ipc.protocol import (
    HEADER,
    KIND_DATA,
    KIND_JSON,
    MAX_REPLY,
    ProtocolError,
    decode_json,
    drop_written,
)

RECV_SIZE = 512 * 1024
MAX_IOV = 512


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class Outcome:
    """How an attached run ended."""

    def __init__(self, kind: str, code: int | None = None) -> None:
        self.kind = kind  # "exit" | "detached" | "dropped" | "signal" | "lost" ("eof" inside)
        self.code = code


def handle_frame(kind: int, payload: bytes, out_fd: int) -> Outcome | None:
    if kind == KIND_DATA:
        _write_all(out_fd, payload)
        return None
    return _handle_event(decode_json(payload))


def _handle_event(message: dict[str, Any]) -> Outcome | None:
    event = message.get("event")
    if event == "exit":
        return Outcome("exit", message.get("code"))
    if event == "detached":
        return Outcome("detached")
    if event == "dropped":
        behind = message.get("behind")
        return Outcome("dropped", behind if isinstance(behind, int) else None)
    return None


class HostFrames:
    """Frames from the host parsed where they were received: output goes to the
    terminal straight from the receive buffer, as it arrives (no copy per frame, no
    wait for a whole frame), several frames in one vectored write."""

    def __init__(self, out_fd: int, size: int = RECV_SIZE) -> None:
        self._out_fd = out_fd
        self._buf = bytearray(size)
        self._view = memoryview(self._buf)
        self._start = 0
        self._end = 0
        self._data_left = 0  # bytes of the current data frame still to come

    def receive(self, sock: Any) -> Outcome | None:
        """Read once from the host and act on it; Outcome("eof") when it closed."""
        if len(self._buf) - self._end < HEADER.size:
            self._compact()
        n = sock.recv_into(self._view[self._end :])
        if not n:
            return Outcome("eof")
        self._end += n
        return self._process()

    def _process(self) -> Outcome | None:
        buf, view = self._buf, self._view
        out: list[memoryview] = []
        outcome = None
        need = 0
        start, end = self._start, self._end
        while start < end:
            if self._data_left:
                take = min(end - start, self._data_left)
                out.append(view[start : start + take])
                start += take
                self._data_left -= take
                continue
            if end - start < HEADER.size:
                break
            size, kind = HEADER.unpack_from(buf, start)
            if kind == KIND_DATA:
                start += HEADER.size
                self._data_left = size
                continue
            if kind != KIND_JSON or size > MAX_REPLY:
                raise ProtocolError(f"bad frame from the host (kind {kind}, {size} bytes)")
            if end - start < HEADER.size + size:
                need = HEADER.size + size
                break
            message = decode_json(bytes(view[start + HEADER.size : start + HEADER.size + size]))
            start += HEADER.size + size
            outcome = _handle_event(message)
            if outcome is not None:
                break
        _writev_all(self._out_fd, out)
        del out
        self._start, self._end = (0, 0) if start == end else (start, end)
        if need > len(buf):  # a JSON frame bigger than the buffer
            self._grow(need)
        return outcome

    def _compact(self) -> None:
        rest = self._end - self._start
        self._buf[:rest] = bytes(self._view[self._start : self._end])
        self._start, self._end = 0, rest

    def _grow(self, need: int) -> None:
        self._compact()
        self._view.release()
        self._buf.extend(bytes(need - len(self._buf)))
        self._view = memoryview(self._buf)


if sys.platform == "win32":  # HostFrames serves the POSIX relay only

    def _writev(fd: int, parts: list[memoryview]) -> int:
        return os.write(fd, b"".join(parts))

else:

    def _writev(fd: int, parts: list[memoryview]) -> int:
        return os.writev(fd, parts)


def _writev_all(fd: int, parts: list[memoryview]) -> None:
    while parts:
        drop_written(parts, _writev(fd, parts[:MAX_IOV]))
