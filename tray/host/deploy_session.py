"""Where a deploy plan runs: `SessionPort` adapters for an in-process Session and for the host IPC."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from termwise.agent.deploy.runner import CommandResult, SessionLost
from termwise.tray.errors import TrayError

if TYPE_CHECKING:
    from collections.abc import Callable

    from termwise.agent.base.paths import Paths
    from termwise.agent.deploy.runner import SessionPort
    from termwise.tray.host.host import SessionHost
    from termwise.tray.host.session import Session
    from termwise.tray.ipc.client import HostClient

CTRL_C = "\x03"
WAIT_SLICE = 1.0  # one wait at most: between slices the session's life and a stop are checked
INTERRUPT_GRACE = 3.0  # after Ctrl+C, how long the interrupted command's block is awaited
LINE_CHECK_TIMEOUT = 10.0  # how long the shell may take to report its line before Enter


class LocalSessionPort:
    """Runs commands in a `Session` of a host in this process (the tray)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._interrupted = _Interrupt()

    @property
    def session_id(self) -> str:
        return self.session.id

    def run(self, command: str, timeout: float) -> CommandResult | None:
        last = self.session.last_block()
        after = last.index if last is not None else -1
        try:
            if self.session.can_run_exact:
                # Enter only once the prompt holds exactly the approved command.
                outcome = self.session.run_command(command, timeout=LINE_CHECK_TIMEOUT)
                if not outcome.ran:
                    raise SessionLost(f"not run: {outcome.reason}")
            else:
                self.session.send_text(command, enter=True)
            if self._interrupted.is_set():  # stopped while it was being typed
                self.session.send_text(CTRL_C)
        except TrayError as exc:
            raise SessionLost(str(exc)) from None
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = self._interrupted.cap(deadline - time.monotonic())
                if left <= 0:
                    return None
                block = self.session.wait_for_block(after, min(left, WAIT_SLICE))
                if block is not None and self.session.alive:
                    return CommandResult(block.command or command, block.text(), block.exit_code)
                if not self.session.alive:  # `exit`, or the shell died: nothing to repair
                    raise SessionLost(
                        f"session {self.session.id} ended (exit code {self.session.exit_code})"
                    )
        finally:
            self._interrupted.clear()

    def interrupt(self) -> None:
        self._interrupted.set()
        if self.session.alive:
            self.session.send_text(CTRL_C)


class HostSessionPort:
    """Runs commands in a session of a host in another process, over `HostClient`."""

    def __init__(self, client: HostClient, session_id: str, paths: Paths) -> None:
        self.client = client
        self.session_id = session_id
        self.paths = paths
        self._interrupted = _Interrupt()

    def run(self, command: str, timeout: float) -> CommandResult | None:
        try:
            reply = self.client.context(self.session_id, blocks=1)
            after = int(reply[-1].get("index", -1)) if reply else -1
            if reply.session.get("can_run_exact"):
                # Enter only once the prompt holds exactly the approved command.
                outcome = self.client.run_command(
                    self.session_id, command, timeout=LINE_CHECK_TIMEOUT
                )
                if not outcome.ran:
                    raise SessionLost(f"not run: {outcome.reason}")
            else:
                self.client.send(self.session_id, command, enter=True)
            if self._interrupted.is_set():  # stopped while it was being typed
                self.client.send(self.session_id, CTRL_C)
            deadline = time.monotonic() + timeout
            while True:
                left = self._interrupted.cap(deadline - time.monotonic())
                if left <= 0:
                    return None
                block = self.client.wait_block(self.session_id, after, min(left, WAIT_SLICE))
                self._check_alive()  # `exit`, or the shell died: nothing to repair
                if block is not None:
                    return _result(block, command)
        except SessionLost:
            raise
        except TrayError as exc:
            raise SessionLost(f"lost session {self.session_id}: {exc}") from None
        finally:
            self._interrupted.clear()

    def _check_alive(self) -> None:
        for info in self.client.sessions():
            if str(info.get("id")) == self.session_id:
                if not info.get("alive", True):
                    raise SessionLost(
                        f"session {self.session_id} ended (exit code {info.get('exit_code')})"
                    )
                return
        raise SessionLost(f"session {self.session_id} is gone")

    def interrupt(self) -> None:
        self._interrupted.set()
        # A connection of its own: the main one may be blocked in a wait.
        from termwise.tray.ipc.client import HostClient

        with HostClient(self.paths) as other:
            other.send(self.session_id, CTRL_C)


class _Interrupt:
    """Ctrl+C was pressed: the wait for the block is cut to a short grace period.

    (Ctrl+C can reach the shell before it read the command line, which then never runs
    and never makes a block.)
    """

    def __init__(self) -> None:
        self._at: float | None = None
        self._lock = threading.Lock()

    def set(self) -> None:
        with self._lock:
            self._at = time.monotonic()

    def clear(self) -> None:
        with self._lock:
            self._at = None

    def is_set(self) -> bool:
        with self._lock:
            return self._at is not None

    def cap(self, left: float) -> float:
        with self._lock:
            if self._at is None:
                return left
            return min(left, self._at + INTERRUPT_GRACE - time.monotonic())


def _result(block: dict[str, Any], command: str) -> CommandResult:
    code = block.get("exit_code")
    return CommandResult(
        str(block.get("command") or command),
        str(block.get("output") or ""),
        code if isinstance(code, int) else None,
    )


def session_factory(
    paths: Paths, host: SessionHost | None = None
) -> Callable[[str, str | None], SessionPort]:
    """What the deploy window runs plans in: a new session of `host` (the tray's own), or of
    the host another process serves (started on demand, like `termwise shell`)."""

    def make(shell: str, cwd: str | None) -> SessionPort:
        if host is not None:
            return LocalSessionPort(host.create(shell, cwd=cwd))
        from termwise.tray.ipc.launch import ensure_host

        client = ensure_host(paths)
        info = client.create(shell=shell, cwd=cwd)
        return HostSessionPort(client, str(info["id"]), paths)

    return make
