"""What the session host reports to subscribers (called on reader threads)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from termwise.tray.host.session import Session
    from termwise.tray.host.stream import CommandBlock


@dataclass(frozen=True)
class SessionStarted:
    session: Session


@dataclass(frozen=True)
class SessionEnded:
    session: Session
    exit_code: int | None


@dataclass(frozen=True)
class BlockFinished:
    session: Session
    block: CommandBlock


@dataclass(frozen=True)
class ActiveChanged:
    session: Session | None


HostEvent = SessionStarted | SessionEnded | BlockFinished | ActiveChanged
