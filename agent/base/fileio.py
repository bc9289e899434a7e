"""Atomic file writes and keep-aside names for the kernel's own files (config, approvals).

`memory/` keeps its own copy in `memory/lock.py`: the layout lets neither package import
the other's internals (memory imports nothing of ours; the kernel nothing but itself).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path


def atomic_write(path: Path, text: str, *, durable: bool = True) -> None:
    """Write text so readers see the old file or the new one, never half of either."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        _replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def free_aside_path(path: Path, tag: str, stamp: str) -> Path:
    """The first unused `<name>.<tag>-<stamp>[-n]` beside `path`, for keeping a file aside."""
    candidate = path.with_name(f"{path.name}.{tag}-{stamp}")
    n = 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.{tag}-{stamp}-{n}")
    return candidate


REPLACE_TRIES = 20
REPLACE_PAUSE = 0.05


def _replace(tmp: str, path: Path) -> None:
    """os.replace; on Windows a reader holding the file open makes it fail for a moment."""
    for attempt in range(REPLACE_TRIES):
        try:
            os.replace(tmp, path)
            return
        except PermissionError:
            if sys.platform != "win32" or attempt == REPLACE_TRIES - 1:
                raise
            time.sleep(REPLACE_PAUSE)
