"""HotkeyBridge: the listener thread's presses become a queued Qt signal on the GUI thread."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal
from termwise.tray.app.hotkey import HotkeyBackend, HotkeyError, make_backend

log = logging.getLogger(__name__)


class HotkeyBridge(QObject):
    """Owns the backend; `pressed` fires on the GUI thread; `failed(message)` on a bad start."""

    pressed = Signal()
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.backend: HotkeyBackend | None = None
        self.paused = False

    def register(self, combo: str, backend: HotkeyBackend | None = None) -> bool:
        """(Re)register `combo`; on failure emits `failed` and returns False."""
        self.unregister()
        try:
            chosen = backend if backend is not None else make_backend(combo)
            chosen.start(self._on_listener_press)
        except HotkeyError as exc:
            log.warning("hotkey not registered: %s", exc)
            self.failed.emit(str(exc))
            return False
        self.backend = chosen
        return True

    def unregister(self) -> None:
        backend, self.backend = self.backend, None
        if backend is not None:
            backend.stop()

    def _on_listener_press(self) -> None:
        # Listener thread: emitting is the only thing allowed here (Qt queues it).
        if not self.paused:
            self.pressed.emit()
