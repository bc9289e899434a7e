"""Start at login: the Linux autostart file, the macOS LaunchAgent and the Windows Run value."""

from __future__ import annotations

import plistlib
import shlex
import sys
from pathlib import Path

import pytest
from termwise.tray.system.autostart import (
    desktop_entry,
    is_enabled,
    run_value,
    set_start_at_login,
    tray_argv,
)


@pytest.fixture(autouse=True)
def _no_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def test_linux_autostart_file_starts_this_tray(tmp_path: Path) -> None:
    """Turning it on writes ~/.config/autostart/termwise.desktop running this tray; off removes it."""
    where = set_start_at_login(True, platform="linux", home=tmp_path)
    assert where == tmp_path / ".config" / "autostart" / "termwise.desktop"
    text = Path(where).read_text()
    exec_line = next(line for line in text.splitlines() if line.startswith("Exec="))
    assert shlex.split(exec_line[len("Exec=") :]) == [
        sys.executable,
        "-m",
        "termwise.tray.commands.cli",
    ]
    assert "Type=Application" in text and "Name=Termwise" in text
    assert is_enabled(platform="linux", home=tmp_path)
    set_start_at_login(False, platform="linux", home=tmp_path)
    assert not Path(where).exists()
    assert not is_enabled(platform="linux", home=tmp_path)
    set_start_at_login(False, platform="linux", home=tmp_path)  # already off: no error


def test_xdg_config_home_is_respected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user with XDG_CONFIG_HOME gets the file where their desktop looks."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert (
        set_start_at_login(True, platform="linux")
        == tmp_path / "cfg" / "autostart" / "termwise.desktop"
    )


def test_desktop_exec_quotes_paths_with_spaces() -> None:
    """A Python in a folder with spaces stays one argument in the Exec line."""
    entry = desktop_entry(["/home/me/my apps/python", "-m", "termwise.tray.commands.cli"])
    exec_line = next(line for line in entry.splitlines() if line.startswith("Exec="))
    assert shlex.split(exec_line[5:]) == [
        "/home/me/my apps/python",
        "-m",
        "termwise.tray.commands.cli",
    ]


def test_macos_launch_agent(tmp_path: Path) -> None:
    """On macOS a LaunchAgent plist runs the tray at load."""
    where = Path(set_start_at_login(True, platform="darwin", home=tmp_path))
    data = plistlib.loads(where.read_bytes())
    assert data["RunAtLoad"] is True and data["ProgramArguments"] == tray_argv()
    set_start_at_login(False, platform="darwin", home=tmp_path)
    assert not where.exists()


def test_windows_run_value_is_the_quoted_tray_exe() -> None:
    """The Run value is the frozen tray's path in quotes, the same the installer writes."""
    exe = r"C:\Users\me\AppData\Local\Programs\Termwise\TermwiseTray.exe"
    assert run_value([exe]) == f'"{exe}"'
    assert (
        run_value([r"C:\Py\python.exe", "-m", "termwise.tray.commands.cli"])
        == r"C:\Py\python.exe -m termwise.tray.commands.cli"
    )


def test_frozen_tray_argv_points_at_the_tray_exe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frozen install starts itself, not a Python interpreter."""
    exe = tmp_path / "termwise"
    exe.write_text("")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    assert tray_argv() == [str(exe)]
