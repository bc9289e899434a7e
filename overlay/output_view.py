"""The tail of the last block's clean output, error lines highlighted."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QTextBrowser, QWidget
from termwise.overlay.theme import Theme
from termwise.overlay.view_model import OutputLine


def to_html(lines: list[OutputLine], theme: Theme) -> str:
    """Lines as HTML, error lines in the theme's error colour."""
    out = []
    for line in lines:
        text = html.escape(line.text) or "&nbsp;"
        if line.error:
            text = f'<span style="color:{theme.error}; font-weight:600">{text}</span>'
        out.append(text)
    return '<pre style="margin:0">' + "<br>".join(out) + "</pre>"


class OutputView(QTextBrowser):
    """Read-only output tail; no focus, so keys stay with the input box."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outputView")
        self.theme = theme
        self.lines: list[OutputLine] = []
        self.setFocusPolicy(self.focusPolicy().NoFocus)
        self.setMaximumHeight(220)

    def set_lines(self, lines: list[OutputLine]) -> None:
        self.lines = lines
        self.setHtml(to_html(lines, self.theme))
        self.setVisible(bool(lines))
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.set_lines(self.lines)
