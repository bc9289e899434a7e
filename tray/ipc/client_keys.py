"""Keys read by the host straight from an attached client's terminal.

Like tmux, whose server reads its clients' terminals itself: a key then costs one read
and one write in the host, not a read in the client, a send, and a wake-up of the host
for the frame. Under load each wake-up waits for a core, so one process fewer on the
path is most of the echo time. Offered only when the client's input and output are the
terminal the host already writes to (see client_terminal.py); the client then leaves
its input alone.

The detach chord is found here, as the client would find it. Reading stops when the
client's connection hangs up: a client that dies closes it before its shell can take
the terminal back, so the keys typed to that shell stay there.
"""

from __future__ import annotations

import sys

assert sys.platform != "win32", "Windows consoles are read by the client"  # also for mypy

import logging  # noqa: E402
import os  # noqa: E402
import select  # noqa: E402
import threading  # noqa: E402
from collections.abc import Callable  # noqa: E402

from termwise.tray.commands.chord import ChordFilter  # noqa: E402

log = logging.getLogger(__name__)

READ_SIZE = 65536
# A hang-up of the connection is reported whatever is asked for; RDHUP (Linux) also
# reports a peer that only shut its writing side.
_RDHUP = getattr(select, "POLLRDHUP", 0)
_HANGUP = select.POLLHUP | select.POLLERR | select.POLLNVAL | _RDHUP


class TerminalKeys:
    """A thread relaying the keys typed in one client's terminal to `on_keys`."""

    def __init__(
        self,
        terminal: int,
        connection: int,
        on_keys: Callable[[bytes], None],
        on_detach: Callable[[], None],
    ) -> None:
        self._fd = terminal  # owned: closed by stop()
        self._connection = connection
        self._on_keys = on_keys
        self._on_detach = on_detach
        self._chord = ChordFilter()
        self._stop_r, self._stop_w = os.pipe()
        self.detached = False  # the user typed the detach chord
        self._thread = threading.Thread(target=self._run, name="terminal-keys", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop reading (at once: no key is read after this returns) and close the terminal."""
        if self._stop_w < 0:
            return
        os.write(self._stop_w, b"x")
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()
        for fd in (self._fd, self._stop_r, self._stop_w):
            os.close(fd)
        self._stop_w = -1

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        poller.register(self._stop_r, select.POLLIN)
        poller.register(self._connection, _RDHUP)
        try:
            while True:
                ready = dict(poller.poll())
                if self._stop_r in ready or ready.get(self._connection, 0) & _HANGUP:
                    return
                events = ready.get(self._fd, 0)
                if not events & select.POLLIN:
                    if events:  # hung up or closed: the terminal has gone away
                        return
                    continue
                try:
                    data = os.read(self._fd, READ_SIZE)
                except BlockingIOError:
                    continue
                if not data:
                    return
                out, detach = self._chord.feed(data)
                if out:
                    self._on_keys(out)
                if detach:
                    self.detached = True
                    self._on_detach()
                    return
        except OSError as exc:  # the terminal went away under us
            log.info("ipc: stopped reading the client's terminal (%s)", exc)
