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
        """`ask` (normal), `answer` (the model asked a question), `fix` (last command failed)
        or `choose` (suggestions are listed: Enter types the chosen one)."""
        texts = {
            "ask": tr("Ask for a command… (Enter)"),
            "fix": tr("Enter: fix the last failure · or type a question"),
            "answer": tr("Answer the question above, then Enter"),
            "choose": tr("Enter types the chosen command · or type a question"),
        }
        self.setPlaceholderText(texts.get(mode, texts["ask"]))
