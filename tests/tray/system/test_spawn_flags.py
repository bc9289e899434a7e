"""Background helpers start detached from the caller and, on Windows, without a console window."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from termwise.tray.system import spawn_flags
from termwise.tray.system.spawn_flags import helper_popen_options

ROOT = Path(__file__).resolve().parents[3]
HELPER_STARTERS = (
    "tray/ipc/launch.py",
    "tray/commands/deploy_word.py",
    "tray/commands/prompt_words.py",
)


def test_windows_helpers_get_a_hidden_console_not_a_detached_process() -> None:
    """The Windows flags ask for a windowless console and a process group, never DETACHED_PROCESS
    (pywinpty would then allocate a console and a window would flash)."""
    flags = helper_popen_options("win32")["creationflags"]
    assert flags & spawn_flags.CREATE_NO_WINDOW
    assert flags & spawn_flags.CREATE_NEW_PROCESS_GROUP
    assert not flags & spawn_flags.DETACHED_PROCESS
    assert helper_popen_options("linux") == {"start_new_session": True}


def test_helper_starters_take_their_flags_from_the_one_place() -> None:
    """No module that starts a PTY helper names DETACHED_PROCESS or its own creation flags."""
    for rel in HELPER_STARTERS:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        assert "helper_popen_options" in names, rel
        assert not names & {"DETACHED_PROCESS", "CREATE_NO_WINDOW", "creationflags"}, rel


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX sessions")
def test_a_helper_runs_in_its_own_session_on_posix() -> None:
    """A helper started with these options leads a new session (the terminal's hang-up misses it)."""
    if sys.platform == "win32":  # os.getsid is POSIX-only (and mypy --platform win32 knows)
        return
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)"], **helper_popen_options()
    )
    try:
        deadline = time.monotonic() + 10
        while os.getsid(proc.pid) != proc.pid and time.monotonic() < deadline:
            time.sleep(0.02)
        assert os.getsid(proc.pid) == proc.pid != os.getsid(0)
    finally:
        proc.kill()
        proc.wait(10)


# The child reports whether it already has a console (AllocConsole fails then, as it
# does inside pywinpty) and whether a console window of it is visible.
CONSOLE_PROBE = """
import ctypes
from ctypes import wintypes
k32 = ctypes.WinDLL("kernel32", use_last_error=True)
user32 = ctypes.WinDLL("user32", use_last_error=True)
k32.GetConsoleWindow.restype = wintypes.HWND
k32.GetConsoleWindow.argtypes = []
k32.AllocConsole.restype = wintypes.BOOL
k32.AllocConsole.argtypes = []
user32.IsWindowVisible.restype = wintypes.BOOL
user32.IsWindowVisible.argtypes = [wintypes.HWND]
hwnd = k32.GetConsoleWindow()
visible = bool(hwnd) and bool(user32.IsWindowVisible(hwnd))
allocated = bool(k32.AllocConsole())
print(f"visible={visible} allocated={allocated}", flush=True)
"""


@pytest.mark.windows
@pytest.mark.skipif(sys.platform != "win32", reason="Windows consoles")
def test_a_helper_has_a_console_but_no_window_on_windows() -> None:
    """The helper already owns a console (pywinpty allocates none) and shows no window."""
    assert spawn_flags.CREATE_NO_WINDOW == subprocess.CREATE_NO_WINDOW  # type: ignore[attr-defined]
    assert spawn_flags.DETACHED_PROCESS == subprocess.DETACHED_PROCESS  # type: ignore[attr-defined]
    assert spawn_flags.CREATE_NEW_PROCESS_GROUP == subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
    done = subprocess.run(
        [sys.executable, "-c", CONSOLE_PROBE],
        capture_output=True,
        text=True,
        timeout=60,
        **helper_popen_options(),
    )
    assert done.stdout.strip() == "visible=False allocated=False", done.stdout + done.stderr
