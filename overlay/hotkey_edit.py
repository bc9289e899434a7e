"""A line edit that records a key combination ("ctrl+alt+space") when the user presses it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QLineEdit, QWidget
from termwise.overlay.qt_bridge import emit

_MODIFIER_KEYS = {
    Qt.Key.Key_Control,
    Qt.Key.Key_Alt,
    Qt.Key.Key_Shift,
    Qt.Key.Key_Meta,
    Qt.Key.Key_AltGr,
}
_MODIFIERS = (
    (Qt.KeyboardModifier.ControlModifier, "ctrl"),
    (Qt.KeyboardModifier.AltModifier, "alt"),
    (Qt.KeyboardModifier.ShiftModifier, "shift"),
    (Qt.KeyboardModifier.MetaModifier, "win"),
)


def combo_text(key: int, modifiers: Qt.KeyboardModifier) -> str:
    """The config spelling of a key press, e.g. "ctrl+alt+space"; "" for a lone modifier."""
    if key in _MODIFIER_KEYS or key == 0:
        return ""
    parts = [name for flag, name in _MODIFIERS if modifiers & flag]
    name = QKeySequence(key).toString(QKeySequence.SequenceFormat.PortableText).lower()
    if not name:
        return ""
    return "+".join([*parts, name])


class HotkeyEdit(QLineEdit):
    """Click, then press the combination; Backspace alone clears it."""

    recorded = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)  # typed letters must not land in the text

    def keyPressEvent(self, event: QKeyEvent) -> None:
        mods = event.modifiers()
        if event.key() == Qt.Key.Key_Backspace and not mods:
            self.clear()
            return
        if event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab) and not mods:
            super().keyPressEvent(event)  # keep Tab for moving between fields
            return
        text = combo_text(event.key(), mods)
        if text:
            self.setText(text)
            emit(self.recorded, text)
