"""One request cannot wedge the host: bounded timeouts, handshake deadlines, sizes and depth checked."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from termwise.tray.errors import HostBusy
from termwise.tray.ipc import server as server_mod
from termwise.tray.ipc.client import HostClient, HostError
from termwise.tray.ipc.protocol import HEADER, KIND_JSON

from .conftest import Served

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Unix socket specifics")


@pytest.mark.parametrize("timeout", [float("nan"), -1, float("inf"), "10", True])
def test_wait_block_refuses_timeouts_that_are_not_finite_seconds(served: Served, timeout) -> None:
    """`timeout: NaN` once spun a host thread at 100 % CPU until the session ended."""
    session = served.host.create("bash")
    with HostClient(served.paths) as client:
        with pytest.raises(HostError, match="timeout must be"):
            client._request("wait_block", session=session.id, after_index=-1, timeout=timeout)
        assert client.ping() == os.getpid()  # the host goes on serving


@pytest.mark.timeout(60)
def test_a_huge_timeout_is_clamped_and_still_answers_when_a_block_arrives(served: Served) -> None:
    session = served.host.create("bash")
    with HostClient(served.paths) as client:
        before = client.context(session.id, 1)
        after = before[-1]["index"] if before else -1
        threading.Timer(0.5, lambda: session.send_text("echo clamped", enter=True)).start()
        reply = client._request("wait_block", session=session.id, after_index=after, timeout=1e300)
    assert reply["block"]["command"] == "echo clamped"


def test_nested_json_gets_an_error_frame_not_a_silent_close(served: Served) -> None:
    sock, reader = served.authed()
    payload = ("[" * 100_000 + "]" * 100_000).encode()
    sock.sendall(HEADER.pack(len(payload), KIND_JSON) + payload)
    reply = reader.read_json()
    assert reply is not None and reply["ok"] is False and "nested too deeply" in reply["error"]
    with HostClient(served.paths) as client:
        assert client.ping() == os.getpid()


@pytest.mark.parametrize(("rows", "cols"), [(-5, 80), (24, -1), (24, 70000), (10**9, 10)])
def test_out_of_range_sizes_are_refused_before_any_shell_starts(
    served: Served, rows: int, cols: int
) -> None:
    """A bad size once failed inside the forked child, which went on running host code."""
    with HostClient(served.paths) as client:
        with pytest.raises(HostError, match="must be a whole number from 1 to"):
            client.create("bash", rows=rows, cols=cols)
        assert client.sessions() == []
    children = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(os.getpid())], capture_output=True, text=True
    ).stdout.split()
    assert all(int(pid) != os.getpid() for pid in children)
    assert served.host.list() == []


FLOOD = r"""
import socket, sys, time
socks = []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sys.argv[1])
    except OSError:
        continue
    socks.append(s)
print("flooding", flush=True)
end = time.monotonic() + float(sys.argv[3])
while time.monotonic() < end:  # one byte of a never-finished frame every half second
    for s in socks:
        try:
            s.send(b"\x00")
        except OSError:
            pass
    time.sleep(0.5)
"""


@pytest.mark.timeout(60)
def test_a_trickling_flood_cannot_lock_a_real_client_out(served: Served) -> None:
    """100 peers that trickle their handshake byte by byte: a real client is still served in 1 s."""
    flood = subprocess.Popen(
        [sys.executable, "-c", FLOOD, served.server.address, "100", "12"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert flood.stdout is not None and flood.stdout.readline().strip() == "flooding"
        for _ in range(3):  # also after the handshake deadline has passed once
            start = time.monotonic()
            with HostClient(served.paths) as client:
                assert client.ping() == os.getpid()
            assert time.monotonic() - start < 1.0
            time.sleep(server_mod.HANDSHAKE_TIMEOUT / 2)
    finally:
        flood.kill()
        flood.wait(10)


def test_a_busy_host_says_busy_not_start_a_host(served: Served, monkeypatch) -> None:
    """When every slot is taken the client is told the host is busy (it runs; do not start one)."""
    monkeypatch.setattr(server_mod, "MAX_CONNECTIONS", 1)
    sock, _ = served.authed()  # holds the only slot
    try:
        with pytest.raises(HostBusy, match="busy"):
            with HostClient(served.paths) as client:
                client.ping()
    finally:
        sock.close()


def test_a_client_waits_out_a_moment_of_busy(served: Served, monkeypatch) -> None:
    """A slot freed a moment later is taken: the command works instead of saying busy."""
    monkeypatch.setattr(server_mod, "MAX_CONNECTIONS", 1)
    sock, _ = served.authed()  # holds the only slot
    threading.Timer(0.3, sock.close).start()
    start = time.monotonic()
    with HostClient(served.paths) as client:
        assert client.ping() == os.getpid()
    assert time.monotonic() - start >= 0.3
