"""What the overlay is given to work on: typed ports the tray implements (the overlay never imports it).

`HostView` lists sessions and says which one is active; `SessionView` is one session as the
overlay may use it: contexts whose output is already clean text, and typing or running a
command through the host's exact path. `MemoryView` is what the overlay asks of memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from termwise.agent.base.types import RunOutcome, SessionContext

__all__ = ["HostView", "MemoryView", "RunCheck", "RunOutcome", "SessionView"]


@dataclass(frozen=True)
class RunCheck:
    """Whether this session can run a command exactly as shown; `reason` when it cannot."""

    exact: bool
    reason: str = ""


class SessionView(Protocol):
    """One session, as the overlay may see and use it."""

    @property
    def id(self) -> str: ...

    @property
    def shell(self) -> str: ...

    @property
    def alive(self) -> bool: ...

    def last_block_index(self) -> int:
        """The index of the newest finished block, -1 when none finished yet."""
        ...

    def view_context(self) -> SessionContext:
        """What the overlay shows: the last block, its output's tail already cleaned."""
        ...

    def context(self) -> SessionContext:
        """What a request carries: the recent blocks, whole outputs cleaned."""
        ...

    def can_run_exact(self) -> RunCheck:
        """Whether `run_command` can guarantee the prompt holds exactly the command."""
        ...

    def type_command(self, text: str) -> RunOutcome:
        """Put `text` on the prompt in place of whatever was pending, without running it.

        `ran` means it was typed; otherwise `reason` says why not (nothing was typed).
        """
        ...

    def run_command(self, text: str) -> RunOutcome:
        """Run exactly `text` (pending input replaced), or say why it did not."""
        ...


class HostView(Protocol):
    """The sessions the tray owns."""

    def active(self) -> SessionView | None:
        """The session the hotkey is about (the foreground terminal's), None when none."""
        ...

    def sessions(self) -> list[SessionView]:
        """The sessions still running, in a stable order."""
        ...

    def set_active(self, session_id: str) -> None: ...

    def on_block(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call `callback(session_id)` (on any thread) when a block finishes; returns `stop`."""
        ...


class MemoryView(Protocol):
    """What the overlay asks of memory."""

    def remember(self, text: str) -> object:
        """Keep what the user typed (memory decides what is worth keeping)."""
        ...

    def snippets(self, query: str, n: int) -> list[str]:
        """Up to `n` remembered lines relevant to `query`."""
        ...
