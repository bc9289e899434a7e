"""The overlay's input box: empty + Enter fixes the last failure, text asks or answers a question."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QWidget
from termwise.overlay.i18n import tr


class InputBox(QLineEdit):
    """A line edit whose placeholder says what Enter will do."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("input")
        self.set_mode("ask")

    def set_mode(self, mode: str) -> None:
        """`ask` (normal), `answer` (the model asked a question) or `fix` (last command failed)."""
        texts = {
            "ask": tr("Ask for a command… (Enter)"),
            "fix": tr("Enter: fix the last failure · or type a question"),
            "answer": tr("Answer the question above, then Enter"),
        }
        self.setPlaceholderText(texts.get(mode, texts["ask"]))
