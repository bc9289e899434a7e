"""The IPC server: user-only socket, secret first, bad frames refused, host keeps serving."""

from __future__ import annotations

import os
import random
import socket
import stat
import threading
import time
from pathlib import Path

import pytest
from termwise.tray.errors import HostUnavailable
from termwise.tray.ipc import transport
from termwise.tray.ipc.client import HostClient
from termwise.tray.ipc.protocol import (
    HEADER,
    KIND_DATA,
    KIND_JSON,
    FrameReader,
    decode_json,
    encode_data,
    encode_json,
)

from .conftest import Served

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Unix socket specifics")


def _closed(sock: socket.socket) -> bool:
    """Whether the server closed the connection (reads hit end of stream)."""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_socket_is_user_only(served: Served) -> None:
    """The socket file is 0600 inside a 0700 folder."""
    path = Path(served.server.address)
    assert stat.S_ISSOCK(path.stat().st_mode)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_wrong_secret_is_rejected_and_closed(served: Served) -> None:
    """A client with the wrong secret gets "authentication failed" and a closed connection."""
    sock, reader, nonce = served.raw()
    from termwise.tray.ipc import auth

    sock.sendall(encode_json({"op": "auth", "mac": auth.prove(b"not the secret", nonce)}))
    reply = reader.read_json()
    assert reply == {"ok": False, "error": "authentication failed", "kind": "Auth"}
    assert _closed(sock)
    assert HostClient(served.paths).sessions() == []


def test_requests_before_auth_are_refused(served: Served) -> None:
    """Skipping the handshake gets nothing but a refusal."""
    sock, reader, _ = served.raw()
    sock.sendall(encode_json({"op": "sessions"}))
    reply = reader.read_json()
    assert reply is not None and reply["ok"] is False
    assert _closed(sock)


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        (encode_json({"op": "format_disk"}), "unknown op"),
        (HEADER.pack(5, KIND_JSON) + b"{nope", "malformed JSON"),
        (HEADER.pack(50 * 1024 * 1024, KIND_JSON), "over the"),
        (encode_data(b"raw bytes before attach"), "expected a JSON message"),
        (HEADER.pack(1, 77) + b"x", "unknown frame kind"),
    ],
)
def test_bad_requests_get_an_error_then_close(served: Served, frame: bytes, expected: str) -> None:
    """Unknown op, malformed JSON, oversized frame, stray data: error reply, then closed."""
    sock, reader = served.authed()
    sock.sendall(frame)
    reply = reader.read_json()
    assert reply is not None and reply["ok"] is False
    assert expected in reply["error"]
    assert _closed(sock)


def test_thousand_garbage_frames_leave_the_host_serving(served: Served) -> None:
    """A thousand connections of junk (before and after auth) and the host still answers."""
    rng = random.Random(1234)
    client = HostClient(served.paths)
    for i in range(1000):
        kind = i % 4
        if kind == 0:
            sock, _, _ = served.raw()
            junk = rng.randbytes(rng.randint(1, 300))
        elif kind == 1:
            sock, _ = served.authed()
            junk = rng.randbytes(rng.randint(1, 300))
        elif kind == 2:
            sock, _ = served.authed()
            junk = HEADER.pack(rng.randint(0, 4096), rng.choice([KIND_JSON, KIND_DATA, 0, 255]))
            junk += rng.randbytes(rng.randint(0, 64))
        else:
            sock, _ = served.authed()
            body = rng.randbytes(rng.randint(1, 64))
            junk = HEADER.pack(len(body), KIND_JSON) + body
        try:
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        sock.close()
        if i % 100 == 99:
            assert client.ping() == os.getpid()
    assert client.sessions() == []


def test_no_host_says_how_to_start_one(tmp_path: Path) -> None:
    """With nothing listening, a client is told to run `termwise serve`."""
    from termwise.agent.base.paths import resolve_paths

    with pytest.raises(HostUnavailable, match="termwise serve"):
        HostClient(resolve_paths()).sessions()


def test_a_second_host_is_refused_and_a_stale_socket_replaced(served: Served) -> None:
    """Two hosts cannot share the address; a socket file left by a dead host is cleared."""
    with pytest.raises(transport.AddressInUse):
        transport.listen(served.server.address)
    stale = Path(served.paths.runtime_dir) / "stale.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(stale))
    dead.close()  # the file stays, nobody listens
    listener = transport.listen(str(stale))
    try:
        assert stale.exists()
    finally:
        listener.close()
        listener.release()
    assert not stale.exists()


def test_stop_removes_the_socket(served: Served) -> None:
    """Stopping the server wakes its accept thread and removes the socket file."""
    address = served.server.address
    served.server.stop()
    assert not os.path.exists(address)
    with pytest.raises(HostUnavailable):
        HostClient(served.paths).ping()


def wait_until(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def _attach(served: Served, session_id: str) -> tuple[socket.socket, FrameReader]:
    sock, reader = served.authed()
    sock.sendall(encode_json({"op": "attach", "session": session_id, "rows": 20, "cols": 70}))
    reply = reader.read_json()
    assert reply is not None and reply["ok"] and reply["session"]["id"] == session_id
    return sock, reader


def _read_until(reader: FrameReader, needle: bytes) -> tuple[bytes, list[dict]]:
    data = b""
    events: list[dict] = []
    while needle not in data:
        frame = reader.read()
        assert frame is not None, f"closed before {needle!r}; got {data[-500:]!r}"
        kind, payload = frame
        if kind == KIND_DATA:
            data += payload
        else:
            events.append(decode_json(payload))
    return data, events


def test_attach_protocol_relays_both_ways_and_leaks_no_threads(
    served: Served, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Attached over the socket: typed bytes reach the shell, output comes back, resize and detach work, threads are reclaimed."""
    monkeypatch.setenv("HOME", str(tmp_path))
    session = served.host.create("bash")
    sock, reader = _attach(served, session.id)
    assert wait_until(lambda: session.client_count == 1)
    assert session.size == (20, 70)
    sock.sendall(encode_data(b"echo via-$((6 * 7))\r"))
    _read_until(reader, b"via-42")
    sock.sendall(encode_json({"op": "resize", "rows": 33, "cols": 99}))
    assert wait_until(lambda: session.size == (33, 99))
    sock.sendall(encode_json({"op": "detach"}))
    event: dict | None = None
    while event is None or "event" not in event:  # skip output frames still in flight
        frame = reader.read()
        assert frame is not None, "connection closed before the detach reply"
        if frame[0] == KIND_JSON:
            event = decode_json(frame[1])
    assert event == {"event": "detached"}
    assert _closed(sock)
    assert wait_until(lambda: session.client_count == 0)

    baseline = threading.active_count()
    for _ in range(20):
        sock, reader = _attach(served, session.id)
        sock.close()
    assert wait_until(lambda: session.client_count == 0)
    assert wait_until(lambda: threading.active_count() <= baseline)
    assert session.alive


def test_attached_client_gets_the_exit_code(
    served: Served, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """When the shell exits, the attached connection gets {"event": "exit", "code": N} and closes."""
    monkeypatch.setenv("HOME", str(tmp_path))
    session = served.host.create("bash")
    sock, reader = _attach(served, session.id)
    sock.sendall(encode_data(b"exit 9\r"))
    events: list[dict] = []
    while True:
        frame = reader.read()
        if frame is None:
            break
        if frame[0] == KIND_JSON:
            events.append(decode_json(frame[1]))
    assert events == [{"event": "exit", "code": 9}]
