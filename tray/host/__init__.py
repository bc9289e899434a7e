"""The session host: shells in PTYs, one reader thread each, command blocks and events.

`SessionHost` and `Session` load lazily so light clients can import
`termwise.tray.host.errors` without the PTY layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from termwise.tray.host.host import SessionHost
    from termwise.tray.host.session import Session

__all__ = ["Session", "SessionHost"]


def __getattr__(name: str) -> Any:
    if name == "SessionHost":
        from termwise.tray.host.host import SessionHost

        return SessionHost
    if name == "Session":
        from termwise.tray.host.session import Session

        return Session
    raise AttributeError(name)
