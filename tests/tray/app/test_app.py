"""The tray process wiring: real host, IPC, memory link, overlay controller, icon, menu, quit."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QMessageBox
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import Paths, resolve_paths
from termwise.overlay.i18n import set_language
from termwise.tray.app.app import TrayApp, _config, main
from termwise.tray.app.single_instance import SingleInstance, forward, server_name
from termwise.tray.errors import HostUnavailable
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy
from termwise.tray.ipc.client import HostClient
from termwise.tray.ipc.server import IpcServer
from termwise.tray.system import autostart

from tests.support.wine_limits import wine_limit

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> Paths:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    set_language("en")
    return resolve_paths().ensure()


def _config_no_hotkey(**ui: object) -> Config:
    config = Config()
    config.hotkey.enabled = False
    config.llm.probe_ollama = False
    for key, value in ui.items():
        setattr(config.ui, key, value)
    return config


@pytest.fixture
def tray(qapp: QApplication, paths: Paths) -> Iterator[TrayApp]:
    """A TrayApp over a real SessionHost and a real IPC server (no model, no hotkey)."""
    config = _config_no_hotkey()
    host = SessionHost(config, paths, termination=FAST_END, foreground=None)
    ipc = IpcServer(host, paths)
    ipc.start()
    app = TrayApp(qapp, config, paths, host, ipc)
    app.start()
    try:
        yield app
    finally:
        app.quit_now()


def _run(session, command: str, timeout: float = 20.0):
    last = session.last_block()
    session.send_text(command, enter=True)
    block = session.wait_for_block(last.index if last else -1, timeout)
    assert block is not None, f"no block for {command!r}"
    return block


@wine_limit("no-posix-tools")
def test_failed_command_marks_the_icon_and_nudges(qtbot, tray: TrayApp) -> None:
    """A non-zero exit turns the icon to 'failed' with a nudge naming the command and hotkey; success clears it."""
    session = tray.host.create("bash")
    with qtbot.waitSignal(tray.nudge.failed, timeout=20000) as nudged:
        _run(session, "ls /nonexistent-termwise")
    assert nudged.args == [
        session.id,
        "`ls /nonexistent-termwise` failed — press Ctrl+Alt+Space for a fix",
    ]
    assert tray.icon.state == "failed"
    assert "ls /nonexistent-termwise" in tray.icon.tray.toolTip()
    with qtbot.waitSignal(tray.nudge.cleared, timeout=20000):
        _run(session, "true")
    assert tray.icon.state == "idle"


@wine_limit("no-posix-tools")
def test_nudge_can_be_turned_off(qtbot, tray: TrayApp, caplog) -> None:
    """With ui.failure_nudge off the icon still shows the failure but no notification is sent."""
    config = _config_no_hotkey(failure_nudge=False)
    tray.apply_config(config)
    session = tray.host.create("bash")
    caplog.set_level(logging.INFO, "termwise.tray.app.tray_icon")
    with qtbot.waitSignal(tray.nudge.failed, timeout=20000):
        _run(session, "false")
    assert tray.icon.state == "failed"
    assert not [r for r in caplog.records if r.getMessage().startswith("notification:")]


@wine_limit("no-posix-tools")
def test_finished_blocks_reach_memory(qtbot, tray: TrayApp) -> None:
    """Each finished command is handed to the memory link as the session's recent command."""
    session = tray.host.create("bash")
    _run(session, "echo remembered-$((40+2))")
    qtbot.waitUntil(
        lambda: any("remembered" in r.command for r in tray.link.recent_commands(session.id)),
        timeout=10000,
    )


@wine_limit("no-posix-tools")
def test_cli_reaches_the_trays_own_host(tray: TrayApp) -> None:
    """`termwise send/context` talk to the tray's in-process host over IPC."""
    client = HostClient(tray.paths)
    info = client.create(shell="bash")
    assert [s.id for s in tray.host.list()] == [str(info["id"])]


@wine_limit("no-posix-tools")
def test_quit_asks_then_ends_every_shell(qtbot, tray: TrayApp) -> None:
    """Quit says how many shells run and that they end; OK ends them and the IPC server."""
    tray.host.create("bash")
    tray.host.create("bash")
    tray.request_quit()
    box = tray.quit_box
    assert box is not None and box.isVisible()
    assert "2 shells are still running. Quitting Termwise ends them." in box.text()
    with qtbot.waitSignal(tray.finished, timeout=20000):
        box.button(QMessageBox.StandardButton.Ok).click()
    assert not any(s.alive for s in tray.host.list())
    with pytest.raises(HostUnavailable):
        HostClient(tray.paths).ping()


@wine_limit("no-posix-tools")
def test_quit_cancelled_keeps_everything(qtbot, tray: TrayApp) -> None:
    """Cancel in the quit question leaves the shells and the host running."""
    session = tray.host.create("bash")
    tray.request_quit()
    assert tray.quit_box is not None
    tray.quit_box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: tray.quit_box is None, timeout=3000)
    assert session.alive
    assert HostClient(tray.paths).ping() > 0


def test_error_in_a_worker_thread_is_logged_and_notified(qtbot, tray: TrayApp, caplog) -> None:
    """An unhandled error anywhere ends up in the log and in a non-blocking notification."""
    caplog.set_level(logging.INFO)
    old = threading.excepthook
    threading.excepthook = lambda a: tray.excepthook(
        a.exc_type, a.exc_value or Exception(), a.exc_traceback
    )
    try:

        def boom() -> None:
            raise ValueError("disk on fire")

        worker = threading.Thread(target=boom)
        worker.start()
        worker.join()
        qtbot.waitUntil(
            lambda: any("Termwise hit an error" in r.getMessage() for r in caplog.records),
            timeout=3000,
        )
    finally:
        threading.excepthook = old
    messages = [r.getMessage() for r in caplog.records]
    assert any("ValueError: disk on fire" in m and m.startswith("notification:") for m in messages)
    assert any(r.getMessage() == "unhandled error" and r.exc_info for r in caplog.records)


@pytest.mark.qt_no_exception_capture
def test_error_in_a_qt_slot_goes_through_the_hook(qtbot, tray: TrayApp, caplog) -> None:
    """An exception raised in a Qt callback reaches the one global hook."""
    caplog.set_level(logging.INFO)
    old = sys.excepthook
    sys.excepthook = tray.excepthook
    try:

        def slot() -> None:
            raise RuntimeError("slot broke")

        QTimer.singleShot(0, slot)
        qtbot.waitUntil(
            lambda: any("RuntimeError: slot broke" in r.getMessage() for r in caplog.records),
            timeout=3000,
        )
    finally:
        sys.excepthook = old


def test_hotkey_failure_opens_settings_at_the_hotkey(qtbot, tray: TrayApp, caplog) -> None:
    """A combination that cannot be registered is notified and Settings opens on the hotkey field."""
    caplog.set_level(logging.INFO)
    tray.hotkey.register("ctrl+alt")
    qtbot.waitUntil(lambda: "settings" in tray.windows, timeout=5000)
    settings = tray.windows["settings"]
    assert settings.isVisible()
    assert any(
        "Hotkey not available" in r.getMessage() and "needs a key" in r.getMessage()
        for r in caplog.records
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="another X client grabs the key")
def test_a_hotkey_another_program_holds_is_notified_and_settings_opens_at_it(
    qtbot, tray: TrayApp, caplog
) -> None:
    """Another X client grabbed the combination: the tray says it is taken, focus goes to the
    hotkey field of Settings."""
    from Xlib import XK, X
    from Xlib.display import Display

    caplog.set_level(logging.INFO)
    other = Display()
    keycode = other.keysym_to_keycode(XK.string_to_keysym("F11"))
    other.screen().root.grab_key(keycode, X.ControlMask | X.Mod1Mask, False, 1, 1)
    other.sync()
    try:
        assert not tray.hotkey.register("ctrl+alt+F11")
        qtbot.waitUntil(lambda: "settings" in tray.windows, timeout=5000)
        field = tray.windows["settings"].fields["hotkey"]
        qtbot.waitUntil(lambda: field.hasFocus(), timeout=5000)
        assert any(
            "Hotkey not available" in r.getMessage()
            and "Ctrl+Alt+F11 is taken by another program" in r.getMessage()
            for r in caplog.records
        )
    finally:
        other.close()


@wine_limit("no-posix-tools")
def test_settings_apply_live(qtbot, tray: TrayApp, paths: Paths) -> None:
    """Applied settings take effect without a restart: start at login written, nudge text uses the new hotkey."""
    config = _config_no_hotkey(start_at_login=True)
    config.hotkey = dataclasses.replace(config.hotkey, combo="ctrl+shift+k")
    tray.apply_config(config)
    # On Windows the Run value (under the tests' own key, see conftest.py), else the
    # XDG autostart file in the test's home.
    assert autostart.is_enabled()
    session = tray.host.create("bash")
    with qtbot.waitSignal(tray.nudge.failed, timeout=20000) as nudged:
        _run(session, "false")
    assert nudged.args[1].endswith("press Ctrl+Shift+K for a fix")
    tray.apply_config(_config_no_hotkey(start_at_login=False))
    assert not autostart.is_enabled()


@wine_limit("no-posix-tools")
def test_new_session_from_the_menu_opens_a_terminal_on_it(
    qtbot, tray: TrayApp, tmp_path: Path
) -> None:
    """New session ▸ bash starts a shell and opens the configured terminal attached to it."""
    out = tmp_path / "argv.txt"
    fake = tmp_path / "term.py"
    fake.write_text(
        textwrap.dedent(
            f"""
            import sys
            open({str(out)!r}, "w").write("\\n".join(sys.argv[1:]))
            """
        )
    )
    config = _config_no_hotkey()
    config.terminal.command = f"{sys.executable} {fake} {{attach}}"
    tray.apply_config(config)
    tray.menu.new_session.emit("bash")
    assert [s.shell for s in tray.host.list()] == ["bash"]
    session_id = tray.host.list()[0].id
    deadline = time.monotonic() + 20
    while not out.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.read_text().splitlines()[-2:] == ["attach", session_id]


def test_unknown_shell_from_the_menu_is_a_notification(tray: TrayApp, caplog) -> None:
    """A shell that cannot start is reported, and no session is left behind."""
    caplog.set_level(logging.INFO)
    tray.new_session("no-such-shell")
    assert tray.host.list() == []
    assert any("Cannot start no-such-shell" in r.getMessage() for r in caplog.records)


def test_memory_and_deploy_windows_open_from_the_menu(qtbot, tray: TrayApp) -> None:
    """Memory… and Deploy from repository… open their windows (once each)."""
    tray.menu.memory.emit()
    tray.menu.deploy.emit()
    assert tray.windows["memory"].isVisible()
    assert tray.windows["deploy"].isVisible()
    first = tray.windows["memory"]
    tray.menu.memory.emit()
    assert tray.windows["memory"] is first
    for window in tray.windows.values():
        window.close()


@wine_limit("qt-local-socket")
def test_second_start_forwards_show_to_the_first(qtbot, paths: Paths) -> None:
    """A second tray start finds the first through the per-user local server and asks it to show."""
    name = server_name(paths.runtime_dir)
    first = SingleInstance(name)
    assert first.listen()
    try:
        second = SingleInstance(name)
        assert not second.listen()
        with qtbot.waitSignal(first.request, timeout=3000) as got:
            assert forward(name, "show")
        assert got.args == ["show"]
    finally:
        first.close()
    assert not forward(name, "show")  # nobody listens any more


@pytest.mark.skipif(
    sys.platform == "win32", reason="a Windows named pipe leaves no file behind when its owner dies"
)
def test_stale_socket_from_a_crash_is_taken_over(paths: Paths) -> None:
    """A socket file left by a crashed tray does not stop the next start."""
    name = server_name(paths.runtime_dir)
    Path(name).write_text("")
    instance = SingleInstance(name)
    try:
        assert instance.listen()
        assert instance.server.isListening()
    finally:
        instance.close()


@wine_limit("first-pipe-instance")  # the tray's own listen succeeds and it runs on
def test_a_serve_host_already_running_is_reported(qapp, paths: Paths, capsys) -> None:
    """When `termwise serve` already owns the IPC address the tray says so and exits 1."""
    host = SessionHost(Config(), paths, termination=FAST_END, foreground=None)
    ipc = IpcServer(host, paths)
    ipc.start()
    try:
        code = main(argparse.Namespace(json_logging=False))
    finally:
        ipc.stop()
        host.shutdown()
    assert code == 1
    err = capsys.readouterr().err
    assert "already listens" in err and "termwise serve" in err


def test_config_problems_name_file_and_line(paths: Paths) -> None:
    """A bad value is reported with file:line and skipped; an unreadable file is kept aside."""
    paths.config_file.write_text("hotkey:\n  combo: [1, 2]\nui:\n  theme: dark\n")
    config, problems = _config(paths)
    assert config.hotkey.combo == Config().hotkey.combo and config.ui.theme == "dark"
    assert any(f"{paths.config_file}:2" in p for p in problems)
    assert not any("kept as" in p for p in problems)
    paths.config_file.write_text("hotkey: [unclosed\n")
    config, problems = _config(paths)
    assert config == Config()
    assert any(f"{paths.config_file}:" in p for p in problems)
    assert any("kept as" in p for p in problems)


def test_showing_the_overlay_many_times_keeps_python_alive(qtbot, tray: TrayApp) -> None:
    """Hundreds of hotkey presses must not eat references to None (PySide6 6.12.0 did, and the tray crashed)."""
    controller = tray.controller
    controller.show_overlay()
    controller.hide_overlay()
    before = sys.getrefcount(None)
    for _ in range(200):
        controller.show_overlay()
        controller.hide_overlay()
    assert sys.getrefcount(None) >= before - 100  # was about -11 per press: -2200


@wine_limit("no-posix-tools")
def test_icon_shows_waiting_while_the_model_thinks(
    qtbot, qapp: QApplication, paths: Paths, llm_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the overlay waits for the model the tray icon says so; the answer brings it back."""
    monkeypatch.setenv("TERMWISE_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("TERMWISE_MODEL", "test")
    monkeypatch.setenv("TERMWISE_API_KEY", "x")
    llm_server.reply('{"command": "echo hi", "explanation": "greets"}\n', delay=1.5)
    config = _config_no_hotkey()
    host = SessionHost(config, paths, termination=FAST_END, foreground=None)
    ipc = IpcServer(host, paths)
    ipc.start()
    app = TrayApp(qapp, config, paths, host, ipc)
    try:
        session = host.create("bash")
        _run(session, "ls /nonexistent-wait")
        host.set_active(session.id)
        app.controller.show_overlay()
        app.controller.submit("")
        qtbot.waitUntil(lambda: app.icon.state == "waiting", timeout=10000)
        assert "asking the model" in app.icon.tray.toolTip()
        with qtbot.waitSignal(app.controller.suggestion_shown, timeout=20000):
            pass
        qtbot.waitUntil(lambda: app.icon.state != "waiting", timeout=10000)
    finally:
        app.controller.hide_overlay()
        app.quit_now()


def test_language_switch_reaches_the_tray_menu(tray: TrayApp) -> None:
    """Choosing 简体中文 in Settings retranslates the tray menu at once."""
    config = _config_no_hotkey(language="zh_CN")
    try:
        tray.apply_config(config)
        titles = [a.text() for a in tray.menu.menu.actions() if not a.isSeparator()]
        assert titles[0] == "会话" and titles[-1] == "退出"
    finally:
        tray.apply_config(_config_no_hotkey(language="en"))
    assert tray.menu.quit_action.text() == "Quit"


def test_language_and_theme_switch_live_in_every_open_window(qtbot, tray: TrayApp) -> None:
    """Memory, deploy and settings windows that are open take 简体中文 and the dark palette at once."""
    from termwise.overlay.theme import DARK

    tray.open_memory()
    tray.open_deploy()
    tray.open_settings("")
    try:
        tray.apply_config(_config_no_hotkey(language="zh_CN", theme="dark"))
        memory, deploy, settings = (tray.windows[n] for n in ("memory", "deploy", "settings"))
        assert memory.windowTitle() == "Termwise 记忆" and memory.save_button.text() == "保存"
        assert deploy.windowTitle() == "从仓库部署" and deploy.plan_button.text() == "计划"
        assert settings.labels["Hotkey"].text() != "Hotkey"
        assert settings.isVisible() and memory.isVisible() and deploy.isVisible()
        window_colour = tray.app.palette().color(QPalette.ColorRole.Window).name()
        assert window_colour == DARK.background
        qtbot.waitUntil(
            lambda: memory.palette().color(QPalette.ColorRole.Window).name() == DARK.background
        )
    finally:
        tray.apply_config(_config_no_hotkey(language="en"))
    assert tray.windows["memory"].windowTitle() == "Termwise memory"


def test_apply_in_settings_logs_one_line_with_what_changed(qtbot, tray: TrayApp, caplog) -> None:
    """Apply in the Settings window: one "settings applied" line, carrying the new language,
    the overlay's theme and the window's fields (the journeys wait on it and click by it)."""
    caplog.set_level(logging.INFO)
    tray.open_settings("")
    settings = tray.windows["settings"]
    try:
        settings.theme.setCurrentIndex(settings.theme.findData("dark"))
        assert settings.apply()
        applied = [r for r in caplog.records if r.getMessage() == "settings applied"]
        assert len(applied) == 1
        event = getattr(applied[0], "event")  # noqa: B009 (set through `extra`)
        assert event["overlay_theme"] == "dark" and event["language"] == "en"
        assert set(event["fields"]) >= {"theme", "language", "apply", "close"}
    finally:
        tray.apply_config(_config_no_hotkey())


def test_settings_from_the_overlay_open_on_top_with_the_overlay_hidden(
    qtbot, tray: TrayApp
) -> None:
    """F2 in the overlay: the always-on-top overlay hides first, then Settings shows."""
    from PySide6.QtCore import Qt

    overlay = tray.controller.window
    tray.controller.show_overlay()
    assert overlay.isVisible()
    qtbot.keyClick(overlay.input, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: "settings" in tray.windows and tray.windows["settings"].isVisible())
    assert not overlay.isVisible()


@wine_limit("no-posix-tools")
def test_ctrl_c_is_not_a_failure(qtbot, tray: TrayApp) -> None:
    """A command the user interrupted (exit 130) does not nudge; a real failure after it does."""
    session = tray.host.create("bash")
    nudges: list[str] = []
    tray.nudge.failed.connect(lambda _sid, text: nudges.append(text))
    session.send_text("sleep 30", enter=True)
    qtbot.waitUntil(lambda: _has_child(session.pid, "sleep"), timeout=10000)
    last = session.last_block()
    session.write(b"\x03")
    block = session.wait_for_block(last.index if last else -1, 20)
    assert block is not None and block.exit_code == 130
    with qtbot.waitSignal(tray.nudge.failed, timeout=20000):
        _run(session, "false")
    assert nudges == ["`false` failed — press Ctrl+Alt+Space for a fix"]


def _has_child(pid: int, name: str) -> bool:
    """Whether process `pid` has a child called `name` (the command really started)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)
            comm = fields[0].split("(", 1)[1]
            ppid = int(fields[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and comm == name:
            return True
    return False
