"""How to call this very Termwise installation again: from a session's shell or a helper process."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

# Sessions get the host's own `termwise` program here, so the words typed at a prompt
# (`??`, `deploy`) reach the installation that runs the host, even where it is not on
# PATH (a `uv run` or venv install).
CMD_ENV = "TERMWISE_CMD"


def _frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def _frozen_console() -> str:
    """The frozen console program: inside the windowed tray (TermwiseTray.exe) that is
    the `termwise.exe` beside it, since a windowed program prints nothing."""
    beside = Path(sys.executable).with_name("termwise.exe")
    return str(beside) if sys.platform == "win32" and beside.is_file() else sys.executable


def termwise_program() -> str | None:
    """Absolute path of the `termwise` program of this installation, if one can be found."""
    if _frozen():
        return _frozen_console()
    # Not resolved: a venv's python is a symlink and its scripts sit beside the link.
    folder = Path(sys.executable).parent
    names = ("termwise.exe", "termwise") if sys.platform == "win32" else ("termwise",)
    for name in names:
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("termwise")
    return os.path.abspath(found) if found else None


def self_argv() -> list[str]:
    """argv prefix that runs this installation's command line (`… ask`, `… serve`)."""
    if _frozen():
        return [_frozen_console()]
    return [sys.executable, "-m", "termwise.tray.commands.cli"]
