"""The session host on its Windows named pipe, across real Windows processes (Windows CI, Wine lane)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.tray.host.host import SessionHost
from termwise.tray.ipc import auth, transport
from termwise.tray.ipc.client import HostClient
from termwise.tray.ipc.protocol import MAX_REPLY, FrameReader, encode_json
from termwise.tray.ipc.server import IpcServer

from tests.tray.serve_support import ServeProcess, serve_fixture, termwise, wait_until

pytestmark = [
    pytest.mark.windows,
    pytest.mark.skipif(sys.platform != "win32", reason="Windows named pipes"),
]


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


def test_serve_sessions_send_and_context_across_processes(serve: ServeProcess) -> None:
    """`termwise serve` owns a cmd session; other processes list it, type into it, read it."""
    session = serve.client.create(shell="cmd", cols=240)  # a long prompt wraps at 80
    sid = str(session["id"])
    listed = termwise("sessions", timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert re.search(rf"^\s*{sid}\b.*cmd", listed.stdout, re.M), listed.stdout
    # Typing (no Enter: a cmd prompt cannot report its line, so the host would refuse
    # to press Enter for it) from one process, read back over the pipe by another.
    sent = termwise("send", "--session", sid, "echo hello-over-the-pipe", timeout=60)
    assert sent.returncode == 0, sent.stderr
    assert wait_until(
        lambda: "hello-over-the-pipe" in serve.client.context(sid).screen_text.replace("\n", ""),
        timeout=60,
        interval=0.5,
    )
    reply = serve.client.context(sid)
    shown = termwise("context", "--session", sid, timeout=60)
    assert shown.returncode == 0, shown.stderr
    if not reply.has_marks:
        # No command marks (Wine's console): the command says so and shows the screen.
        assert "no command marks" in shown.stdout, shown.stdout
        assert "hello-over-the-pipe" in shown.stdout.replace("\n", ""), shown.stdout
    assert serve.proc.poll() is None  # the host still serves


@pytest.fixture
def served(termwise_home: Path) -> Iterator[IpcServer]:
    paths = resolve_paths()
    host = SessionHost(Config(), paths, foreground=None)
    server = IpcServer(host, paths)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        host.shutdown()


def test_a_client_with_the_wrong_secret_is_refused(served: IpcServer) -> None:
    """Over the pipe, a wrong answer to the challenge gets "authentication failed" and the end."""
    stream = transport.connect(served.address, 10.0)
    stream.settimeout(10.0)
    reader = FrameReader(stream, MAX_REPLY)
    challenge = reader.read_json()
    assert challenge is not None and challenge["op"] == "challenge"
    stream.sendall(encode_json({"op": "auth", "mac": auth.prove(b"wrong", challenge["nonce"])}))
    assert reader.read_json() == {"ok": False, "error": "authentication failed", "kind": "Auth"}
    assert stream.recv(100) == b""  # the host hung up
    stream.close()
    # The right secret still gets in on the same pipe.
    with HostClient(resolve_paths()) as client:
        assert client.sessions() == []
