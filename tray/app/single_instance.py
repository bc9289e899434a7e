"""One tray per user: the first listens on a QLocalServer; a second start forwards its request."""

from __future__ import annotations

import hashlib
import logging
import sys
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_MS = 500
REQUESTS = ("show", "settings", "memory", "deploy")


def server_name(runtime_dir: Path, platform: str = sys.platform) -> str:
    """The per-user name: a socket in the runtime folder, a hashed pipe name on Windows."""
    if platform == "win32":
        digest = hashlib.sha256(str(runtime_dir).lower().encode()).hexdigest()[:16]
        return f"termwise-tray-{digest}"
    return str(runtime_dir / "tray.sock")


def forward(name: str, request: str, timeout_ms: int = CONNECT_TIMEOUT_MS) -> bool:
    """Send `request` to a running tray; False when none answers."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(timeout_ms):
        return False
    socket.write(request.encode("utf-8") + b"\n")
    socket.waitForBytesWritten(timeout_ms)
    socket.disconnectFromServer()
    if socket.state() != QLocalSocket.LocalSocketState.UnconnectedState:
        socket.waitForDisconnected(timeout_ms)
    return True


class SingleInstance(QObject):
    """Listens for requests from later starts; `request(str)` fires on the GUI thread."""

    request = Signal(str)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._accept)

    def listen(self) -> bool:
        """Become the first instance; False when another tray already answers."""
        if forward(self.name, "ping"):
            return False
        QLocalServer.removeServer(self.name)  # a stale socket left by a crash
        if not self.server.listen(self.name):
            log.warning(
                "single instance: cannot listen on %s: %s", self.name, self.server.errorString()
            )
            return True  # run anyway: better two trays than none
        return True

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            conn = self.server.nextPendingConnection()
            conn.readyRead.connect(self._read)
            conn.disconnected.connect(self._read)

    def _read(self) -> None:
        conn = self.sender()
        if not isinstance(conn, QLocalSocket):
            return
        while conn.canReadLine():
            line = bytes(conn.readLine().data()).decode("utf-8", "replace").strip()
            if line in REQUESTS:
                log.info("request from another start: %s", line)
                self.request.emit(line)
        if conn.state() == QLocalSocket.LocalSocketState.UnconnectedState:
            conn.readyRead.disconnect(self._read)
            conn.disconnected.disconnect(self._read)
            conn.deleteLater()
