"""Clipboard reads and writes through pyperclip on a worker thread, answered by signals.

Reading the clipboard synchronously on the GUI thread can stall for seconds while the
same Qt process owns it (see RECIPES), so every call runs on a short-lived thread.
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, Qt, Signal
from termwise.overlay.qt_bridge import emit

log = logging.getLogger(__name__)


class Clipboard(QObject):
    """`read()` → `text_read(text)`; `copy(text)` → `copied(text)` or `failed(message)`."""

    text_read = Signal(str)
    copied = Signal(str)
    failed = Signal(str)
    _read_done = Signal(str)
    _copy_done = Signal(str, str)  # text, error ("" when fine)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._read_done.connect(self.text_read, Qt.ConnectionType.QueuedConnection)
        self._copy_done.connect(self._on_copy_done, Qt.ConnectionType.QueuedConnection)

    def read(self) -> None:
        threading.Thread(target=self._read, name="termwise-clip-read", daemon=True).start()

    def copy(self, text: str) -> None:
        threading.Thread(
            target=self._copy, args=(text,), name="termwise-clip-copy", daemon=True
        ).start()

    def _read(self) -> None:
        try:
            import pyperclip

            text = pyperclip.paste() or ""
        except (
            Exception
        ) as exc:  # no xclip/xsel, no DISPLAY: the overlay says the clipboard is empty
            log.warning("clipboard unreadable: %s", exc)
            text = ""
        emit(self._read_done, text)

    def _copy(self, text: str) -> None:
        try:
            import pyperclip

            pyperclip.copy(text)
        except Exception as exc:
            emit(self._copy_done, text, str(exc) or type(exc).__name__)
            return
        emit(self._copy_done, text, "")

    def _on_copy_done(self, text: str, error: str) -> None:
        if error:
            emit(self.failed, error)
        else:
            emit(self.copied, text)
