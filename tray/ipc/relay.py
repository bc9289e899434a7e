"""Per-client output queue for an attached connection, with bounded back-pressure.

The session's reader thread `push`es each chunk. When nothing is queued and no send
is in progress, the chunk goes straight into the socket without blocking (no thread
hop, no copy: header and payload leave in one vectored `sendmsg`); only what the
socket does not take at once is queued for the writer thread, which coalesces queued
chunks into large frames and sends them with vectored writes. So a keystroke's echo
costs no wake-up, and a flood costs one send per many chunks.

Given the client's own terminal (`terminal`, opened by the host: see
client_terminal.py), output is written straight to it instead, as a bare relay would:
the client process no longer wakes, receives or writes for each chunk. JSON frames still
go through the connection, after the output queued before them.

When a client falls more than `high_water` bytes behind, the reader waits for it
(back-pressure, like a real terminal); a client stuck for `stall_limit` seconds is
dropped so it cannot freeze the shell for everyone, and is told so in a last
`{"event": "dropped", "behind": N}` message.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

if sys.platform != "win32":
    import termios

from termwise.tray.ipc.protocol import (
    HEADER,
    KIND_DATA,
    MAX_DATA_CHUNK,
    drop_written,
    encode_json,
    first_bytes,
)
from termwise.tray.ipc.transport import Stream

log = logging.getLogger(__name__)

HIGH_WATER = 4 * 1024 * 1024
LOW_WATER = 1024 * 1024
STALL_LIMIT = 10.0
DROP_GRACE = 6  # stall limits a dropped client has to read on up to the notice
# sendmsg takes at most IOV_MAX (1024 on Linux) buffers per call.
MAX_IOV = 512

_DONTWAIT = getattr(socket, "MSG_DONTWAIT", 0)
_PACK = HEADER.pack

if sys.platform == "win32":  # named pipes: ClientSink never takes the socket path

    def _sendmsg(sock: socket.socket, buffers: Sequence[bytes], flags: int = 0) -> int:
        raise OSError("vectored sends need a Unix socket")

else:

    def _sendmsg(sock: socket.socket, buffers: Sequence[bytes], flags: int = 0) -> int:
        return sock.sendmsg(buffers, (), flags)


ROOM_WAIT_MS = 200  # a full terminal is polled this often, so a drop or abort is seen
BLOCKING_WRITE = 65536  # the most one blocking write hands a client's terminal
# Where waking a blocked terminal write (tcflow) is tested; elsewhere writes poll for room.
BLOCKING_WRITES = sys.platform == "linux"


def _controls(terminal: int) -> bool:
    """Whether `terminal` is this process's controlling terminal (only then does it
    tell its foreground group)."""
    if sys.platform == "win32":  # no terminals are handed to the host there
        return False
    try:
        os.tcgetpgrp(terminal)
    except OSError:
        return False
    return True


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
        terminal: int | None = None,
    ) -> None:
        self._stream = stream
        # The client's terminal (non-blocking, ours to close): output goes straight there.
        self._tty = terminal
        # Vectored and non-blocking sends need a real socket (a Windows pipe has neither).
        self._sock = stream if isinstance(stream, socket.socket) and _DONTWAIT else None
        self._on_dead = on_dead
        self._on_drained = on_drained
        self._high = high_water
        self._low = low_water
        self._stall = stall_limit
        # (is_data, bytes, queued): data payloads still need a header (or, with a
        # terminal, go to it as they are); the rest are whole frames (JSON) or the unsent
        # end of a frame that went out in part. `queued` is what the item counts toward
        # `_pending` (0 for a JSON frame).
        self._items: deque[tuple[bool, bytes, int]] = deque()
        self._pending = 0  # data bytes queued
        self._busy = False  # a send is in progress (the writer's or a direct one)
        self._sent = 0  # bytes handed to the connection, for progress checks
        self._cond = threading.Condition()
        self._closing = False  # no more items; writer exits once drained
        self._dead = False  # no more items accepted
        self._hung_up = False  # on_dead was called
        self._in_write = False  # the writer may be blocked in a write to the terminal
        # Not on our own controlling terminal (a host started with `&` in the terminal it
        # is attached from): waking a write there would stop the host with SIGTTOU.
        self._blocking = BLOCKING_WRITES and terminal is not None and not _controls(terminal)
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
            direct = self._tty is not None or self._sock is not None
            if not self._items and not self._busy and direct:
                if self._tty is not None:  # what is left is still raw output
                    rest, is_data = self._write_now(data), True
                else:  # what is left is the end of a whole frame
                    rest, is_data = self._send_now(data), False
                if not rest:
                    return
                self._items.append((is_data, rest, len(rest)))
                self._pending += len(rest)
                self._cond.notify_all()
            else:
                self._items.append((True, data, len(data)))
                self._pending += len(data)
                if len(self._items) == 1:
                    # The writer only sleeps on an empty queue.
                    self._cond.notify_all()
            if self._pending <= self._high:
                return
            deadline = time.monotonic() + self._stall
            while self._pending > self._low and not self._dead:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._drop()
                    return
                self._cond.wait(remaining)

    def _send_now(self, data: bytes) -> bytes:
        """Send one data frame without blocking (condition held); what did not fit."""
        assert self._sock is not None
        header = _PACK(len(data), KIND_DATA)
        try:
            sent = _sendmsg(self._sock, (header, data), _DONTWAIT)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self._fail()
            return b""
        self._sent += sent
        total = len(header) + len(data)
        if sent >= total:
            return b""
        return (header + data)[sent:]

    def _write_now(self, data: bytes) -> bytes:
        """Write output to the client's terminal without blocking (condition held); what
        did not fit."""
        assert self._tty is not None
        try:
            written = os.write(self._tty, data)
        except (BlockingIOError, InterruptedError):
            written = 0
        except OSError:  # the terminal is gone (EIO): so is the client
            self._fail()
            return b""
        self._sent += written
        return data[written:] if written < len(data) else b""

    def push_json(self, message: dict[str, Any]) -> None:
        with self._cond:
            if self._closing or self._dead:
                return
            self._items.append((False, encode_json(message), 0))
            self._cond.notify_all()

    def finish(self) -> None:
        """Send what is queued, then stop the writer (the connection stays open)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def wait_done(self) -> None:
        """After `finish`: wait while the client still takes what is queued; a client
        that takes nothing for `stall_limit` seconds is cut off."""
        last = -1
        while self._thread.is_alive():
            with self._cond:
                progress = self._sent
            if progress == last:
                log.warning("attached client stopped reading; closing it")
                self.abort()  # also wakes a write its terminal stopped taking
                self._hang_up()
                self._thread.join(1.0)
                return
            last = progress
            self._thread.join(self._stall)

    def abort(self) -> None:
        """Stop now and drop what is queued."""
        with self._cond:
            self._dead = True
            self._items.clear()
            self._pending = 0
            self._cond.notify_all()
            self._unblock_writer()

    def _drop(self) -> None:
        """A client stuck past the stall limit (condition held): drop what is queued and
        tell it why; if it cannot even take that, it is cut off later."""
        behind = self._pending
        log.warning("attached client fell behind by %d bytes; dropping it", behind)
        self._dead = True
        self._items.clear()
        self._pending = 0
        self._unblock_writer()
        notice = encode_json({"event": "dropped", "behind": behind})
        self._items.append((False, notice, 0))
        self._cond.notify_all()
        # The notice can only arrive after what already sits in the socket buffers, so
        # the client gets a while longer to read on; the shell no longer waits for it.
        timer = threading.Timer(self._stall * DROP_GRACE, self._hang_up)
        timer.daemon = True
        timer.start()

    def _fail(self) -> None:
        """Give up on this client (called with the condition held)."""
        self._dead = True
        self._items.clear()
        self._pending = 0
        self._cond.notify_all()
        self._unblock_writer()
        self._hang_up()

    def _hang_up(self) -> None:
        if self._hung_up:
            return
        self._hung_up = True
        if self._on_dead is not None:
            self._on_dead()  # must not block: it only shuts the connection down

    def _next_batch(self) -> tuple[list[bytes], int, bool] | None:
        """The next buffers to send, how many queued data bytes they hold, and whether
        they go to the client's terminal (else to the connection)."""
        with self._cond:
            while not self._items and not self._closing and not self._dead:
                self._cond.wait()
            if not self._items:
                return None
            is_data, payload, queued = self._items.popleft()
            self._busy = True
            if not is_data:
                return [payload], queued, False
            to_tty = self._tty is not None
            # Room for the frame header, unless the output goes to the terminal as it is.
            parts = [payload] if to_tty else [b"", payload]
            size = len(payload)
            # Coalesce consecutive output chunks: fewer, larger writes.
            items = self._items
            while items and items[0][0] and size < MAX_DATA_CHUNK and len(parts) < MAX_IOV:
                nxt = items.popleft()[1]
                parts.append(nxt)
                size += len(nxt)
            if not to_tty:
                parts[0] = _PACK(size, KIND_DATA)
            return parts, size, to_tty

    def _send(self, parts: list[bytes]) -> None:
        if self._sock is None:
            data = parts[0] if len(parts) == 1 else b"".join(parts)
            self._stream.sendall(data)
            with self._cond:
                self._sent += len(data)
            return
        sock = self._sock
        while parts:
            sent = _sendmsg(sock, parts)
            with self._cond:
                self._sent += sent
            drop_written(parts, sent)

    def _write(self, parts: list[bytes]) -> None:
        """Write output to the client's terminal, waiting for room; a drop or abort
        meanwhile abandons it (the client is no longer owed it)."""
        if sys.platform == "win32":  # never given a terminal there
            raise OSError("a client's terminal is written to on POSIX only")
        fd = self._tty
        assert fd is not None
        if self._blocking:
            self._write_blocking(fd, parts)
            return
        room = select.poll()
        room.register(fd, select.POLLOUT)
        while parts and not self._dead:
            try:
                written = os.writev(fd, parts)
            except (BlockingIOError, InterruptedError):
                written = 0
            if written:
                with self._cond:
                    self._sent += written
                drop_written(parts, written)
            if parts:  # the terminal is full: wait for room rather than try again at once
                room.poll(ROOM_WAIT_MS)

    def _write_blocking(self, fd: int, parts: list[bytes]) -> None:
        """Blocking writes: the kernel refills the terminal as it reads, where a
        non-blocking writer is woken for every few KiB it takes (on a busy machine, those
        wake-ups came late and left the terminal waiting). A write starts only once there
        is room and is at most BLOCKING_WRITE; a drop or abort wakes a write the terminal
        stopped taking (`_unblock_writer`)."""
        if sys.platform == "win32":  # never given a terminal there
            raise OSError("a client's terminal is written to on POSIX only")
        room = select.poll()
        room.register(fd, select.POLLOUT)
        # Only this thread writes while the batch is out (`_busy`), so the flag is ours.
        with self._cond:
            if self._dead:
                return
            os.set_blocking(fd, True)
            self._in_write = True
        try:
            while parts and not self._dead:
                if not room.poll(ROOM_WAIT_MS):
                    continue
                try:
                    written = os.writev(fd, first_bytes(parts, BLOCKING_WRITE))
                except (BlockingIOError, InterruptedError):  # woken by _unblock_writer
                    continue
                with self._cond:
                    self._sent += written
                drop_written(parts, written)
        finally:
            with self._cond:
                self._in_write = False
                os.set_blocking(fd, False)

    def _unblock_writer(self) -> None:
        """End a blocking write the terminal no longer takes (condition held): back to
        non-blocking, then stopping and restarting the terminal's output wakes the writer,
        which finds no room and returns what it wrote."""
        fd = self._tty
        if sys.platform != "win32" and self._in_write and fd is not None:
            try:
                os.set_blocking(fd, False)
                termios.tcflow(fd, termios.TCOOFF)
                termios.tcflow(fd, termios.TCOON)
            except (OSError, termios.error):  # the terminal is gone: so is the write
                log.debug("could not wake the terminal writer", exc_info=True)

    def _run(self) -> None:
        try:
            while True:
                batch = self._next_batch()
                if batch is None:
                    break
                parts, size, to_tty = batch
                try:
                    if to_tty:
                        self._write(parts)
                    else:
                        self._send(parts)
                except OSError:
                    with self._cond:
                        self._busy = False
                        self._fail()
                    return
                with self._cond:
                    self._busy = False
                    # max(): a drop may have cleared the count while this batch was out.
                    self._pending = max(0, self._pending - size)
                    self._cond.notify_all()
            if self._dead:
                self._hang_up()
            elif self._on_drained is not None:
                self._on_drained()
        finally:
            with self._cond:  # push() reads it under the condition: never a closed fd
                fd, self._tty = self._tty, None
            if fd is not None:
                os.close(fd)
