"""The overlay's status lines: spinner, status, clarifying question, inline error with Retry."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget
from termwise.overlay.i18n import tr
from termwise.overlay.qt_bridge import emit
from termwise.overlay.view_model import OverlayViewModel


class StatusArea(QWidget):
    """Shows what the request is doing; Retry re-sends a failed one."""

    retry_clicked = Signal()
    link_activated = Signal()  # the notice's "open Settings" link

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spinner = QProgressBar(self)
        self.spinner.setRange(0, 0)  # busy indicator: Qt animates it, no timer of ours
        self.spinner.setTextVisible(False)
        self.spinner.setFixedHeight(4)
        self.status = QLabel(self)
        self.status.setObjectName("muted")
        self.asked = QLabel(self)
        self.asked.setObjectName("muted")
        self.asked.setWordWrap(True)
        self.asked.setTextFormat(Qt.TextFormat.PlainText)
        self.question = QLabel(self)
        self.question.setObjectName("header")
        self.question.setWordWrap(True)
        self.explanation = QLabel(self)
        self.explanation.setWordWrap(True)
        self.error = QLabel(self)
        self.error.setObjectName("errorText")
        self.error.setWordWrap(True)
        self.retry = QPushButton(tr("Retry"), self)
        self.retry.clicked.connect(self.retry_clicked)
        self.notice = QLabel(self)
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)  # notices quote commands verbatim
        self.settings_link = QLabel(self)
        self.settings_link.setObjectName("settingsLink")
        self.settings_link.setTextFormat(Qt.TextFormat.RichText)
        self.settings_link.linkActivated.connect(lambda _href: emit(self.link_activated))
        error_row = QHBoxLayout()
        error_row.setContentsMargins(0, 0, 0, 0)
        error_row.addWidget(self.error, 1)
        error_row.addWidget(self.retry)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        for widget in (self.spinner, self.asked, self.status, self.question, self.explanation):
            layout.addWidget(widget)
        layout.addLayout(error_row)
        layout.addWidget(self.notice)
        layout.addWidget(self.settings_link)

    def set_state(self, vm: OverlayViewModel, notice: str) -> None:
        self.spinner.setVisible(vm.busy)
        self.asked.setText(tr("You asked: {text}", text=vm.asked) if vm.asked else "")
        self.asked.setVisible(bool(vm.asked))
        self.status.setText(tr(vm.status))  # the agent's fixed status lines are in the catalogue
        self.status.setVisible(bool(vm.status))
        self.question.setText(tr("Question: {text}", text=vm.question) if vm.question else "")
        self.question.setVisible(bool(vm.question))
        self.explanation.setText(vm.explanation)
        self.explanation.setVisible(bool(vm.explanation))
        self.error.setText(vm.error)
        self.error.setVisible(bool(vm.error))
        self.retry.setVisible(bool(vm.error) and vm.error_retryable)
        self.notice.setText(notice)
        self.notice.setVisible(bool(notice))
        self.settings_link.setText(
            f'<a href="settings">{html.escape(tr("Open Settings (F2)"))}</a>'
        )
        self.settings_link.setVisible(not vm.model_available)
        # An empty area would still cost the overlay its layout spacing.
        parts = (vm.busy, vm.asked, vm.status, vm.question, vm.explanation, vm.error, notice)
        self.setVisible(any(parts) or not vm.model_available)
