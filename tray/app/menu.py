"""The tray menu: sessions, new session, deploy, memory, settings, pause, logs, quit."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu
from termwise.overlay.i18n import tr

log = logging.getLogger(__name__)

SHELL_LABELS = {
    "pwsh": "PowerShell 7",
    "powershell": "Windows PowerShell",
    "cmd": "Command Prompt",
    "wsl": "WSL",
    "bash": "bash",
    "zsh": "zsh",
}
MAX_CWD = 40


def short_cwd(cwd: str | None, home: str | None = None) -> str:
    """'~/src/app' for a folder in the home folder; long paths keep their tail."""
    if not cwd:
        return "?"
    home = (home if home is not None else os.path.expanduser("~")).rstrip("/\\")
    # Either separator: on Windows a PowerShell cwd has "\\", a Git Bash one "/".
    if home and cwd.startswith(home) and cwd[len(home) : len(home) + 1] in ("", "/", "\\"):
        cwd = "~" + cwd[len(home) :]
    return cwd if len(cwd) <= MAX_CWD else "…" + cwd[-(MAX_CWD - 1) :]


def session_label(session: Any) -> str:
    """'1 · bash · ~/src · exit 2' (the last block's exit code, 'ended' for a dead shell)."""
    last = session.last_block()
    parts = [str(session.id), str(session.shell), short_cwd(session.cwd)]
    if not session.alive:
        parts.append(tr("ended"))
    elif last is not None and last.exit_code is not None:
        parts.append(tr("exit") + f" {last.exit_code}")
    return " · ".join(parts)


class TrayMenu(QObject):
    """Builds the QMenu; the Sessions submenu is refreshed each time it opens."""

    open_session = Signal(str)
    new_session = Signal(str)
    deploy = Signal()
    memory = Signal()
    settings = Signal()
    pause_toggled = Signal(bool)
    open_logs = Signal()
    quit = Signal()
    shown = Signal()

    def __init__(
        self,
        sessions: Callable[[], Sequence[Any]],
        shells: Callable[[], dict[str, str]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._sessions = sessions
        self._shells = shells
        self.menu = QMenu()
        self.menu.setObjectName("termwise-tray-menu")
        self.sessions_menu = QMenu(self.menu)
        self.new_menu = QMenu(self.menu)
        self.sessions_menu.aboutToShow.connect(self.refresh_sessions)
        self.new_menu.aboutToShow.connect(self.refresh_shells)
        self.menu.aboutToShow.connect(self._about_to_show)
        self.menu.addMenu(self.sessions_menu)
        self.menu.addMenu(self.new_menu)
        self.menu.addSeparator()
        self.deploy_action = self._action(self.deploy.emit)
        self.memory_action = self._action(self.memory.emit)
        self.settings_action = self._action(self.settings.emit)
        self.menu.addSeparator()
        self.pause_action = self._action(lambda: None)
        self.pause_action.setCheckable(True)
        self.pause_action.toggled.connect(self.pause_toggled.emit)
        self.logs_action = self._action(self.open_logs.emit)
        self.menu.addSeparator()
        self.quit_action = self._action(self.quit.emit)
        self.retranslate()
        self.refresh_sessions()
        self.refresh_shells()

    def _action(self, slot: Callable[[], None]) -> QAction:
        action = QAction(self.menu)
        action.triggered.connect(lambda _checked=False: slot())
        self.menu.addAction(action)
        return action

    def retranslate(self) -> None:
        self.sessions_menu.setTitle(tr("Sessions"))
        self.new_menu.setTitle(tr("New session"))
        self.deploy_action.setText(tr("Deploy from repository…"))
        self.memory_action.setText(tr("Memory…"))
        self.settings_action.setText(tr("Settings…"))
        self.pause_action.setText(tr("Pause hotkey"))
        self.logs_action.setText(tr("Open log folder"))
        self.quit_action.setText(tr("Quit"))

    def refresh_sessions(self) -> None:
        self.sessions_menu.clear()
        sessions = list(self._sessions())
        if not sessions:
            empty = self.sessions_menu.addAction(tr("No sessions yet"))
            empty.setEnabled(False)
            return
        for session in sessions:
            action = self.sessions_menu.addAction(session_label(session))
            action.setEnabled(bool(session.alive))
            action.triggered.connect(lambda _c=False, sid=session.id: self.open_session.emit(sid))

    def refresh_shells(self) -> None:
        self.new_menu.clear()
        shells = self._shells()
        if not shells:
            none = self.new_menu.addAction(tr("No shells found"))
            none.setEnabled(False)
            return
        for name, path in shells.items():
            action = self.new_menu.addAction(SHELL_LABELS.get(name, name))
            action.setToolTip(path)
            action.triggered.connect(lambda _c=False, n=name: self.new_session.emit(n))

    def _about_to_show(self) -> None:
        self.refresh_sessions()
        log.info("menu shown")
        self.shown.emit()
