"""Which terminal window is in the foreground, and which attached clients live in it.

A `ForegroundProbe` answers with a `Foreground` token (the focused top-level
window's process id on X11; its handle and root owner on Windows) or None when
the platform cannot tell. Attached clients describe their own window with a
`ClientWindow` (their pid on POSIX, the root owner of their console on Windows);
`termwise.tray.host.foreground.match` pairs the two.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Foreground:
    """The window in the foreground: whatever the platform can say about it."""

    # The process that owns the window (_NET_WM_PID, GetWindowThreadProcessId).
    pid: int | None = None
    handles: frozenset[int] = frozenset()  # Windows: the window and its root owner
    window: int | None = None  # X11: the top-level window id (for logs)


@dataclass(frozen=True)
class ClientWindow:
    """What an attached client knows about its own terminal window."""

    pid: int | None = None  # POSIX: the client's pid; the host walks its ancestry
    console_window: int | None = None  # Windows: root owner HWND of the client's console


class ForegroundProbe(Protocol):
    """Cheap, never raises: the foreground window, or None when it cannot tell."""

    def foreground(self) -> Foreground | None: ...

    def close(self) -> None: ...


def platform_probe(env: Mapping[str, str] | None = None) -> ForegroundProbe | None:
    """The probe for this platform; None where nothing can tell (macOS, Wayland, no display)."""
    env = os.environ if env is None else env
    try:
        if sys.platform == "win32":
            from termwise.tray.host.foreground.windows import Win32Probe

            return Win32Probe()
        if sys.platform.startswith("linux") and env.get("DISPLAY"):
            from termwise.tray.host.foreground.timebox import TimeBoxedProbe

            display = env["DISPLAY"]
            return TimeBoxedProbe(lambda: _x11_probe(display), name="x11")
    except Exception as exc:  # python-xlib missing or broken: fall back to last input
        log.debug("foreground: no probe (%s)", exc)
    return None


def _x11_probe(display: str) -> ForegroundProbe:
    # Imported on the probe's own thread: loading python-xlib takes a while.
    from termwise.tray.host.foreground.x11 import X11Probe

    return X11Probe(display)


__all__ = ["ClientWindow", "Foreground", "ForegroundProbe", "platform_probe"]
