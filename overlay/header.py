"""The overlay's header: which session (shell · cwd · last command · exit code) or the clipboard."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from termwise.overlay.i18n import tr
from termwise.overlay.view_model import Header

MAX_PATH_CHARS = 60


def short_path(path: str, home: str | None = None) -> str:
    """The folder as the prompt shows it: the home folder as `~`, a long middle elided."""
    home = os.path.expanduser("~") if home is None else home
    if home and home not in ("/", "~"):
        norm, norm_home = os.path.normcase(path), os.path.normcase(home.rstrip("/\\"))
        if norm == norm_home:
            path = "~"
        elif norm.startswith(norm_home) and norm[len(norm_home)] in "/\\":
            path = "~" + path[len(norm_home) :]
    if len(path) <= MAX_PATH_CHARS:
        return path
    keep = MAX_PATH_CHARS - 1
    return path[: keep // 3] + "…" + path[-(keep - keep // 3) :]


def describe(header: Header) -> tuple[str, str]:
    """The header's two lines of text."""
    if header.source == "clipboard":
        return tr("Clipboard"), tr("No active session — the clipboard text is the context.")
    if header.source != "session":
        return tr("No session"), tr("Start a session from the tray menu (New session).")
    code = "—" if header.exit_code is None else str(header.exit_code)
    parts = [header.shell or "?", short_path(header.cwd) if header.cwd else "?"]
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
        self.title.setToolTip(header.cwd if header.source == "session" and header.cwd else "")
        self.detail.setText(second)
