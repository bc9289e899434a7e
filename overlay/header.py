"""The overlay's header: which session (shell · cwd · last command · exit code) or the clipboard."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from termwise.overlay.i18n import tr
from termwise.overlay.view_model import Header


def describe(header: Header) -> tuple[str, str]:
    """The header's two lines of text."""
    if header.source == "clipboard":
        return tr("Clipboard"), tr("No active session — the clipboard text is the context.")
    if header.source != "session":
        return tr("No session"), tr("Start a session from the tray menu (New session).")
    code = "—" if header.exit_code is None else str(header.exit_code)
    parts = [header.shell or "?", header.cwd or "?"]
    if header.session_id:
        parts.append(tr("session {id}", id=header.session_id))
    first = " · ".join(parts)
    if header.count > 1:
        first += "   " + tr(
            "session {n}/{total} (Tab switches)", n=header.position, total=header.count
        )
    command = header.command or tr("(no command yet)")
    second = f"$ {command}   " + tr("exit {code}", code=code)
    return first, second


class HeaderWidget(QWidget):
    """Two labels: where the context comes from, and the last command with its exit code."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self)
        self.title.setObjectName("header")
        self.detail = QLabel(self)
        self.detail.setObjectName("command")
        self.detail.setTextFormat(self.detail.textFormat().PlainText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.detail)

    def set_header(self, header: Header) -> None:
        first, second = describe(header)
        self.title.setText(first)
        self.detail.setText(second)
