"""Per-client output queue for an attached connection, with bounded back-pressure.

The session's reader thread `push`es chunks (cheap: append under a lock); a writer
thread per client coalesces them into large data frames. When a client falls more
than `high_water` bytes behind, the reader waits for it (back-pressure, like a real
terminal); a client stuck for `stall_limit` seconds is dropped so it cannot freeze
the shell for everyone.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from termwise.tray.ipc.protocol import MAX_DATA_CHUNK, encode_data, encode_json
from termwise.tray.ipc.transport import Stream

log = logging.getLogger(__name__)

HIGH_WATER = 4 * 1024 * 1024
LOW_WATER = 1024 * 1024
STALL_LIMIT = 10.0


class ClientSink:
    """Ordered delivery of data and JSON frames to one attached client."""

    def __init__(
        self,
        stream: Stream,
        *,
        on_dead: Callable[[], None] | None = None,
        on_drained: Callable[[], None] | None = None,
        high_water: int = HIGH_WATER,
        low_water: int = LOW_WATER,
        stall_limit: float = STALL_LIMIT,
    ) -> None:
        self._stream = stream
        self._on_dead = on_dead
        self._on_drained = on_drained
        self._high = high_water
        self._low = low_water
        self._stall = stall_limit
        self._items: deque[tuple[bool, bytes]] = deque()  # (is_data, payload-or-frame)
        self._pending = 0
        self._cond = threading.Condition()
        self._closing = False  # no more items; writer exits once drained
        self._dead = False
        self._thread = threading.Thread(target=self._run, name="attach-writer", daemon=True)
        self._thread.start()

    @property
    def dead(self) -> bool:
        return self._dead

    def push(self, data: bytes) -> None:
        """Queue output (called on the session's reader thread)."""
        with self._cond:
            if self._closing or self._dead:
                return
            self._items.append((True, data))
            self._pending += len(data)
            if len(self._items) == 1:
                # The writer only sleeps on an empty queue; waking it for every chunk
                # costs a context switch per 4 KB read on the hot path.
                self._cond.notify_all()
            if self._pending <= self._high:
                return
            deadline = time.monotonic() + self._stall
            while self._pending > self._low and not self._dead:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    log.warning("attached client is stuck; dropping it")
                    self._fail()
                    return
                self._cond.wait(remaining)

    def push_json(self, message: dict[str, Any]) -> None:
        with self._cond:
            if self._closing or self._dead:
                return
            self._items.append((False, encode_json(message)))
            self._cond.notify_all()

    def finish(self) -> None:
        """Send what is queued, then stop the writer (the connection stays open)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def abort(self) -> None:
        """Stop now and drop what is queued."""
        with self._cond:
            self._dead = True
            self._items.clear()
            self._pending = 0
            self._cond.notify_all()

    def _fail(self) -> None:
        """Give up on this client (called with the condition held)."""
        if self._dead:
            return
        self._dead = True
        self._items.clear()
        self._pending = 0
        self._cond.notify_all()
        if self._on_dead is not None:
            self._on_dead()  # must not block: it only shuts the connection down

    def _next_frame(self) -> bytes | None:
        with self._cond:
            while not self._items and not self._closing and not self._dead:
                self._cond.wait()
            if self._dead or not self._items:
                return None
            is_data, payload = self._items.popleft()
            if not is_data:
                return payload
            parts = [payload]
            size = len(payload)
            # Coalesce consecutive output chunks: fewer, larger frames and syscalls.
            while self._items and self._items[0][0] and size < MAX_DATA_CHUNK:
                nxt = self._items.popleft()[1]
                parts.append(nxt)
                size += len(nxt)
            self._pending -= size
            self._cond.notify_all()
        return encode_data(b"".join(parts) if len(parts) > 1 else payload)

    def _run(self) -> None:
        while True:
            frame = self._next_frame()
            if frame is None:
                if not self._dead and self._on_drained is not None:
                    self._on_drained()
                return
            try:
                self._stream.sendall(frame)
            except OSError:
                with self._cond:
                    self._fail()
                return
