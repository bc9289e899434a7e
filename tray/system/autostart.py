"""Start at login: the HKCU Run key on Windows, an XDG autostart file on Linux, a LaunchAgent on macOS."""

from __future__ import annotations

import logging
import os
import plistlib
import subprocess
import sys
from pathlib import Path

from termwise.tray.errors import TrayError

log = logging.getLogger(__name__)

RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"
VALUE_NAME = "Termwise"  # the installer writes the same value
DESKTOP_NAME = "termwise.desktop"
AGENT_LABEL = "org.termwise.tray"


def tray_argv() -> list[str]:
    """How the login session should start the tray of this installation."""
    if getattr(sys, "frozen", False):
        exe = Path(sys.executable)
        tray = exe.with_name("TermwiseTray.exe") if sys.platform == "win32" else exe
        return [str(tray if tray.is_file() else exe)]
    return [sys.executable, "-m", "termwise.tray.commands.cli"]


def run_value(argv: list[str]) -> str:
    """The Run-key command line: `"<dir>\\TermwiseTray.exe"` when frozen."""
    return subprocess.list2cmdline(argv) if len(argv) > 1 else f'"{argv[0]}"'


def desktop_entry(argv: list[str]) -> str:
    exec_line = " ".join(_desktop_quote(a) for a in argv)
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Name=Termwise\n"
        "Comment=Terminal helper in the system tray\n"
        f"Exec={exec_line}\n"
        "Icon=utilities-terminal\n"
        "Terminal=false\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def _desktop_quote(arg: str) -> str:
    # The Desktop Entry spec: quote args with reserved characters, escape \ " ` $ inside.
    if arg and not any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`"):
        return arg
    inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return f'"{inner}"'


def linux_file(home: Path | None = None) -> Path:
    config = os.environ.get("XDG_CONFIG_HOME")
    base = Path(config) if config else (home or Path.home()) / ".config"
    return base / "autostart" / DESKTOP_NAME


def mac_file(home: Path | None = None) -> Path:
    return (home or Path.home()) / "Library" / "LaunchAgents" / f"{AGENT_LABEL}.plist"


def set_start_at_login(
    enabled: bool, *, platform: str = sys.platform, home: Path | None = None
) -> Path | str:
    """Write or remove the login entry; returns where it lives (raises TrayError on failure)."""
    argv = tray_argv()
    try:
        if platform == "win32":
            return _set_windows(enabled, argv)
        if platform == "darwin":
            path = mac_file(home)
            if enabled:
                path.parent.mkdir(parents=True, exist_ok=True)
                data = {"Label": AGENT_LABEL, "ProgramArguments": argv, "RunAtLoad": True}
                path.write_bytes(plistlib.dumps(data))
            else:
                path.unlink(missing_ok=True)
            return path
        path = linux_file(home)
        if enabled:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(desktop_entry(argv), encoding="utf-8")
        else:
            path.unlink(missing_ok=True)
        return path
    except OSError as exc:
        raise TrayError(f"cannot change start at login: {exc}") from None


def is_enabled(*, platform: str = sys.platform, home: Path | None = None) -> bool:
    if platform == "win32":
        return _read_windows() is not None
    return (mac_file(home) if platform == "darwin" else linux_file(home)).is_file()


def _set_windows(enabled: bool, argv: list[str]) -> str:
    if sys.platform == "win32":
        import winreg

        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
            if enabled:
                winreg.SetValueEx(key, VALUE_NAME, 0, winreg.REG_SZ, run_value(argv))
            else:
                try:
                    winreg.DeleteValue(key, VALUE_NAME)
                except FileNotFoundError:
                    pass
        return rf"HKCU\{RUN_KEY}\{VALUE_NAME}"
    raise TrayError("the Run key exists only on Windows")


def _read_windows() -> str | None:
    if sys.platform == "win32":
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, RUN_KEY) as key:
                value, _kind = winreg.QueryValueEx(key, VALUE_NAME)
                return str(value)
        except FileNotFoundError:
            return None
    return None


__all__ = ["desktop_entry", "is_enabled", "run_value", "set_start_at_login"]
