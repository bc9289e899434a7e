"""Bytecode for Termwise's own modules (and the few libraries every start imports) where
nothing else writes it.

A source checkout (`uv run termwise`, an editable install) has no bytecode for our modules
until Python writes it on first import, and where PYTHONDONTWRITEBYTECODE=1 is set (many
developer machines, this one included) it never does: every `termwise check` then compiles
its ~25 modules again, 0.10 s instead of 0.055 s. The long-running tray and `serve` compile
them once at start, in a helper process, so the host's own memory stays as it was.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
import threading
from pathlib import Path

from termwise.tray.system.spawn_flags import helper_popen_options

log = logging.getLogger(__name__)
PACKAGES = ("termwise.tray", "termwise.agent", "termwise.memory", "termwise.overlay")
# Libraries every host and `termwise check` import at start. `uv sync` writes no bytecode
# for them unless told to (--compile-bytecode); without it each start compiles PyYAML and
# bashlex again (the idle host then holds about 1 MiB more).
DEPENDENCIES = ("yaml", "bashlex", "platformdirs", "filelock")


def source_folders() -> list[Path]:
    """The folders our packages and the libraries they start with are imported from, when
    they are plain, writable sources."""
    if getattr(sys, "frozen", False):  # the installed app: its code is in the bundle
        return []
    folders: list[Path] = []
    for name in (*PACKAGES, *DEPENDENCIES):
        spec = importlib.util.find_spec(name)  # where it lives, without running it
        if spec is not None and spec.submodule_search_locations:
            folders += [Path(p) for p in spec.submodule_search_locations]
    return [f for f in folders if f.is_dir() and os.access(f, os.W_OK)]


def compile_in_background(folders: list[Path] | None = None) -> int | None:
    """Start `python -m compileall` over `folders` (our sources by default); it writes only
    what is missing or stale. Its process id; None when there is nothing to compile or it
    cannot start."""
    folders = source_folders() if folders is None else folders
    if not folders:
        return None
    argv = [sys.executable, "-m", "compileall", "-q", *map(str, folders)]
    try:
        pid = _spawn(argv)
    except OSError as exc:  # a missing interpreter must not stop the tray from starting
        log.info("could not compile Termwise's modules ahead: %s", exc)
        return None
    if sys.platform != "win32":
        threading.Thread(target=_reap, args=(pid,), name="compileall-reaper", daemon=True).start()
    return pid


def _spawn(argv: list[str]) -> int:
    if sys.platform == "win32":
        import subprocess

        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            **helper_popen_options(),
        )
        return proc.pid
    # posix_spawn, not subprocess: the idle host never imports subprocess otherwise, and
    # importing it would cost every host about 0.1 MiB for one short helper.
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    return os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=quiet, setsid=True)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:  # someone else reaped it
        pass
