"""The Windows hotkey backend: `RegisterHotKey`, so the focused window never gets the keys.

Windows delivers WM_HOTKEY to the thread that registered the combination, so a listener thread
registers it and runs a message loop; `stop` posts WM_QUIT to it. Registration fails when
another program holds the combination: that is reported as "taken by another program".
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

from termwise.tray.app.hotkey import HotkeyError, describe, parse_combo

log = logging.getLogger(__name__)

JOIN_TIMEOUT = 2.0
HOTKEY_ID = 0x7E57  # any id unique within this thread
WM_HOTKEY = 0x0312
WM_QUIT = 0x0012
MOD_ALT, MOD_CONTROL, MOD_SHIFT, MOD_WIN, MOD_NOREPEAT = 0x1, 0x2, 0x4, 0x8, 0x4000
MODIFIER_FLAGS = {"ctrl": MOD_CONTROL, "alt": MOD_ALT, "shift": MOD_SHIFT, "cmd": MOD_WIN}
VIRTUAL_KEYS = {
    "space": 0x20,
    "enter": 0x0D,
    "esc": 0x1B,
    "tab": 0x09,
    "backspace": 0x08,
    "delete": 0x2E,
    "insert": 0x2D,
    "home": 0x24,
    "end": 0x23,
    "pageup": 0x21,
    "pagedown": 0x22,
    "left": 0x25,
    "up": 0x26,
    "right": 0x27,
    "down": 0x28,
}


def virtual_key(key: str) -> int:
    """Our key name as a Windows virtual-key code (0 when it has none)."""
    if key in VIRTUAL_KEYS:
        return VIRTUAL_KEYS[key]
    if len(key) == 1 and key.isascii() and key.isalnum():
        return ord(key.upper())
    if len(key) > 1 and key[0] == "f" and key[1:].isdigit() and 1 <= int(key[1:]) <= 24:
        return 0x70 + int(key[1:]) - 1
    return 0


def hotkey_flags(combo: str) -> tuple[int, int]:
    """(modifier flags, virtual key) for RegisterHotKey; raises HotkeyError when impossible."""
    mods, key = parse_combo(combo)
    vk = virtual_key(key)
    if not vk:
        raise HotkeyError(f"hotkey {combo!r}: {key!r} cannot be a Windows hotkey")
    flags = MOD_NOREPEAT  # holding the keys shows the overlay once
    for m in mods:
        flags |= MODIFIER_FLAGS[m]
    return flags, vk


class WindowsHotkeyBackend:
    """Registers one combination with RegisterHotKey on its own message-loop thread."""

    def __init__(self, combo: str) -> None:
        self.combo = combo
        self._thread: threading.Thread | None = None
        self._thread_id = 0

    def start(self, on_press: Callable[[], None]) -> None:
        flags, vk = hotkey_flags(self.combo)
        if sys.platform != "win32":
            raise HotkeyError(f"cannot listen for {self.combo}: RegisterHotKey needs Windows")
        ready = threading.Event()
        failure: list[str] = []
        thread = threading.Thread(
            target=self._loop,
            args=(flags, vk, on_press, ready, failure),
            name="hotkey-windows",
            daemon=True,
        )
        thread.start()
        ready.wait(JOIN_TIMEOUT)
        if failure or not ready.is_set():
            thread.join(JOIN_TIMEOUT)
            raise HotkeyError(failure[0] if failure else f"cannot listen for {self.combo}")
        self._thread = thread
        log.info("hotkey %s registered (RegisterHotKey)", self.combo)

    def _loop(
        self,
        flags: int,
        vk: int,
        on_press: Callable[[], None],
        ready: threading.Event,
        failure: list[str],
    ) -> None:
        if sys.platform != "win32":
            return
        import ctypes
        from ctypes import wintypes

        user32, kernel32 = _dlls()
        self._thread_id = int(kernel32.GetCurrentThreadId())
        if not user32.RegisterHotKey(None, HOTKEY_ID, flags, vk):
            code = ctypes.get_last_error()
            failure.append(
                f"{describe(self.combo)} is taken by another program"
                if code == 1409  # ERROR_HOTKEY_ALREADY_REGISTERED
                else f"cannot register {describe(self.combo)} (Windows error {code})"
            )
            ready.set()
            return
        ready.set()
        msg = wintypes.MSG()
        try:
            while user32.GetMessageW(ctypes.byref(msg), None, 0, 0) > 0:
                if msg.message == WM_HOTKEY and msg.wParam == HOTKEY_ID:
                    on_press()
        finally:
            user32.UnregisterHotKey(None, HOTKEY_ID)

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None or sys.platform != "win32":
            return
        user32, _ = _dlls()
        user32.PostThreadMessageW(self._thread_id, WM_QUIT, 0, 0)
        thread.join(JOIN_TIMEOUT)


def _dlls() -> tuple[Any, Any]:
    """user32 and kernel32 as private WinDLLs with the prototypes this module calls
    (ctypes.windll is shared by the process, and its int defaults cut 64-bit handles)."""
    if sys.platform != "win32":
        raise HotkeyError("RegisterHotKey exists only on Windows")
    import ctypes
    from ctypes import wintypes

    user32 = ctypes.WinDLL("user32", use_last_error=True)
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    user32.RegisterHotKey.argtypes = [wintypes.HWND, ctypes.c_int, wintypes.UINT, wintypes.UINT]
    user32.RegisterHotKey.restype = wintypes.BOOL
    user32.UnregisterHotKey.argtypes = [wintypes.HWND, ctypes.c_int]
    user32.UnregisterHotKey.restype = wintypes.BOOL
    user32.GetMessageW.argtypes = [
        ctypes.POINTER(wintypes.MSG), wintypes.HWND, wintypes.UINT, wintypes.UINT,
    ]  # fmt: skip
    user32.GetMessageW.restype = wintypes.BOOL
    user32.PostThreadMessageW.argtypes = [
        wintypes.DWORD, wintypes.UINT, wintypes.WPARAM, wintypes.LPARAM,
    ]  # fmt: skip
    user32.PostThreadMessageW.restype = wintypes.BOOL
    kernel32.GetCurrentThreadId.argtypes = []
    kernel32.GetCurrentThreadId.restype = wintypes.DWORD
    return user32, kernel32
