"""Host memory: fewer allocator arenas, and freed memory handed back to the system.

CPython allocates every chunk of PTY output over 512 bytes with malloc. glibc gives
each reader thread an arena of its own (up to 8 per core) and keeps what is freed
there, so a host whose busy sessions have ended still holds their output's pages.
Capping the arenas and calling `malloc_trim` after a session ends gives them back
(measured in tests/bench/test_rss_bench.py). Elsewhere both are no-ops.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
from typing import Any

log = logging.getLogger(__name__)

M_ARENA_MAX = -8  # glibc's mallopt parameter number
ARENAS = 2

_libc: Any = None
_lock = threading.Lock()


def _glibc() -> Any:
    """The C library when it is glibc (ctypes loaded on first use), else None."""
    global _libc
    if _libc is None:
        _libc = False
        if sys.platform.startswith("linux"):
            import ctypes
            import os

            try:
                glibc = os.confstr("CS_GNU_LIBC_VERSION")
            except (ValueError, OSError):
                glibc = None
            if glibc:
                try:
                    _libc = ctypes.CDLL("libc.so.6")
                except OSError as exc:
                    log.debug("no C library to tune: %s", exc)
    return _libc or None


def limit_arenas(count: int = ARENAS) -> None:
    """Let the reader threads share `count` malloc arenas (call before they start)."""
    libc = _glibc()
    if libc is not None and not libc.mallopt(M_ARENA_MAX, count):
        log.debug("mallopt(M_ARENA_MAX) refused")


def give_back() -> None:
    """Free what only reference cycles still hold, then return free heap pages of every
    arena to the system."""
    # A forgotten session sits in cycles (its parser holds its bound methods); an idle
    # host allocates too little for the collector's own schedule to reach them soon.
    gc.collect()
    libc = _glibc()
    if libc is None:
        return
    with _lock:  # one trim at a time: several sessions may end together
        libc.malloc_trim(0)
