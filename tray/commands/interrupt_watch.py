"""Ctrl-C that cancels the work in flight even when Python would only see it later.

Python raises KeyboardInterrupt from the main thread's bytecode. A Ctrl-C that lands in
the moment between that bytecode and a blocking read (the socket a streamed answer
comes from), or that the kernel hands to another thread, wakes nothing: the read goes
on waiting, and a stalled server never ends it. Python does write every signal to a
wake-up descriptor at once; a thread reading it cancels the token in flight, which
closes the stream, so the read returns and the KeyboardInterrupt is raised as usual.
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import TypeVar

from termwise.agent.base.cancel import CancelToken

log = logging.getLogger(__name__)

T = TypeVar("T")


class InterruptWatch:
    """While entered (main thread only), Ctrl-C also cancels `current`."""

    def __init__(self) -> None:
        self.current: CancelToken | None = None
        self._pair: tuple[socket.socket, socket.socket] | None = None
        self._old = -1

    def __enter__(self) -> InterruptWatch:
        reader, writer = socket.socketpair()
        writer.setblocking(False)  # the signal handler must never block on it
        try:
            self._old = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        except (ValueError, OSError):  # not the main thread: Python's own handling only
            reader.close()
            writer.close()
            return self
        self._pair = (reader, writer)
        threading.Thread(target=self._watch, args=(reader,), name="ctrl-c", daemon=True).start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._pair is None:
            return
        try:
            signal.set_wakeup_fd(self._old)
        except (ValueError, OSError):
            # The one before was closed meanwhile (an event loop that did not put its
            # own back, seen under Windows): leave none rather than a dead one.
            signal.set_wakeup_fd(-1)
        reader, writer = self._pair
        self._pair = None
        writer.close()
        try:
            reader.shutdown(socket.SHUT_RDWR)  # ends the watching thread's recv
        except OSError:
            pass
        reader.close()

    def _watch(self, reader: socket.socket) -> None:
        while True:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data:
                return
            token = self.current
            if signal.SIGINT in data and token is not None:
                log.debug("Ctrl-C: cancelling the answer in flight")
                token.cancel()


def follow(events: Iterator[T], token: CancelToken, show: Callable[[T], None]) -> bool:
    """Show each event of a streamed answer; True when Ctrl-C stopped it (token cancelled,
    stream closed), however the Ctrl-C landed."""
    with InterruptWatch() as watch:
        watch.current = token
        try:
            for event in events:
                show(event)
            if token.cancelled:
                _run_pending_handlers()  # the Ctrl-C that cancelled it is raised here
        except KeyboardInterrupt:
            token.cancel()
            close = getattr(events, "close", None)
            if close is not None:
                close()  # a generator's cleanup closes its HTTP stream
            return True
        finally:
            watch.current = None
    return token.cancelled


def _run_pending_handlers() -> None:
    """Entering a Python function runs signal handlers that are due (CPython checks there)."""
