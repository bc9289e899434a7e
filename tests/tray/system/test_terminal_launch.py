"""Terminal windows: which program opens a session, and the attach command it runs."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from termwise.tray.errors import TrayError
from termwise.tray.system.terminal_launch import (
    NoTerminal,
    attach_argv,
    from_template,
    open_terminal,
    terminal_argv,
)

ATTACH = ["/opt/py/bin/python", "-m", "termwise.tray.commands.cli", "attach", "3"]


def only(*names: str):
    return lambda name: f"/usr/bin/{name}" if name in names else None


def test_linux_prefers_x_terminal_emulator_then_gnome_konsole_xterm() -> None:
    """The first emulator found on PATH wins, each with its own 'run this' flag."""
    assert terminal_argv(ATTACH, platform="linux", which=only("xterm", "konsole"))[:2] == [
        "/usr/bin/konsole",
        "-e",
    ]
    assert terminal_argv(ATTACH, platform="linux", which=only("gnome-terminal", "xterm")) == [
        "/usr/bin/gnome-terminal",
        "--",
        *ATTACH,
    ]
    assert (
        terminal_argv(ATTACH, platform="linux", which=only("x-terminal-emulator", "xterm"))[0]
        == "/usr/bin/x-terminal-emulator"
    )


def test_no_terminal_found_says_what_was_tried() -> None:
    """With no emulator installed the message lists them and points at the setting."""
    with pytest.raises(NoTerminal, match=r"xterm.*terminal\.command"):
        terminal_argv(ATTACH, platform="linux", which=only())


def test_windows_uses_windows_terminal_when_present_else_a_console() -> None:
    """wt.exe gets a new tab running attach; without it the attach command itself runs."""
    wt = terminal_argv(ATTACH, platform="win32", which=only("wt.exe"))
    assert wt[0] == "/usr/bin/wt.exe" and wt[-len(ATTACH) :] == ATTACH
    assert terminal_argv(ATTACH, platform="win32", which=only()) == ATTACH


def test_macos_opens_terminal_app_with_a_script(tmp_path: Path) -> None:
    """On macOS Terminal.app runs a small script that execs the attach command."""
    argv = terminal_argv(ATTACH, platform="darwin", which=only())
    assert argv[:3] == ["open", "-a", "Terminal"]
    script = Path(argv[3]).read_text()
    assert "exec /opt/py/bin/python -m termwise.tray.commands.cli attach 3" in script
    Path(argv[3]).unlink()


def test_template_fills_attach_quoted() -> None:
    """A user template gets the attach command quoted, so paths with spaces survive."""
    attach = ["/home/me/my tools/python", "-m", "termwise.tray.commands.cli", "attach", "1"]
    argv = from_template("alacritty --title tw -e {attach}", attach, "linux")
    assert argv == ["alacritty", "--title", "tw", "-e", *attach]
    line = from_template(
        "wezterm start -- {attach}", [r"C:\Program Files\T\termwise.exe", "attach", "1"], "win32"
    )
    assert line == [r'wezterm start -- "C:\Program Files\T\termwise.exe" attach 1']
    with pytest.raises(TrayError, match=r"no \{attach\}"):
        from_template("xterm -e", attach, "linux")


def test_attach_argv_calls_this_installation() -> None:
    """The window attaches with the same Python and package that run the tray."""
    assert attach_argv("7") == [sys.executable, "-m", "termwise.tray.commands.cli", "attach", "7"]


def test_open_terminal_runs_the_template_program(tmp_path: Path) -> None:
    """open_terminal starts the configured program with the attach command as its arguments."""
    out = tmp_path / "argv.txt"
    fake_terminal = tmp_path / "term.py"
    fake_terminal.write_text(
        textwrap.dedent(
            f"""
            import sys
            open({str(out)!r}, "w").write("\\n".join(sys.argv[1:]))
            """
        )
    )
    proc: subprocess.Popen[bytes] = open_terminal(
        "5", template=f"{sys.executable} {fake_terminal} -e {{attach}}"
    )
    assert proc.wait(timeout=20) == 0
    deadline = time.monotonic() + 5
    while not out.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.read_text().splitlines() == ["-e", *attach_argv("5")]


def test_open_terminal_missing_program_is_a_clear_error() -> None:
    """A template naming a program that does not exist fails with its name, no traceback."""
    with pytest.raises(TrayError, match="no-such-terminal-xyz"):
        open_terminal("1", template="no-such-terminal-xyz -e {attach}")
