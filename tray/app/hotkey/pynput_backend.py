"""The pynput hotkey backend (X11 and macOS): a GlobalHotKeys listener thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from termwise.tray.app.hotkey import HotkeyError, to_pynput

log = logging.getLogger(__name__)

# How long stop() waits for the listener thread after its wake-up key event.
JOIN_TIMEOUT = 2.0


class PynputBackend:
    """Registers one combination with `pynput.keyboard.GlobalHotKeys`."""

    def __init__(self, combo: str) -> None:
        self.combo = combo
        self._listener: Any = None
        self._lock = threading.Lock()

    def start(self, on_press: Callable[[], None]) -> None:
        spec = to_pynput(self.combo)
        try:
            # Imported here: pynput connects to the display when imported.
            from pynput import keyboard
        except Exception as exc:  # ImportError when no display can be reached
            raise HotkeyError(f"cannot listen for {self.combo}: {_first_line(exc)}") from None
        try:
            listener = keyboard.GlobalHotKeys({spec: on_press})
        except ValueError as exc:
            raise HotkeyError(f"hotkey {self.combo!r} is not understood: {exc}") from None
        listener.daemon = True
        listener.start()
        listener.wait()  # keys sent before the listener is ready would be missed
        if not listener.is_alive():
            raise HotkeyError(f"cannot listen for {self.combo}: the key listener stopped")
        with self._lock:
            self._listener = listener
        log.info("hotkey %s registered (pynput)", self.combo)

    def stop(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
        if listener is None:
            return
        listener.stop()
        # The X record loop only notices stop() on its next event: send it one.
        try:
            from pynput.keyboard import Controller, Key

            Controller().tap(Key.shift)
        except Exception as exc:
            log.debug("wake-up key not sent: %s", exc)
        listener.join(JOIN_TIMEOUT)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
