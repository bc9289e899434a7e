"""The Windows foreground window, its root owner and its process (user32 through ctypes).

A console program's window is the console host's, or with Windows Terminal a hidden
pseudo-console window owned by the terminal's window; the root owner is what the
user sees, and what the attach client reports for its own console.
"""

from __future__ import annotations

import logging
import sys

from termwise.tray.host.foreground import Foreground

log = logging.getLogger(__name__)

GA_ROOTOWNER = 3


def describe(hwnd: int | None, root_owner: int | None, pid: int) -> Foreground | None:
    """The foreground token from what user32 said (NULL handles come back as None or 0)."""
    if not hwnd:
        return None  # no foreground window, e.g. while the focus is being switched
    return Foreground(pid=pid or None, handles=frozenset((hwnd, root_owner or hwnd)))


if sys.platform == "win32":
    import ctypes
    from ctypes import wintypes

    _user32 = ctypes.WinDLL("user32", use_last_error=True)
    _user32.GetForegroundWindow.restype = wintypes.HWND
    _user32.GetForegroundWindow.argtypes = []
    _user32.GetAncestor.restype = wintypes.HWND
    _user32.GetAncestor.argtypes = [wintypes.HWND, wintypes.UINT]
    _user32.GetWindowThreadProcessId.restype = wintypes.DWORD
    _user32.GetWindowThreadProcessId.argtypes = [wintypes.HWND, ctypes.POINTER(wintypes.DWORD)]

    class Win32Probe:
        """GetForegroundWindow → (window, root owner, owning pid); never blocks."""

        def foreground(self) -> Foreground | None:
            try:
                hwnd = _user32.GetForegroundWindow()
                if not hwnd:
                    return None
                root = _user32.GetAncestor(hwnd, GA_ROOTOWNER)
                pid = wintypes.DWORD(0)
                _user32.GetWindowThreadProcessId(hwnd, ctypes.byref(pid))
                return describe(hwnd, root, pid.value)
            except OSError as exc:
                log.debug("foreground: Win32 probe failed: %s", exc)
                return None

        def close(self) -> None:
            pass
