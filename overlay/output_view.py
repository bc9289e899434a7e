"""The tail of the last block's clean output, error lines highlighted."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QTextBrowser, QWidget
from termwise.overlay.theme import Theme
from termwise.overlay.view_model import OutputLine

MAX_VISIBLE_LINES = 14


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
        self.setVerticalScrollBarPolicy(self.verticalScrollBarPolicy().ScrollBarAsNeeded)

    def set_lines(self, lines: list[OutputLine]) -> None:
        self.lines = lines
        self.setHtml(to_html(lines, self.theme))
        self.setVisible(bool(lines))
        # Tall enough for the whole tail (no scrolling for the usual 14 lines), then at its end.
        line = self.fontMetrics().lineSpacing()
        frame = 2 * self.frameWidth() + 2 * int(self.document().documentMargin())
        self.setFixedHeight(min(len(lines), MAX_VISIBLE_LINES) * line + frame + 2)
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.set_lines(self.lines)
