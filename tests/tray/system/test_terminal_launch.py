"""Terminal windows: which program opens a session, and the attach command it runs."""

from __future__ import annotations

import random
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
    split_windows_command,
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
    # Split into the program and its arguments (a one-element list would make CreateProcess
    # look for a program named after the whole line).
    assert line == ["wezterm", "start", "--", r"C:\Program Files\T\termwise.exe", "attach", "1"]
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


# Characters that matter to the Windows splitting rules, plus ordinary and non-ASCII ones.
TRICKY = ' \t\\"ab\u00e9\u4e2d-'


def test_split_windows_command_inverts_list2cmdline() -> None:
    """Any argv joined the Windows way splits back into the same argv (quotes, backslashes)."""
    rng = random.Random(13)
    for _ in range(3000):
        argv = ["".join(rng.choices(TRICKY, k=rng.randint(0, 8))) for _ in range(rng.randint(0, 5))]
        assert split_windows_command(subprocess.list2cmdline(argv)) == argv


def test_split_windows_command_never_raises_and_stays_linear() -> None:
    """Any text typed into terminal.command splits without an exception, in one pass."""
    rng = random.Random(7)
    for _ in range(3000):
        line = "".join(rng.choices(TRICKY + "\x00\n", k=rng.randint(0, 40)))
        assert isinstance(split_windows_command(line), list)
    # Long runs of backslashes and quotes are consumed in one pass, not rescanned.
    big = "\\" * 200_000 + '"' * 200_000
    assert len(split_windows_command(big)) == 1


def test_split_windows_command_examples() -> None:
    """The C runtime's rules: quotes group, backslashes only count before a quote."""
    assert split_windows_command(r'wt.exe -d "C:\my dir\\" x') == [
        "wt.exe",
        "-d",
        "C:\\my dir\\",
        "x",
    ]
    assert split_windows_command(r'a\\\"b "c""d" ""') == ['a\\"b', 'c"d', ""]
    assert split_windows_command("  spaced\targs  ") == ["spaced", "args"]
