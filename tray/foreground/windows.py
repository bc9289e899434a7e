"""The Windows foreground window, its root owner and its process (user32 through ctypes).

A console program's window is the console host's, or with Windows Terminal a hidden
pseudo-console window owned by the terminal's window; the root owner is what the
user sees, and what the attach client reports for its own console.
"""

from __future__ import annotations

import logging
import sys

from termwise.tray.foreground import Foreground

log = logging.getLogger(__name__)

GA_ROOTOWNER = 3

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

    def _handle(value: object) -> int:
        # A NULL HWND comes back as None from ctypes.
        return int(value) if isinstance(value, int) else 0

    class Win32Probe:
        """GetForegroundWindow → (window, root owner, owning pid); never blocks."""

        def foreground(self) -> Foreground | None:
            try:
                hwnd = _handle(_user32.GetForegroundWindow())
                if not hwnd:
                    return None  # e.g. while the focus is being switched
                root = _handle(_user32.GetAncestor(hwnd, GA_ROOTOWNER)) or hwnd
                pid = wintypes.DWORD(0)
                _user32.GetWindowThreadProcessId(hwnd, ctypes.byref(pid))
                return Foreground(pid=pid.value or None, handles=frozenset((hwnd, root)))
            except OSError as exc:
                log.debug("foreground: Win32 probe failed: %s", exc)
                return None

        def close(self) -> None:
            pass
