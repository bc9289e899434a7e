"""Length-framed messages: JSON requests/replies and raw data frames; nothing is unpickled.

A frame is a 5-byte header (payload length, big-endian u32; kind, u8) and the payload.
`KIND_JSON` carries one UTF-8 JSON object; `KIND_DATA` carries raw terminal bytes
(used only on an attached connection, so output is relayed without base64 or JSON).
"""

from __future__ import annotations

import json
import struct
import time
from collections.abc import Iterator
from typing import Any, Protocol, TypeVar, cast

HEADER = struct.Struct(">IB")
KIND_JSON = 1
KIND_DATA = 2
KINDS = (KIND_JSON, KIND_DATA)

# What the host accepts from a peer; replies may be larger (a context with big blocks).
MAX_REQUEST = 1024 * 1024
MAX_REPLY = 256 * 1024 * 1024
# Output is coalesced into data frames of at most this size.
MAX_DATA_CHUNK = 256 * 1024
PROTOCOL_VERSION = 1


class ProtocolError(Exception):
    """A peer broke the framing rules (bad header, oversized frame, malformed JSON)."""


class Connection(Protocol):
    """The byte stream under the frames: a Unix socket, or a named pipe on Windows."""

    def recv(self, size: int) -> bytes: ...

    def sendall(self, data: bytes) -> None: ...

    def close(self) -> None: ...


def encode_json(message: dict[str, Any]) -> bytes:
    """One JSON frame."""
    payload = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return HEADER.pack(len(payload), KIND_JSON) + payload


def encode_data(data: bytes) -> bytes:
    """One raw data frame."""
    return HEADER.pack(len(data), KIND_DATA) + data


Buffer = TypeVar("Buffer", bytes, memoryview)


def drop_written(parts: list[Buffer], n: int) -> None:
    """Take the first `n` bytes, which a vectored write took, off the front of `parts`."""
    while n:
        first = parts[0]
        if n >= len(first):
            n -= len(first)
            parts.pop(0)
        else:
            # A view, not a slice: a big chunk written a few KiB at a time is not copied
            # again each time (writes and sends take either).
            parts[0] = cast(Buffer, memoryview(first)[n:])
            n = 0


def first_bytes(parts: list[Buffer], limit: int) -> list[Buffer]:
    """The front of `parts` up to `limit` bytes in all (for one bounded vectored write)."""
    taken: list[Buffer] = []
    for part in parts:
        if len(part) > limit:
            taken.append(cast(Buffer, memoryview(part)[:limit]))
            break
        taken.append(part)
        limit -= len(part)
        if not limit:
            break
    return taken


def decode_json(payload: bytes) -> dict[str, Any]:
    """Parse a JSON frame's payload; it must be one object."""
    try:
        message = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"malformed JSON message: {exc}") from None
    except RecursionError:
        raise ProtocolError("a JSON message nested too deeply") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message must be a JSON object")
    return message


class FrameDecoder:
    """Incremental frame parser: feed bytes as they arrive, take whole frames out."""

    def __init__(self, max_size: int) -> None:
        self.max_size = max_size
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        self._buf += data

    def frames(self) -> Iterator[tuple[int, bytes]]:
        """Yield the complete frames buffered so far (raises ProtocolError on a bad one)."""
        buf = self._buf
        start = 0
        try:
            while len(buf) - start >= HEADER.size:
                size, kind = HEADER.unpack_from(buf, start)
                if kind not in KINDS:
                    raise ProtocolError(f"unknown frame kind {kind}")
                if size > self.max_size:
                    raise ProtocolError(f"frame of {size} bytes is over the {self.max_size} limit")
                end = start + HEADER.size + size
                if len(buf) < end:
                    break
                payload = bytes(buf[start + HEADER.size : end])
                start = end
                yield kind, payload
        finally:
            del buf[:start]

    @property
    def pending(self) -> int:
        return len(self._buf)


class FrameReader:
    """Blocking frame reader over a connection."""

    def __init__(self, conn: Connection, max_size: int, recv_size: int = 65536) -> None:
        self.conn = conn
        self.decoder = FrameDecoder(max_size)
        self._ready: list[tuple[int, bytes]] = []
        self._recv_size = recv_size

    def read(self, deadline: float | None = None) -> tuple[int, bytes] | None:
        """The next frame, or None when the peer closed the connection cleanly.

        With a `deadline` (time.monotonic()), the whole frame must arrive by then, however
        it trickles in (TimeoutError otherwise); the connection needs `settimeout`.
        """
        while not self._ready:
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("the peer did not send a whole message in time")
                settimeout = getattr(self.conn, "settimeout", None)
                if settimeout is not None:
                    settimeout(remaining)
            data = self.conn.recv(self._recv_size)
            if not data:
                if self.decoder.pending:
                    raise ProtocolError("connection closed in the middle of a frame")
                return None
            self.decoder.feed(data)
            self._ready.extend(self.decoder.frames())
        return self._ready.pop(0)

    def take_buffered(self) -> list[tuple[int, bytes]]:
        """Frames already received but not yet read (for switching to a select loop)."""
        ready, self._ready = self._ready, []
        ready.extend(self.decoder.frames())
        return ready

    def read_json(self, deadline: float | None = None) -> dict[str, Any] | None:
        """The next frame, which must be JSON; None at a clean end of stream."""
        frame = self.read(deadline)
        if frame is None:
            return None
        kind, payload = frame
        if kind != KIND_JSON:
            raise ProtocolError("expected a JSON message, got a data frame")
        return decode_json(payload)
