"""The tray process: wires the session host, IPC, memory, overlay, hotkey, icon and menu."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from PySide6.QtCore import QObject, QSocketNotifier, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox, QSystemTrayIcon, QWidget
from termwise.agent.base.config import load_config
from termwise.agent.base.config_schema import Config
from termwise.agent.base.errors import ConfigError
from termwise.agent.base.paths import Paths, resolve_paths
from termwise.tray.app.failure_nudge import FailureNudge
from termwise.tray.app.hotkey import describe
from termwise.tray.app.hotkey.bridge import HotkeyBridge
from termwise.tray.app.menu import TrayMenu
from termwise.tray.app.qt_bridge import HostBridge
from termwise.tray.app.single_instance import SingleInstance, forward, server_name
from termwise.tray.app.tray_icon import TrayIcon, load_icon
from termwise.tray.errors import TrayError

if TYPE_CHECKING:
    from termwise.agent.llm.base import LlmClient
    from termwise.tray.host.events import HostEvent
    from termwise.tray.host.host import SessionHost
    from termwise.tray.ipc.server import IpcServer

log = logging.getLogger("termwise.tray")

EXIT_OK = 0
EXIT_FAILURE = 1
# The tray host (trayer, a panel) may embed the icon a moment after start: its geometry is
# checked a bounded number of times, then never again (no idle wake-ups).
GEOMETRY_CHECK_MS = 100
GEOMETRY_CHECKS = 100


@runtime_checkable
class Retranslatable(Protocol):
    """A window that re-reads its texts after a language switch."""

    def retranslate(self) -> None: ...


class ErrorRelay(QObject):
    """Unhandled errors from any thread reach the GUI thread as a queued signal."""

    error = Signal(str)


class TrayApp(QObject):
    """Owns the long-lived parts of the tray and reacts to the menu, hotkey and host."""

    finished = Signal()  # everything is shut down; the event loop may end

    def __init__(
        self, app: QApplication, config: Config, paths: Paths, host: SessionHost, ipc: IpcServer
    ) -> None:
        super().__init__()
        from termwise.agent.chat.memory_link import MemoryLink
        from termwise.agent.llm.factory import make_client
        from termwise.agent.safety.approvals import ApprovalStore
        from termwise.memory.store import MemoryStore
        from termwise.overlay.controller import OverlayController
        from termwise.tray.app.session_port import HostPort
        from termwise.tray.host.shells import available_shells

        self.app = app
        self.config = config
        self.paths = paths
        self.host = host
        self.ipc = ipc
        self.windows: dict[str, QWidget] = {}
        self.quit_box: QMessageBox | None = None
        self._quitting = False
        self.icon = TrayIcon(self)
        self.errors = ErrorRelay(self)
        self.errors.error.connect(self._show_error, Qt.ConnectionType.QueuedConnection)
        self.approvals = ApprovalStore(paths.approvals_file)
        self.store = MemoryStore(paths.memory_dir)
        self.link = MemoryLink(self.store, _safe_client(make_client, config), config)
        # The one relay that carries host events (reader threads) to the GUI thread.
        self.events = HostBridge(host, self)
        self.controller = OverlayController(
            HostPort(host, self.events),
            config,
            paths,
            approvals=self.approvals,
            memory_link=self.link,
        )
        self.controller.settings_requested.connect(self.open_settings)
        self.controller.shown.connect(self._log_overlay)
        self._watch_turns()
        self.nudge = FailureNudge(
            lambda title, text: self.icon.notify(title, text),
            self.icon.set_failed,
            enabled=config.ui.failure_nudge,
            hotkey=config.hotkey.combo,
            parent=self,
        )
        self.menu = TrayMenu(host.list, available_shells, self)
        self.icon.tray.setContextMenu(self.menu.menu)
        self.icon.tray.activated.connect(self._on_activated)
        self._connect_menu()
        self.hotkey = HotkeyBridge(self)
        self.hotkey.pressed.connect(
            self.controller.show_overlay, Qt.ConnectionType.QueuedConnection
        )
        self.hotkey.failed.connect(self._hotkey_failed)
        self.events.host_event.connect(self.nudge.on_host_event)
        # Memory never blocks its caller, so it hears events on the reader threads directly.
        self._unsubscribe = host.subscribe(self._on_host_event)
        self._geometry_checks = 0
        self.geometry_timer = QTimer(self)
        self.geometry_timer.setObjectName("tray-geometry-check")
        self.geometry_timer.setInterval(GEOMETRY_CHECK_MS)
        self.geometry_timer.timeout.connect(self._check_geometry)

    # start and stop -------------------------------------------------------------------
    def start(self) -> None:
        self.icon.tray.show()
        if not self.icon.tray.isSystemTrayAvailable():
            log.warning("no system tray found; the hotkey still works")
        if self.config.hotkey.enabled:
            self.hotkey.register(self.config.hotkey.combo)
        self.geometry_timer.start()
        self._check_geometry()

    def _check_geometry(self) -> None:
        self._geometry_checks += 1
        rect = self.icon.tray.geometry()
        ready = rect.width() > 0 and (rect.x() > 0 or rect.y() > 0)
        if ready or self._geometry_checks >= GEOMETRY_CHECKS:
            self.geometry_timer.stop()
            log.info(
                "tray ready",
                extra={
                    "event": {
                        "geometry": [rect.x(), rect.y(), rect.width(), rect.height()],
                        "tray_available": self.icon.tray.isSystemTrayAvailable(),
                        "hotkey": self.config.hotkey.combo if self.hotkey.backend else None,
                        "ipc": self.ipc.address,
                    }
                },
            )

    def alive_sessions(self) -> int:
        return sum(1 for s in self.host.list() if s.alive)

    def request_quit(self) -> None:
        """Quit, after saying how many shells quitting ends (when any run)."""
        running = self.alive_sessions()
        if running == 0:
            self.quit_now()
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            _tr("Quit Termwise"),
            _tr("1 shell is still running. Quitting Termwise ends it.")
            if running == 1
            else _tr(
                "{count} shells are still running. Quitting Termwise ends them.", count=running
            ),
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
        )
        box.button(QMessageBox.StandardButton.Ok).setText(_tr("Quit"))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setWindowIcon(load_icon("termwise.svg"))
        box.finished.connect(lambda result: self._quit_answered(result))
        self.quit_box = box
        box.open()

    def _quit_answered(self, result: int) -> None:
        self.quit_box = None
        if result == QMessageBox.StandardButton.Ok:
            self.quit_now()

    def quit_now(self) -> None:
        """End every session and service, then leave the event loop."""
        if self._quitting:
            return
        self._quitting = True
        log.info("quitting: %d session(s) end", self.alive_sessions())
        self.geometry_timer.stop()
        self.hotkey.unregister()
        self._unsubscribe()
        self.events.close()
        self.controller.hide_overlay()
        self.ipc.stop()
        self.host.shutdown()
        self.link.close()
        self.icon.tray.hide()
        self.finished.emit()

    # menu -----------------------------------------------------------------------------
    def _connect_menu(self) -> None:
        m = self.menu
        m.open_session.connect(self.open_session)
        m.new_session.connect(self.new_session)
        m.deploy.connect(self.open_deploy)
        m.memory.connect(self.open_memory)
        m.settings.connect(lambda: self.open_settings(""))
        m.pause_toggled.connect(self.set_paused)
        m.open_logs.connect(self.open_logs)
        m.quit.connect(self.request_quit)

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == self.icon.tray.ActivationReason.Trigger:
            self.controller.show_overlay()

    def open_session(self, session_id: str) -> None:
        from termwise.tray.system.terminal_launch import open_terminal

        try:
            open_terminal(session_id, template=self.config.terminal.command)
        except TrayError as exc:
            self.icon.notify(_tr("Cannot open a terminal"), str(exc), error=True)

    def new_session(self, shell: str) -> None:
        try:
            session = self.host.create(shell)
        except TrayError as exc:
            self.icon.notify(_tr("Cannot start {shell}", shell=shell), str(exc), error=True)
            return
        log.info("session %s started from the menu (%s)", session.id, shell)
        self.open_session(session.id)

    def set_paused(self, paused: bool) -> None:
        self.hotkey.paused = paused
        log.info("hotkey %s", "paused" if paused else "resumed")

    def open_logs(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.paths.log_dir)))

    def _show_window(self, name: str, make: Callable[[], QWidget]) -> QWidget | None:
        window = self.windows.get(name)
        if window is None:
            try:
                window = make()
            except (ImportError, TrayError) as exc:
                self.icon.notify("Termwise", f"{name}: {exc}", error=True)
                return None
            self.windows[name] = window
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def open_memory(self) -> None:
        from termwise.overlay.memory_window import MemoryWindow

        self._show_window("memory", lambda: MemoryWindow(self.store))

    def open_deploy(self) -> None:
        def make() -> QWidget:
            from termwise.overlay.deploy_window import DeployWindow
            from termwise.tray.host.deploy_session import session_factory
            from termwise.tray.host.shells import default_shell

            return DeployWindow(
                self.config,
                self.paths,
                session_factory=session_factory(self.paths, self.host),
                shell=default_shell(self.config.terminal.default_shell),
            )

        self._show_window("deploy", make)

    def open_settings(self, field: str = "") -> None:
        def make() -> QWidget:
            from termwise.overlay.settings_window import SettingsWindow

            window = SettingsWindow(self.config, self.paths)
            window.applied.connect(self.apply_config)
            return window

        window = self._show_window("settings", make)
        if window is not None and field:
            window.focus_field(field)  # type: ignore[attr-defined]
        if window is not None:
            self._log_settings(window)

    def _log_settings(self, window: QWidget) -> None:
        """A machine-readable record of the Settings window on screen: its title and where
        its fields are inside it (the e2e journeys click them as a person would)."""
        rects = getattr(window, "field_rects", None)
        log.info(
            "settings shown",
            extra={
                "event": {
                    "title": window.windowTitle(),
                    "overlay_visible": self.controller.window.isVisible(),
                    "fields": rects() if callable(rects) else {},
                }
            },
        )

    def _log_applied(self) -> None:
        """The one "settings applied" line: what the new settings changed on screen (the overlay's
        language, key hints and theme, shown or not; the Settings window's title and fields),
        for the e2e journeys."""
        from termwise.overlay.i18n import current_language

        settings = self.windows.get("settings")
        rects = getattr(settings, "field_rects", None)
        log.info(
            "settings applied",
            extra={
                "event": {
                    "language": current_language(),
                    "overlay_visible": self.controller.window.isVisible(),
                    "overlay_hints": self.controller.window.hints.text(),
                    "overlay_theme": self.controller.window.theme.name,
                    "settings_title": settings.windowTitle() if settings is not None else None,
                    "fields": rects() if callable(rects) else {},
                }
            },
        )

    # settings ---------------------------------------------------------------------------
    def apply_config(self, config: Config) -> None:
        """New settings take effect at once: hotkey, overlay, theme, language, autostart."""
        old, self.config = self.config, config
        self.controller.apply_config(config)
        _apply_theme(self.app, config)
        self.menu.retranslate()
        for window in self.windows.values():  # every open window, in the new language
            if isinstance(window, Retranslatable):
                window.retranslate()
        self.nudge.enabled = config.ui.failure_nudge
        self.nudge.hotkey = config.hotkey.combo
        if (old.hotkey.combo, old.hotkey.enabled) != (config.hotkey.combo, config.hotkey.enabled):
            if config.hotkey.enabled:
                self.hotkey.register(config.hotkey.combo)
            else:
                self.hotkey.unregister()
        if old.ui.start_at_login != config.ui.start_at_login:
            from termwise.tray.system.autostart import set_start_at_login

            try:
                where = set_start_at_login(config.ui.start_at_login)
                log.info("start at login %s: %s", config.ui.start_at_login, where)
            except TrayError as exc:
                self.icon.notify("Termwise", str(exc), error=True)
        self._log_applied()

    def _hotkey_failed(self, message: str) -> None:
        self.icon.notify(
            _tr("Hotkey not available"),
            _tr("{error}. Choose another combination in Settings.", error=message),
            error=True,
        )
        self.open_settings("hotkey")

    # host events (reader threads) -------------------------------------------------------
    def _on_host_event(self, event: HostEvent) -> None:
        from termwise.tray.host.events import BlockFinished, SessionEnded

        try:
            if isinstance(event, BlockFinished):
                self.link.on_block(event.session.id, event.block)
            elif isinstance(event, SessionEnded):
                self.link.on_session_end(event.session.id)
        except Exception:  # memory must never break the session host
            log.exception("memory link failed on a host event")

    def _watch_turns(self) -> None:
        """The tray icon shows 'waiting' while the overlay waits for the model."""
        from termwise.agent.base.events import Error, Finished, Status, SuggestionReady

        def on_event(event: object) -> None:
            if isinstance(event, Status):
                self.icon.set_waiting(True)
            elif isinstance(event, SuggestionReady | Error | Finished):
                self.icon.set_waiting(False)

        self.controller.runner.turn_event.connect(on_event)
        self.controller.runner.done.connect(lambda _cancelled: self.icon.set_waiting(False))

    def _log_overlay(self) -> None:
        """A machine-readable record of what the overlay shows (the e2e tests wait on it)."""
        from termwise.overlay.i18n import current_language

        session = self.host.active()
        last = session.last_block() if session is not None else None
        log.info(
            "overlay context",
            extra={
                "event": {
                    "session": session.id if session is not None else None,
                    "shell": session.shell if session is not None else None,
                    "command": last.command if last is not None else None,
                    "exit_code": last.exit_code if last is not None else None,
                    "visible": self.controller.window.isVisible(),
                    "title": self.controller.window.windowTitle(),
                    "language": current_language(),
                    "hints": self.controller.window.hints.text(),
                    "theme": self.controller.window.theme.name,
                }
            },
        )

    # errors -------------------------------------------------------------------------------
    def excepthook(
        self, kind: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        log.error("unhandled error", exc_info=(kind, value, tb))
        self.errors.error.emit(f"{kind.__name__}: {value}")

    def _show_error(self, text: str) -> None:
        self.icon.notify(
            _tr("Termwise hit an error"), text + " — " + _tr("details in the log"), error=True
        )


def _tr(text: str, **fields: object) -> str:
    from termwise.overlay.i18n import tr

    return tr(text, **fields)


def _safe_client(
    make_client: Callable[[Config], LlmClient | None], config: Config
) -> LlmClient | None:
    try:
        return make_client(config)
    except Exception as exc:  # a broken provider must not stop the tray; memory works offline
        log.warning("no model for memory: %s", exc)
        return None


def _apply_theme(app: QApplication, config: Config) -> None:
    from termwise.overlay.theme import apply_theme

    apply_theme(app, config)


def _install_signal_quit(tray: TrayApp) -> None:
    """SIGTERM/SIGINT end the tray cleanly: a wake-up socket read by the event loop."""
    if sys.platform == "win32":
        return
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno())
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, tray)

    def woke() -> None:
        try:
            reader.recv(64)
        except OSError:
            pass
        log.info("stop signal received")
        tray.quit_now()

    notifier.activated.connect(woke)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: None)  # the wake-up fd does the work
    tray._signal_sockets = (reader, writer, notifier)  # type: ignore[attr-defined]


def _config(paths: Paths) -> tuple[Config, list[str]]:
    try:
        loaded = load_config(paths.config_file, repair=True)
    except ConfigError as exc:
        return Config(), [str(exc)]
    problems = list(loaded.problems)
    if loaded.kept_aside is not None:
        problems.append(f"your file was kept as {loaded.kept_aside}; defaults are in force")
    return loaded.config, problems


def main(args: argparse.Namespace) -> int:
    """`termwise` with no subcommand: run the tray until Quit."""
    from termwise.tray.system.logs import setup_logging

    paths = resolve_paths().ensure()
    setup_logging(paths.log_dir, json_lines=bool(getattr(args, "json_logging", False)))
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "termwise"])
    assert isinstance(app, QApplication)
    app.setApplicationName("Termwise")
    app.setQuitOnLastWindowClosed(False)
    app.setWindowIcon(load_icon("termwise.svg"))

    instance = SingleInstance(server_name(paths.runtime_dir))
    if not instance.listen():
        forward(instance.name, "show")
        log.info("Termwise already runs: asked it to show the overlay")
        print("termwise: already running; showing its overlay", file=sys.stderr)
        return EXIT_OK

    config, problems = _config(paths)
    from termwise.tray.host.host import SessionHost
    from termwise.tray.host.ledger import keep_ledger
    from termwise.tray.ipc.server import IpcServer
    from termwise.tray.ipc.transport import AddressInUse

    host = SessionHost(config, paths)
    ipc = IpcServer(host, paths)
    ledger = keep_ledger(host, paths.runtime_dir)
    ipc.notice = ledger.lost_notice
    try:
        ipc.start()
    except AddressInUse as exc:
        host.shutdown()
        instance.close()
        message = (
            f"termwise: {exc}. A `termwise serve` host runs without a tray; "
            "stop it first (its sessions end) or keep using it from the command line."
        )
        log.error("%s", message)
        print(message, file=sys.stderr)
        return EXIT_FAILURE

    _apply_theme(app, config)
    tray = TrayApp(app, config, paths, host, ipc)
    tray.finished.connect(app.quit, Qt.ConnectionType.QueuedConnection)
    instance.request.connect(lambda req: _on_request(tray, req))
    sys.excepthook = tray.excepthook
    threading.excepthook = lambda a: tray.excepthook(
        a.exc_type, a.exc_value or Exception(), a.exc_traceback
    )
    _install_signal_quit(tray)
    tray.start()
    from termwise.tray.system.bytecode import compile_in_background

    compile_in_background()  # so each later `termwise check` starts from bytecode
    for problem in problems:
        tray.icon.notify(_tr("Config problem"), problem, error=True)
    if ledger.lost_notice:
        tray.icon.notify("Termwise", ledger.lost_notice, error=True)
    if config.ui.start_at_login:
        _write_autostart(tray)
    log.info("Termwise running (pid %d); hotkey %s", os.getpid(), describe(config.hotkey.combo))
    try:
        code = app.exec()
    finally:
        tray.quit_now()
        ledger.close()
        instance.close()
        sys.excepthook = sys.__excepthook__
    return int(code)


def _write_autostart(tray: TrayApp) -> None:
    from termwise.tray.system.autostart import set_start_at_login

    try:
        set_start_at_login(True)
    except TrayError as exc:
        tray.icon.notify("Termwise", str(exc), error=True)


def _on_request(tray: TrayApp, request: str) -> None:
    if request == "show":
        tray.controller.show_overlay()
    elif request == "settings":
        tray.open_settings("")
    elif request == "memory":
        tray.open_memory()
    elif request == "deploy":
        tray.open_deploy()


__all__ = ["TrayApp", "main"]
