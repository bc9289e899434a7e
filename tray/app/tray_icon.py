"""The tray icon: three looks (idle, a command failed, waiting for a model) and notifications."""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QSystemTrayIcon

log = logging.getLogger(__name__)

STATES = ("idle", "failed", "waiting")
NOTIFY_MS = 8000


def icon_path(name: str) -> Path:
    """A file under resources/icons (an installed package or a checkout)."""
    return Path(str(resources.files("termwise.resources").joinpath("icons").joinpath(name)))


def load_icon(name: str) -> QIcon:
    icon = QIcon(str(icon_path(name)))
    if icon.isNull():
        log.warning("icon %s could not be loaded", name)
    return icon


class TrayIcon(QObject):
    """Wraps QSystemTrayIcon: `state` picks the icon; waiting wins over failed over idle."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.icons = {state: load_icon(f"tray-{state}.svg") for state in STATES}
        self.tray = QSystemTrayIcon(self.icons["idle"], self)
        self.failed = False
        self.waiting = False
        self.tooltip_base = "Termwise"
        self._render()

    @property
    def state(self) -> str:
        if self.waiting:
            return "waiting"
        return "failed" if self.failed else "idle"

    def set_failed(self, failed: bool, detail: str = "") -> None:
        self.failed = failed
        self._render(detail)

    def set_waiting(self, waiting: bool) -> None:
        self.waiting = waiting
        self._render()

    def notify(self, title: str, message: str, *, error: bool = False) -> None:
        """A non-blocking notification (a balloon or the desktop's notification service)."""
        log.info("notification: %s — %s", title, message)
        icon = (
            QSystemTrayIcon.MessageIcon.Warning
            if error
            else QSystemTrayIcon.MessageIcon.Information
        )
        if self.tray.isVisible() and QSystemTrayIcon.supportsMessages():
            self.tray.showMessage(title, message, icon, NOTIFY_MS)

    def _render(self, detail: str = "") -> None:
        self.tray.setIcon(self.icons[self.state])
        from termwise.overlay.i18n import tr

        tip = {"idle": "", "failed": tr("a command failed"), "waiting": tr("asking the model…")}
        text = self.tooltip_base + (f" — {tip[self.state]}" if tip[self.state] else "")
        self.tray.setToolTip(text + (f"\n{detail}" if detail else ""))
