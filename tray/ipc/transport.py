"""The byte streams under the IPC frames: a Unix socket (POSIX) or a named pipe (Windows).

Both sides see the same small surface: `listen(address)` → a listener whose
`accept()` blocks (no polling, so an idle host never wakes) until a client connects
or `close()` is called, and `connect(address)` → a connection with `recv`, `sendall`,
`settimeout` and `close`.
"""

from __future__ import annotations

import errno
import os
import selectors
import socket
import stat
import struct
import sys
import time
from pathlib import Path
from typing import Protocol

SOCKET_NAME = "host.sock"
# sockaddr_un.sun_path is 108 bytes on Linux, 104 on macOS, including the final NUL.
MAX_SOCKET_PATH = 103 if sys.platform == "darwin" else 107


class ListenerClosed(Exception):
    """`accept()` was interrupted by `close()`."""


class AddressInUse(Exception):
    """Another host already listens at this address."""


class Stream(Protocol):
    def recv(self, size: int) -> bytes: ...
    def sendall(self, data: bytes) -> None: ...
    def settimeout(self, value: float | None) -> None: ...
    def close(self) -> None: ...


class Listener(Protocol):
    address: str

    def accept(self) -> Stream: ...
    def close(self) -> None: ...
    def release(self) -> None: ...


def endpoint(runtime_dir: Path, platform: str = sys.platform, user: str | None = None) -> str:
    """Where the host of this user (and this TERMWISE_HOME) listens."""
    if platform == "win32":
        # Pipe names are global to the machine: make them per user and per runtime folder.
        folder = str(runtime_dir.resolve() if platform == sys.platform else runtime_dir)
        import hashlib  # only here: it loads OpenSSL

        digest = hashlib.sha256(folder.lower().encode()).hexdigest()[:16]
        user = user if user is not None else os.environ.get("USERNAME", "user")
        return rf"\\.\pipe\termwise-{user}-{digest}"
    return str(runtime_dir / SOCKET_NAME)


def peer_id(conn: object) -> int | None:
    """The process id at the other end of a local connection, where the OS tells (Linux)."""
    so_peercred = getattr(socket, "SO_PEERCRED", None)
    if so_peercred is None or not isinstance(conn, socket.socket):
        return None
    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, so_peercred, struct.calcsize("3i"))
    except OSError:
        return None
    pid = int(struct.unpack("3i", creds)[0])
    return pid or None


def secure_folder(folder: Path) -> None:
    """Create the runtime folder as user-only (0700) and tighten it if it is wider."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if sys.platform != "win32":
        mode = stat.S_IMODE(folder.stat().st_mode)
        if mode & 0o077:
            os.chmod(folder, 0o700)


if sys.platform == "win32":
    from termwise.tray.ipc import winpipe

    def listen(address: str) -> Listener:
        return winpipe.PipeListener(address)

    def connect(address: str, timeout: float = 5.0) -> Stream:
        return winpipe.connect(address, timeout)

else:

    class UnixListener:
        """A listening Unix socket (0600) whose `accept` can be interrupted by `close`."""

        def __init__(self, address: str) -> None:
            if len(os.fsencode(address)) > MAX_SOCKET_PATH:
                raise OSError(
                    errno.ENAMETOOLONG,
                    f"socket path is too long for a Unix socket ({address}); "
                    "set TERMWISE_HOME or XDG_RUNTIME_DIR to a shorter folder",
                )
            self.address = address
            secure_folder(Path(address).parent)
            _clear_stale(address)
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self._sock.bind(address)
                # The folder is already user-only; the mode is the second fence.
                os.chmod(address, 0o600)
                self._sock.listen(128)
            except BaseException:
                self._sock.close()
                raise
            self._wake_r, self._wake_w = os.pipe()
            self._selector = selectors.DefaultSelector()
            self._selector.register(self._sock, selectors.EVENT_READ)
            self._selector.register(self._wake_r, selectors.EVENT_READ)
            self._closed = False

        def accept(self) -> Stream:
            while True:
                if self._closed:
                    raise ListenerClosed
                for key, _ in self._selector.select():
                    if key.fileobj == self._wake_r:
                        raise ListenerClosed
                try:
                    conn, _ = self._sock.accept()
                except BlockingIOError:
                    continue
                except OSError:
                    if self._closed:
                        raise ListenerClosed from None
                    raise
                return conn

        def close(self) -> None:
            if self._closed:
                return
            self._closed = True
            os.write(self._wake_w, b"x")
            self._sock.close()
            try:
                if os.path.exists(self.address):
                    os.unlink(self.address)
            except OSError:
                pass

        def release(self) -> None:
            """Free the wake-up pipe once no thread can be inside `accept`."""
            self._selector.close()
            for fd in (self._wake_r, self._wake_w):
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _clear_stale(address: str) -> None:
        """Remove a socket file left by a host that died; refuse when one still answers."""
        if not os.path.exists(address):
            return
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.settimeout(1.0)
            probe.connect(address)
        except OSError:
            os.unlink(address)
            return
        finally:
            probe.close()
        raise AddressInUse(f"a Termwise host already listens at {address}")

    def listen(address: str) -> Listener:
        return UnixListener(address)

    def connect(address: str, timeout: float = 5.0) -> Stream:
        """Connect to the host; FileNotFoundError/ConnectionRefusedError when none listens."""
        deadline = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(address)
                sock.settimeout(None)
                return sock
            except BlockingIOError:
                # A full accept backlog (a burst of clients) answers EAGAIN at once on a
                # Unix socket instead of waiting: wait for room until the timeout.
                sock.close()
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)
            except BaseException:
                sock.close()
                raise
