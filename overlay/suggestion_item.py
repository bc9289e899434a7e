"""One suggestion: the command in monospace, explanation, caveats and a risk badge."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget
from termwise.overlay.i18n import tr
from termwise.overlay.view_model import SuggestionRow

RISK_TEXT = {
    "safe": "safe",
    "confirm": "confirm",
    "dangerous": "dangerous",
    "unknown": "checking…",
}


class SuggestionItem(QFrame):
    """The widget shown for one row of the suggestion list."""

    def __init__(self, row: SuggestionRow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("suggestion")
        self.setProperty("selected", False)
        self.command = QLabel(self)
        self.command.setObjectName("command")
        self.command.setWordWrap(True)
        self.badge = QLabel(self)
        self.source = QLabel(self)
        self.source.setObjectName("muted")
        self.explanation = QLabel(self)
        self.explanation.setWordWrap(True)
        self.caveats = QLabel(self)
        self.caveats.setObjectName("muted")
        self.caveats.setWordWrap(True)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(8)
        top.addWidget(self.command, 1)
        top.addWidget(self.source)
        top.addWidget(self.badge)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.explanation)
        layout.addWidget(self.caveats)
        self.set_row(row)

    def set_selected(self, selected: bool) -> None:
        """Draw the row as chosen (style sheet: #suggestion[selected="true"])."""
        if self.property("selected") != selected:
            self.setProperty("selected", selected)
            self.style().unpolish(self)
            self.style().polish(self)

    def set_row(self, row: SuggestionRow) -> None:
        s = row.suggestion
        self.command.setText(s.command)
        self.badge.setText(tr(RISK_TEXT.get(row.risk, row.risk)))
        self.badge.setObjectName(f"badge_{row.risk}")
        self.badge.setToolTip(row.risk_tooltip)
        self.badge.style().unpolish(self.badge)
        self.badge.style().polish(self.badge)
        self.source.setText(tr("instant") if s.source == "rules" else tr("model"))
        self.explanation.setText(s.explanation)
        self.explanation.setVisible(bool(s.explanation))
        caveat = tr("Caveat: {text}", text=s.caveats) if s.caveats else ""
        self.caveats.setText(caveat)
        self.caveats.setVisible(bool(caveat))
