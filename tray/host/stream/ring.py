"""Bounded byte buffers: a ring that keeps the newest bytes, and head+tail capping."""

from __future__ import annotations

from collections import deque


class ByteRing:
    """Keeps the last `capacity` bytes appended; appends never copy what is kept."""

    def __init__(self, capacity: int) -> None:
        if capacity <= 0:
            raise ValueError("a ring needs a positive capacity")
        self.capacity = capacity
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self.total = 0  # bytes ever appended
        self.dropped = 0  # bytes pushed out of the front

    def __len__(self) -> int:
        return self._size

    def append(self, data: bytes) -> None:
        if not data:
            return
        self.total += len(data)
        if len(data) >= self.capacity:
            self.dropped += self._size + len(data) - self.capacity
            self._chunks.clear()
            self._chunks.append(bytes(data[-self.capacity :]))
            self._size = self.capacity
            return
        self._chunks.append(data)
        self._size += len(data)
        excess = self._size - self.capacity
        while excess > 0:
            first = self._chunks[0]
            if len(first) <= excess:
                self._chunks.popleft()
                self._size -= len(first)
                self.dropped += len(first)
                excess -= len(first)
            else:
                self._chunks[0] = first[excess:]
                self._size -= excess
                self.dropped += excess
                excess = 0

    def set_capacity(self, capacity: int) -> None:
        """Keep at most `capacity` bytes from now on (the oldest go at once)."""
        if capacity <= 0:
            raise ValueError("a ring needs a positive capacity")
        self.capacity = capacity
        if self._size > capacity:
            kept = self.tail(capacity)
            self.dropped += self._size - capacity
            self._chunks.clear()
            self._chunks.append(kept)
            self._size = capacity

    def tail(self, n: int) -> bytes:
        """The last `n` bytes (fewer if the ring holds fewer)."""
        if n <= 0:
            return b""
        if n >= self._size:
            return b"".join(self._chunks)
        parts: list[bytes] = []
        need = n
        for chunk in reversed(self._chunks):
            if len(chunk) >= need:
                parts.append(chunk[len(chunk) - need :])
                break
            parts.append(chunk)
            need -= len(chunk)
        parts.reverse()
        return b"".join(parts)

    def getvalue(self) -> bytes:
        return b"".join(self._chunks)

    def clear(self) -> None:
        self._chunks.clear()
        self._size = 0


class HeadTailBuffer:
    """Keeps the first and the last bytes of a stream up to `limit` in all; what falls
    between is counted and replaced by a note, so a huge output stays small and useful."""

    def __init__(self, limit: int) -> None:
        if limit < 2:
            raise ValueError("a head/tail buffer needs room for both ends")
        self._head_limit = limit // 2
        self._head = bytearray()
        self._tail = ByteRing(limit - self._head_limit)

    @property
    def dropped(self) -> int:
        return self._tail.dropped

    def append(self, data: bytes) -> None:
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail.append(data)

    def getvalue(self) -> bytes:
        head = bytes(self._head)
        tail = self._tail.getvalue()
        if not self.dropped:
            return head + tail
        # Cut at a line start where one is near, else at a UTF-8 character boundary, so
        # neither end begins inside an escape sequence or a character.
        newline = tail.find(b"\n", 0, 4096)
        cut = newline + 1 if newline >= 0 else _char_start(tail)
        skipped = cut
        tail = tail[cut:]
        note = f"\r\n[... {self.dropped + skipped} bytes of output dropped by termwise ...]\r\n"
        return head + note.encode() + tail


def _char_start(data: bytes) -> int:
    """Index of the first byte that is not a UTF-8 continuation byte."""
    i = 0
    while i < len(data) and i < 4 and 0x80 <= data[i] < 0xC0:
        i += 1
    return i
