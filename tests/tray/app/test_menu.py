"""The tray menu: real sessions listed with shell, cwd and exit code; actions emit their requests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.overlay.i18n import set_language
from termwise.tray.app.menu import TrayMenu, session_label, short_cwd
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy
from termwise.tray.host.shells import available_shells

from tests.support.wine_limits import wine_limit

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)


@pytest.fixture
def host() -> Iterator[SessionHost]:
    set_language("en")
    h = SessionHost(Config(), resolve_paths().ensure(), termination=FAST_END, foreground=None)
    try:
        yield h
    finally:
        h.shutdown()


def _titles(menu) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


@wine_limit("no-posix-tools")
def test_sessions_show_shell_cwd_and_last_exit_code(qtbot, host: SessionHost, tmp_path) -> None:
    """A bash session whose last command failed is listed as 'id · bash · cwd · exit 2'."""
    session = host.create("bash", cwd=str(tmp_path))
    session.send_text("ls /nonexistent-termwise-dir", enter=True)
    block = session.wait_for_block(-1, timeout=20)
    assert block is not None and block.exit_code == 2
    menu = TrayMenu(host.list, available_shells)
    menu.refresh_sessions()
    labels = _titles(menu.sessions_menu)
    assert labels == [f"{session.id} · bash · {short_cwd(str(tmp_path))} · exit 2"]
    with qtbot.waitSignal(menu.open_session, timeout=1000) as chosen:
        menu.sessions_menu.actions()[0].trigger()
    assert chosen.args == [session.id]


@wine_limit("no-posix-tools")
def test_ended_session_is_marked_and_cannot_be_opened(qtbot, host: SessionHost) -> None:
    """A shell that exited stays listed as ended, greyed out."""
    session = host.create("bash")
    session.send_text("exit 3", enter=True)
    qtbot.waitUntil(lambda: not session.alive, timeout=20000)
    assert session_label(session).endswith("· ended")
    menu = TrayMenu(host.list, available_shells)
    action = menu.sessions_menu.actions()[0]
    assert not action.isEnabled()


def test_no_sessions_says_so(host: SessionHost) -> None:
    """With no shells yet the submenu says so instead of being empty."""
    menu = TrayMenu(host.list, available_shells)
    assert _titles(menu.sessions_menu) == ["No sessions yet"]


@wine_limit("no-posix-tools")
def test_new_session_lists_the_shells_found(qtbot, host: SessionHost) -> None:
    """New session ▸ offers exactly the shells on this machine; choosing one asks for it."""
    shells = available_shells()
    assert "bash" in shells
    menu = TrayMenu(host.list, available_shells)
    labels = _titles(menu.new_menu)
    assert len(labels) == len(shells) and "bash" in labels
    bash = next(a for a in menu.new_menu.actions() if a.text() == "bash")
    assert bash.toolTip() == shells["bash"]
    with qtbot.waitSignal(menu.new_session, timeout=1000) as chosen:
        bash.trigger()
    assert chosen.args == ["bash"]


def test_menu_items_and_their_requests(qtbot, host: SessionHost) -> None:
    """Every item of the tray menu is there, in order, and asks for its action."""
    menu = TrayMenu(host.list, available_shells)
    assert _titles(menu.menu) == [
        "Sessions",
        "New session",
        "Deploy from repository…",
        "Memory…",
        "Settings…",
        "Pause hotkey",
        "Open log folder",
        "Quit",
    ]
    for action, signal in (
        (menu.deploy_action, menu.deploy),
        (menu.memory_action, menu.memory),
        (menu.settings_action, menu.settings),
        (menu.logs_action, menu.open_logs),
        (menu.quit_action, menu.quit),
    ):
        with qtbot.waitSignal(signal, timeout=1000):
            action.trigger()
    with qtbot.waitSignal(menu.pause_toggled, timeout=1000) as paused:
        menu.pause_action.trigger()
    assert paused.args == [True] and menu.pause_action.isChecked()


@wine_limit("no-posix-tools")
def test_opening_the_menu_refreshes_sessions(qtbot, host: SessionHost) -> None:
    """A session started after the menu was built shows up when the menu opens."""
    menu = TrayMenu(host.list, available_shells)
    assert _titles(menu.sessions_menu) == ["No sessions yet"]
    session = host.create("bash")
    with qtbot.waitSignal(menu.shown, timeout=3000):
        menu.menu.popup(QPoint(10, 10))
    menu.menu.hide()
    assert _titles(menu.sessions_menu)[0].startswith(f"{session.id} · bash · ")


def test_long_cwd_keeps_its_tail() -> None:
    """Paths under home start with ~; very long ones keep their last part."""
    assert short_cwd("/home/me/src/app", home="/home/me") == "~/src/app"
    assert short_cwd(r"C:\Users\me\src", home="C:\\Users\\me") == r"~\src"
    assert short_cwd("/home/meg/src", home="/home/me") == "/home/meg/src"
    assert short_cwd("/home/me", home="/home/me/") == "~"
    long = "/srv/" + "x" * 80 + "/project"
    shown = short_cwd(long, home="/home/me")
    assert shown.startswith("…") and shown.endswith("/project") and len(shown) == 40
    assert short_cwd(None) == "?"
