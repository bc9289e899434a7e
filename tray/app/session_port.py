"""The tray's side of the overlay's ports: host sessions seen as `HostView` / `SessionView`.

Raw PTY bytes never cross this seam: outputs are cleaned here, on the tray side.
"""

from __future__ import annotations

import platform
from collections.abc import Callable

from termwise.agent.base.types import Block, SessionContext
from termwise.agent.suggest.flows import CONTEXT_BLOCKS, session_context
from termwise.overlay.ports import RunCheck, RunOutcome, SessionView
from termwise.tray.app.qt_bridge import HostBridge
from termwise.tray.host.errors import CommandRefused, SessionEnded
from termwise.tray.host.host import SessionHost
from termwise.tray.host.session import Session
from termwise.tray.host.stream import clean_text

VIEW_TAIL_BYTES = 64 * 1024  # far more than the lines shown; keeps huge outputs off the hot path


class HostSessionView:
    """One host `Session` as the overlay's `SessionView`."""

    def __init__(self, session: Session) -> None:
        self._session = session

    @property
    def id(self) -> str:
        return self._session.id

    @property
    def shell(self) -> str:
        return self._session.shell

    @property
    def alive(self) -> bool:
        return self._session.alive

    def last_block_index(self) -> int:
        last = self._session.last_block()
        return last.index if last is not None else -1

    def view_context(self) -> SessionContext:
        """The last block only, its output's tail cleaned; the full context waits for a request."""
        s = self._session
        last = s.last_block()
        blocks = []
        if last is not None:
            tail = clean_text(bytes(last.output[-VIEW_TAIL_BYTES:])).rstrip("\n")
            blocks.append(
                Block(last.command, tail, last.exit_code, last.cwd, last.started, last.ended)
            )
        return session_context(
            blocks,
            shell=s.shell,
            cwd=s.cwd,
            session_id=s.id,
            os_name=platform.system(),
            path=s.shell_path,
            has_marks=s.has_marks or last is not None,
            screen_text=s.screen_text() if not s.has_marks and last is None else "",
        )

    def context(self) -> SessionContext:
        return self._session.context(CONTEXT_BLOCKS)

    def can_run_exact(self) -> RunCheck:
        s = self._session
        if not s.alive:
            return RunCheck(False, f"session {s.id} has ended")
        if not s.can_run_exact:
            return RunCheck(
                False,
                f"session {s.id} ({s.shell}) cannot show Termwise what its prompt holds, "
                "so Termwise cannot be sure what would run",
            )
        return RunCheck(True)

    def type_command(self, text: str) -> RunOutcome:
        """Replace the pending input by `text` (the host refuses what it cannot do exactly)."""
        try:
            self._session.type_command(text)
        except (CommandRefused, SessionEnded) as exc:
            return RunOutcome(False, str(exc))
        return RunOutcome(True)

    def run_command(self, text: str) -> RunOutcome:
        """Run exactly `text`: the host checks the prompt's line before it presses Enter."""
        try:
            return self._session.run_command(text)
        except SessionEnded as exc:
            return RunOutcome(False, str(exc))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HostSessionView) and other._session is self._session

    def __hash__(self) -> int:
        return hash(self._session.id)


class HostPort:
    """A `SessionHost` as the overlay's `HostView`; block news comes through the tray's relay."""

    def __init__(self, host: SessionHost, events: HostBridge | None = None) -> None:
        self._host = host
        self._events = events if events is not None else HostBridge(host)

    def active(self) -> SessionView | None:
        session = self._host.active()
        return HostSessionView(session) if session is not None else None

    def sessions(self) -> list[SessionView]:
        return [HostSessionView(s) for s in self._host.list() if s.alive]

    def set_active(self, session_id: str) -> None:
        self._host.set_active(session_id)

    def on_block(self, callback: Callable[[str], None]) -> Callable[[], None]:
        def relay(session: Session, _block: object) -> None:
            callback(session.id)

        self._events.block_finished.connect(relay)

        def stop() -> None:
            self._events.block_finished.disconnect(relay)

        return stop
