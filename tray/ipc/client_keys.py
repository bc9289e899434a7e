"""Keys read by the host straight from an attached client's terminal.

Like tmux, whose server reads its clients' terminals itself: a key then costs one read
and one write in the host, not a read in the client, a send, and a wake-up of the host
for the frame. Under load each wake-up waits for a core, so one process fewer on the
path is most of the echo time. Offered only when the client's input and output are the
terminal the host already writes to (see client_terminal.py), and on Linux only; the
client then leaves its input alone.

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
STOP_WAIT = 2.0  # seconds stop() waits for a key being written to a shell that reads none
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
        self._fd = terminal  # owned: closed when reading ends
        self._connection = connection
        self._on_keys = on_keys
        self._on_detach = on_detach
        self._chord = ChordFilter()
        self._stop_r, self._stop_w = os.pipe()
        self.detached = False  # the user typed the detach chord
        self._thread = threading.Thread(target=self._run, name="terminal-keys", daemon=True)
        self._started = False

    def start(self) -> None:
        self._started = True
        self._thread.start()

    def stop(self, wait: float | None = STOP_WAIT) -> None:
        """Stop reading: no key is read after this returns, unless the last one read is
        still being written to a shell that takes no input (then the thread ends after
        that write, on its own)."""
        if self._stop_w < 0:
            return
        try:
            os.write(self._stop_w, b"x")
        except BrokenPipeError:
            pass  # reading has ended already
        os.close(self._stop_w)
        self._stop_w = -1
        if not self._started:
            self._close()
        elif self._thread is not threading.current_thread():
            self._thread.join(wait)

    def _close(self) -> None:
        os.close(self._fd)
        os.close(self._stop_r)

    def _run(self) -> None:
        try:
            self._relay()
        except OSError as exc:  # the terminal went away under us
            log.info("ipc: stopped reading the client's terminal (%s)", exc)
        finally:
            self._close()

    def _relay(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        poller.register(self._stop_r, select.POLLIN)
        poller.register(self._connection, _RDHUP)
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
                self._on_keys(out)  # may block while the shell takes no input
            if detach:
                self.detached = True
                self._on_detach()
                return
