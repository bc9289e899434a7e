"""Asks before running a risky command; the choices and their meaning come from agent.safety.approval_flow.

Enter and Esc mean Deny (this time only): the Deny button has the focus, is the default, says
so ("Deny (Enter)") and looks it (bold, accent border); closing the window is the same one-time
deny. A dangerous command is drawn differently (red frame, warning icon, "This command is
dangerous") and offers no "always" and no wildcard.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)
from termwise.agent.safety.approval_flow import DEFAULT_ANSWER, ApprovalRequest
from termwise.overlay.i18n import tr
from termwise.overlay.qt_bridge import emit

# A red frame in either theme: a pale tint under dark text, or a deep one under light text.
DANGER_STYLE = {
    "light": (
        "QFrame#danger { border: 2px solid #c62828; border-radius: 6px; background: #fdecea; }"
        "QFrame#danger QLabel { color: #7f0000; }"
    ),
    "dark": (
        "QFrame#danger { border: 2px solid #ff6b6b; border-radius: 6px; background: #3d1f22; }"
        "QFrame#danger QLabel { color: #ffd7d4; }"
    ),
}
# The button Enter presses stands out in either theme: bold, with a border in the palette's
# accent (the theme's Highlight), while the others keep the platform's look.
DEFAULT_STYLE = (
    "QPushButton { font-weight: bold; border: 2px solid palette(highlight); border-radius: 4px;"
    " background: palette(button); color: palette(button-text); padding: 4px 12px; }"
    "QPushButton:pressed { background: palette(highlight); color: palette(highlighted-text); }"
)
ICON_SIZE = 32

log = logging.getLogger(__name__)


class ApprovalDialog(QDialog):
    """Shown with `open()` (never blocks the event loop); `chosen` carries the answer."""

    chosen = Signal(str)  # an approval_flow Answer; "deny" when closed without one

    def __init__(self, request: ApprovalRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.command = request.command
        self.answer = ""
        self.setWindowTitle(tr("Run this command?"))
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint)

        frame = QFrame(self)
        frame.setObjectName("danger" if request.dangerous else "confirm")
        if request.dangerous:
            dark = self.palette().window().color().lightness() < 128
            frame.setStyleSheet(DANGER_STYLE["dark" if dark else "light"])
        icon = QLabel(frame)
        icon.setObjectName("icon")
        pixmap = self.style().standardIcon(
            QStyle.StandardPixmap.SP_MessageBoxCritical
            if request.dangerous
            else QStyle.StandardPixmap.SP_MessageBoxQuestion
        )
        icon.setPixmap(pixmap.pixmap(ICON_SIZE, ICON_SIZE))
        self.heading = QLabel(tr(request.heading), frame)
        self.heading.setObjectName("header")
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        top = QHBoxLayout()
        top.addWidget(icon)
        top.addWidget(self.heading, 1)
        text = QLabel(request.command, frame)
        text.setObjectName("command")
        text.setTextFormat(Qt.TextFormat.PlainText)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text.setWordWrap(True)
        self.reasons = QLabel("\n".join(f"• {r}" for r in request.reasons), frame)
        self.reasons.setObjectName("reasons")
        self.reasons.setTextFormat(Qt.TextFormat.PlainText)
        self.reasons.setWordWrap(True)
        inner = QVBoxLayout(frame)
        inner.addLayout(top)
        inner.addWidget(text)
        inner.addWidget(self.reasons)

        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for option in request.options:
            label = tr(option.label)
            if option.answer == "pattern" and request.pattern is not None:
                label = tr("Always allow {pattern}", pattern=request.pattern)
            if option.answer == DEFAULT_ANSWER:
                label = tr("Deny (Enter)")
            button = QPushButton(label, self)
            button.setObjectName(f"approve_{option.answer}")
            button.clicked.connect(lambda _=False, a=option.answer: self.choose(a))
            row.addWidget(button)
            self.buttons[option.answer] = button
        self.deny_button = self.buttons[DEFAULT_ANSWER]
        self.deny_button.setDefault(True)
        self.deny_button.setStyleSheet(DEFAULT_STYLE)
        layout = QVBoxLayout(self)
        layout.addWidget(frame)
        layout.addLayout(row)
        # Esc (reject) and closing the window run nothing and remember nothing.
        self.rejected.connect(lambda: self.choose(DEFAULT_ANSWER))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # Focus decides what Enter presses: give it to Deny once the dialog is on screen
        # (a focus set before show can be moved by the window manager or Qt's first focus).
        self.deny_button.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
        QTimer.singleShot(0, self._focus_deny)

    def _focus_deny(self) -> None:
        if self.isVisible() and not self.answer:
            self.deny_button.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
            log.info("approval shown: %s", self.command, extra={"event": self.offered()})

    def offered(self) -> dict[str, object]:
        """What the dialog offers as it stands on screen: level, heading, visible buttons
        (answer → label, in order) and the one Enter presses (the end-to-end journeys read it
        from the log; an accessibility tree is not there on every desktop)."""
        inner = self.focusWidget()  # this window's focus, active or not yet
        focused = next((a for a, b in self.buttons.items() if b is inner), None)
        return {
            "command": self.command,
            "dangerous": self.request.dangerous,
            "heading": self.heading.text(),
            "reasons": self.reasons.text().splitlines(),
            "buttons": {a: b.text() for a, b in self.buttons.items() if b.isVisible()},
            "focus": focused,
            "default": next((a for a, b in self.buttons.items() if b.isDefault()), None),
        }

    def closeEvent(self, event: QCloseEvent) -> None:
        self.choose(DEFAULT_ANSWER)
        super().closeEvent(event)

    def choose(self, answer: str) -> None:
        if self.answer:
            return
        self.answer = answer
        log.info("approval answered: %s", answer, extra={"event": {"command": self.command}})
        emit(self.chosen, answer)
        self.hide()
