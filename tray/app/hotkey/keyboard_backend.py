"""The `keyboard` hotkey backend (Windows): a RegisterHotKey-free low-level hook."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from termwise.tray.app.hotkey import HotkeyError, to_keyboard

log = logging.getLogger(__name__)


class KeyboardBackend:
    """Registers one combination with `keyboard.add_hotkey` (its hook runs on its own thread)."""

    def __init__(self, combo: str) -> None:
        self.combo = combo
        self._handle: Any = None

    def start(self, on_press: Callable[[], None]) -> None:
        spec = to_keyboard(self.combo)
        try:
            import keyboard

            # suppress=False: the keys still reach the focused terminal if we are slow.
            self._handle = keyboard.add_hotkey(spec, on_press, suppress=False)
        except (ImportError, ValueError, OSError, AssertionError) as exc:
            raise HotkeyError(f"cannot listen for {self.combo}: {exc}") from None
        log.info("hotkey %s registered (keyboard)", self.combo)

    def stop(self) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        try:
            import keyboard

            keyboard.remove_hotkey(handle)
        except (ImportError, KeyError, ValueError) as exc:
            log.debug("hotkey removal: %s", exc)
