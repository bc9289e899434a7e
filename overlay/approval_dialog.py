"""Asks before running a risky command: once, this session, always, or deny."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget
from termwise.agent.base.types import Verdict
from termwise.overlay.i18n import tr
from termwise.overlay.qt_bridge import emit

CHOICES = ("once", "session", "always", "deny")


class ApprovalDialog(QDialog):
    """Shown with `open()` (never blocks the event loop); `chosen` carries the answer."""

    chosen = Signal(str)  # one of CHOICES, or "cancel" when closed without an answer

    def __init__(self, command: str, verdict: Verdict, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Run this command?"))
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint)
        self.command = command
        self.answer = ""
        level = QLabel(
            tr("This command is {level}.", level=tr(verdict.level)),
            self,
        )
        level.setObjectName("header")
        text = QLabel(command, self)
        text.setObjectName("command")
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text.setWordWrap(True)
        self.reasons = reasons = QLabel(
            "\n".join(f"• {r}" for r in verdict.reasons) or verdict.explanation, self
        )
        reasons.setWordWrap(True)
        self.buttons: dict[str, QPushButton] = {}
        labels = {
            "once": tr("Run once"),
            "session": tr("Allow this session"),
            "always": tr("Always allow"),
            "deny": tr("Deny"),
        }
        row = QHBoxLayout()
        for choice in CHOICES:
            button = QPushButton(labels[choice], self)
            button.setObjectName(f"approve_{choice}")
            button.clicked.connect(lambda _=False, c=choice: self.choose(c))
            row.addWidget(button)
            self.buttons[choice] = button
        self.buttons["deny"].setDefault(True)  # Enter never runs a dangerous command by accident
        layout = QVBoxLayout(self)
        layout.addWidget(level)
        layout.addWidget(text)
        layout.addWidget(reasons)
        layout.addLayout(row)
        # Closing (Esc) runs nothing and remembers nothing; only the Deny button stores a deny rule.
        self.rejected.connect(lambda: self.choose("cancel"))

    def choose(self, choice: str) -> None:
        if self.answer:
            return
        self.answer = choice
        emit(self.chosen, choice)
        self.hide()
