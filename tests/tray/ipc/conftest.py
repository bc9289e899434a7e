"""A real session host served over a real socket, in-process."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import Paths, resolve_paths
from termwise.tray.host.host import SessionHost
from termwise.tray.ipc import auth
from termwise.tray.ipc.protocol import MAX_REPLY, FrameReader, encode_json
from termwise.tray.ipc.server import IpcServer


@dataclass
class Served:
    host: SessionHost
    server: IpcServer
    paths: Paths

    def raw(self) -> tuple[socket.socket, FrameReader, str]:
        """A bare connection that has read the challenge; returns (socket, reader, nonce).
        Like the real client, it asks again while the host says busy (slots of connections
        the test just dropped are freed by the host's threads a moment later)."""
        deadline = time.monotonic() + 10
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(10)
            sock.connect(self.server.address)
            reader = FrameReader(sock, MAX_REPLY)
            challenge = reader.read_json()
            if (
                challenge is not None
                and challenge.get("kind") == "Busy"
                and time.monotonic() < deadline
            ):
                sock.close()
                time.sleep(0.02)
                continue
            assert challenge is not None and challenge["op"] == "challenge", challenge
            return sock, reader, str(challenge["nonce"])

    def authed(self) -> tuple[socket.socket, FrameReader]:
        sock, reader, nonce = self.raw()
        secret = auth.read_secret(self.paths.runtime_dir)
        sock.sendall(encode_json({"op": "auth", "mac": auth.prove(secret, nonce)}))
        reply = reader.read_json()
        assert reply is not None and reply["ok"] is True
        return sock, reader


@pytest.fixture
def served() -> Iterator[Served]:
    paths = resolve_paths().ensure()
    host = SessionHost(Config(), paths)
    server = IpcServer(host, paths)
    server.start()
    try:
        yield Served(host, server, paths)
    finally:
        server.stop()
        host.shutdown()
