"""Where a deploy plan runs: `SessionPort` adapters for an in-process Session and for the host IPC."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from termwise.agent.deploy.runner import CommandResult, SessionLost
from termwise.tray.errors import TrayError

if TYPE_CHECKING:
    from termwise.agent.paths import Paths
    from termwise.tray.host.session import Session
    from termwise.tray.ipc.client import HostClient

CTRL_C = "\x03"
WAIT_SLICE = 60.0  # one IPC wait at most; between slices the session is checked for life


class LocalSessionPort:
    """Runs commands in a `Session` of a host in this process (the tray)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def session_id(self) -> str:
        return self.session.id

    def run(self, command: str, timeout: float) -> CommandResult | None:
        last = self.session.last_block()
        after = last.index if last is not None else -1
        try:
            self.session.send_text(command, enter=True)
        except TrayError as exc:
            raise SessionLost(str(exc)) from None
        block = self.session.wait_for_block(after, timeout)
        if block is None:
            if not self.session.alive:
                raise SessionLost(
                    f"session {self.session.id} ended (exit code {self.session.exit_code})"
                )
            return None
        return CommandResult(block.command or command, block.text(), block.exit_code)

    def interrupt(self) -> None:
        if self.session.alive:
            self.session.send_text(CTRL_C)


class HostSessionPort:
    """Runs commands in a session of a host in another process, over `HostClient`."""

    def __init__(self, client: HostClient, session_id: str, paths: Paths) -> None:
        self.client = client
        self.session_id = session_id
        self.paths = paths

    def run(self, command: str, timeout: float) -> CommandResult | None:
        try:
            reply = self.client.context(self.session_id, blocks=1)
            after = int(reply[-1].get("index", -1)) if reply else -1
            self.client.send(self.session_id, command, enter=True)
            deadline = time.monotonic() + timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                block = self.client.wait_block(self.session_id, after, min(left, WAIT_SLICE))
                if block is not None:
                    return _result(block, command)
                self._check_alive()
        except SessionLost:
            raise
        except TrayError as exc:
            raise SessionLost(f"lost session {self.session_id}: {exc}") from None

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
        # A connection of its own: the main one may be blocked in a wait.
        from termwise.tray.ipc.client import HostClient

        with HostClient(self.paths) as other:
            other.send(self.session_id, CTRL_C)


def _result(block: dict[str, Any], command: str) -> CommandResult:
    code = block.get("exit_code")
    return CommandResult(
        str(block.get("command") or command),
        str(block.get("output") or ""),
        code if isinstance(code, int) else None,
    )
