"""The one PTY protocol both backends implement, and the named termination policy."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class TerminationPolicy:
    """How long to wait after each step of ending a process tree, in seconds.

    POSIX: SIGHUP to the process group, wait `hangup_grace`; SIGTERM, wait `term_grace`;
    SIGKILL, wait `kill_grace`. Windows has no signal a console program in another
    console can receive: the whole tree is ended at once (taskkill /F /T), then
    TerminateProcess on the shell if that failed, each step with its grace.
    """

    hangup_grace: float = 1.0
    term_grace: float = 1.0
    kill_grace: float = 2.0


DEFAULT_TERMINATION = TerminationPolicy()

# How often `wait` looks at the child: short enough for tests, long enough to stay idle.
POLL_INTERVAL = 0.02


@runtime_checkable
class PtyProcess(Protocol):
    """A child process on a pseudo-terminal; bytes in, bytes out, on every platform."""

    pid: int

    def read(self, size: int = 65536) -> bytes:
        """Block until output arrives; b"" at end of file (never raises EOFError)."""
        ...

    def write(self, data: bytes) -> None:
        """Send input bytes to the child, as if typed; OSError once the terminal is gone."""
        ...

    def resize(self, rows: int, cols: int) -> None:
        """Change the terminal size the child sees."""
        ...

    def isalive(self) -> bool:
        """Whether the child is still running (never blocks)."""
        ...

    def wait(self, timeout: float) -> int | None:
        """The exit status, or None if the child still runs after `timeout` seconds."""
        ...

    @property
    def exit_status(self) -> int | None:
        """The exit code once the child ended (128+signal when a signal killed it)."""
        ...

    def terminate(self, policy: TerminationPolicy = DEFAULT_TERMINATION) -> int | None:
        """End the child and its process tree step by step; the exit status or None."""
        ...

    def close(self) -> None:
        """Terminate if needed and release the terminal; safe to call twice."""
        ...


def poll_until(done: Callable[[], bool], timeout: float) -> bool:
    """Call `done` until it is true or `timeout` seconds passed; whether it became true."""
    deadline = time.monotonic() + max(0.0, timeout)
    while True:
        if done():
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(POLL_INTERVAL, left))


class ReapedStatus:
    """The status side shared by both backends: each supplies `_reap()`, which records
    the exit status in `_status` once the child is gone, without blocking."""

    _status: int | None

    def _reap(self) -> bool:
        raise NotImplementedError

    def isalive(self) -> bool:
        return not self._reap()

    def wait(self, timeout: float) -> int | None:
        poll_until(self._reap, timeout)
        return self._status

    @property
    def exit_status(self) -> int | None:
        self._reap()
        return self._status
