"""A cross-process lock over the memory folder, atomic file writes and aside names."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from termwise.memory.errors import MemoryStoreError

if TYPE_CHECKING:
    from filelock import FileLock

LOCK_TIMEOUT = 30.0  # seconds; a writer holds it for milliseconds


class StoreLock:
    """Serialises writers across threads and processes (the tray and `termwise mem`)."""

    def __init__(self, path: Path, timeout: float = LOCK_TIMEOUT) -> None:
        self.path = path
        self.timeout = timeout
        self._thread_lock = threading.RLock()
        self._lazy_file_lock: FileLock | None = None

    @property
    def _file_lock(self) -> FileLock:
        # Made on first use: `filelock` costs a search that never writes ~10 ms of imports.
        if self._lazy_file_lock is None:
            from filelock import FileLock

            # Short polls: writers hold the lock for milliseconds, the default 50 ms poll
            # would make two busy writers crawl.
            self._lazy_file_lock = FileLock(
                str(self.path), timeout=self.timeout, thread_local=False, poll_interval=0.002
            )
        return self._lazy_file_lock

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        from filelock import Timeout

        with self._thread_lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._file_lock.acquire()
            except Timeout as exc:
                raise MemoryStoreError(
                    f"memory is locked by another Termwise process ({self.path}); "
                    f"gave up after {self.timeout:.0f} s"
                ) from exc
            try:
                yield
            finally:
                self._file_lock.release()


def atomic_write(
    path: Path, text: str | bytes | Sequence[bytes | memoryview], *, durable: bool = True
) -> None:
    """Write text (UTF-8), bytes or pieces of bytes so readers see the old file or the new
    one, never half of either."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        pieces: Sequence[bytes | memoryview] = [text.encode("utf-8")]
    elif isinstance(text, bytes):
        pieces = [text]
    else:
        pieces = text
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(pieces)
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
