"""An attached client's own terminal, opened by the host so output goes straight to it.

Like tmux, which writes to its clients' terminals itself: a chunk of output then costs
one write, not a send, a wake-up of the client, a receive and a write. The client names
its terminal (`os.ttyname` of its output) when it attaches; the host opens that device
itself, with an open file of its own, so making it non-blocking does not touch the
client's (or its parent shell's) descriptor. Anything that is not a terminal of this
user is refused, and the output goes through the connection as before.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import sys

log = logging.getLogger(__name__)

# Pseudo-terminals (Linux and BSD /dev/pts/N, macOS /dev/ttysNNN) and Linux consoles.
# Checked before anything is opened: opening some devices has effects of its own (a
# watchdog starts counting), and the host may run as root. Never /dev/tty, which names
# the opener's own terminal. Any other terminal gets its output through the connection.
_TERMINAL = re.compile(r"/dev/(?:pts/\d{1,7}|ttys?\d{1,7})")


def terminal_name(fd: int) -> str | None:
    """The device of the terminal at `fd`, for the attach request (None: not one)."""
    if sys.platform == "win32":
        return None
    if os.environ.get("TERMWISE_DIRECT_OUTPUT") == "0":  # for comparing the two paths
        return None
    try:
        return os.ttyname(fd) if os.isatty(fd) else None
    except OSError:
        return None


def open_client_terminal(name: object, *, read: bool = False) -> int | None:
    """A non-blocking descriptor for writing to (or with `read`, reading from) the
    terminal `name`, or None (then output and keys go through the connection): not
    POSIX, no name, or not this user's terminal."""
    if sys.platform == "win32":
        return None
    if not isinstance(name, str):
        return None
    if not _TERMINAL.fullmatch(name):
        log.warning("ipc: not writing to %r: not a terminal device", name[:100])
        return None
    try:
        info = os.stat(name, follow_symlinks=False)
    except OSError as exc:
        log.info("ipc: output goes through the connection (%s: %s)", name, exc)
        return None
    if not _this_users_device(info):
        log.warning("ipc: not writing to %s: not a terminal of this user", name)
        return None
    # NOFOLLOW: a link put in its place since the check is not followed.
    flags = (
        (os.O_RDONLY if read else os.O_WRONLY)
        | os.O_NOCTTY
        | os.O_NONBLOCK
        | os.O_CLOEXEC
        | os.O_NOFOLLOW
    )
    try:
        fd = os.open(name, flags)
    except OSError as exc:
        log.info("ipc: output goes through the connection (cannot open %s: %s)", name, exc)
        return None
    try:
        if _this_users_device(os.fstat(fd)) and os.isatty(fd):  # still what was checked
            return fd
        log.warning("ipc: not writing to %s: not a terminal of this user", name)
    except OSError:
        pass
    os.close(fd)
    return None


def _this_users_device(info: os.stat_result) -> bool:
    """A character device owned by the user the host runs as."""
    if sys.platform == "win32":
        return False
    return stat.S_ISCHR(info.st_mode) and info.st_uid == os.getuid()
