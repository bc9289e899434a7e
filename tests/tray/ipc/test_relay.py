"""The attach relay: ordered, coalesced delivery; back-pressure; a stuck client is dropped."""

from __future__ import annotations

import os
import select
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from termwise.tray.ipc.client_terminal import open_client_terminal
from termwise.tray.ipc.protocol import KIND_DATA, KIND_JSON, MAX_REPLY, FrameReader, decode_json
from termwise.tray.ipc.relay import BLOCKING_WRITE, ClientSink

from tests.tray.serve_support import wait_until


def test_output_arrives_in_order_with_events_between() -> None:
    """Chunks and JSON events reach the client in the order they were queued."""
    a, b = socket.socketpair()
    sink = ClientSink(a)
    expected = b"".join(f"line {i}\r\n".encode() for i in range(2000))
    for i in range(1000):
        sink.push(f"line {i}\r\n".encode())
    sink.push_json({"event": "marker"})
    for i in range(1000, 2000):
        sink.push(f"line {i}\r\n".encode())
    sink.push_json({"event": "exit", "code": 3})
    sink.finish()
    reader = FrameReader(b, MAX_REPLY)
    data = bytearray()
    events: list[tuple[int, dict[str, object]]] = []
    frames = 0
    while len(events) < 2:
        frame = reader.read()
        assert frame is not None
        kind, payload = frame
        if kind == KIND_DATA:
            data += payload
            frames += 1
        else:
            assert kind == KIND_JSON
            events.append((len(data), decode_json(payload)))
    assert bytes(data) == expected
    assert events[0] == (
        len(b"".join(f"line {i}\r\n".encode() for i in range(1000))),
        {"event": "marker"},
    )
    assert events[1][1] == {"event": "exit", "code": 3}
    assert frames < 2000  # consecutive chunks were coalesced into fewer frames
    a.close()
    b.close()


def test_slow_client_pushes_back_then_a_stuck_one_is_dropped() -> None:
    """Past the high-water mark `push` waits for the client; one that never reads is dropped."""
    a, b = socket.socketpair()
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    sink = ClientSink(a, high_water=64 * 1024, low_water=16 * 1024, stall_limit=0.5)
    chunk = b"x" * 8192
    blocked = threading.Event()
    start = time.monotonic()

    def produce() -> None:
        for _ in range(200):
            sink.push(chunk)
            if sink.dead:
                blocked.set()
                return

    worker = threading.Thread(target=produce)
    worker.start()
    worker.join(10)
    assert not worker.is_alive()
    assert blocked.is_set() and sink.dead
    assert time.monotonic() - start >= 0.5  # it did wait for the client first
    b.close()


# Output written straight to the client's terminal ------------------------------------------
needs_pty = pytest.mark.skipif(sys.platform == "win32", reason="terminals are opened on POSIX")


def _terminal() -> tuple[int, int]:
    """A real terminal pair: (master the 'terminal emulator' reads, non-blocking slave
    opened by name as the host does)."""
    import pty
    import tty

    master, slave = pty.openpty()
    tty.setraw(slave)  # as the attach client leaves it
    fd = open_client_terminal(os.ttyname(slave))
    os.close(slave)
    assert fd is not None
    return master, fd


def _capacity() -> int:
    """How many bytes a terminal nobody reads takes before a write would wait."""
    master, fd = _terminal()
    total = 0
    try:
        while True:
            total += os.write(fd, b"z" * 4096)
    except BlockingIOError:
        return total
    finally:
        os.close(fd)
        os.close(master)


def _drain(master: int, want: int, timeout: float = 20.0) -> bytes:
    got = bytearray()
    deadline = time.monotonic() + timeout
    while len(got) < want and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            got += os.read(master, 65536)
    return bytes(got)


@needs_pty
def test_with_a_terminal_output_goes_to_it_and_events_to_the_connection_after_it() -> None:
    """Every byte reaches the terminal in order, none of it the connection; the exit
    event comes through the connection once the output before it is in the terminal."""
    master, fd = _terminal()
    a, b = socket.socketpair()
    sink = ClientSink(a, terminal=fd)
    expected = b"".join(f"line {i}\r\n".encode() for i in range(20000))
    got = bytearray()
    reader_done = threading.Event()

    def emulator() -> None:  # reads slower than the output comes, so output queues
        while len(got) < len(expected):
            time.sleep(0.001)
            got.extend(_drain(master, 1, 1.0))
        reader_done.set()

    threading.Thread(target=emulator, daemon=True).start()
    for i in range(20000):
        sink.push(f"line {i}\r\n".encode())
    sink.push_json({"event": "exit", "code": 3})
    sink.finish()
    frame = FrameReader(b, MAX_REPLY).read()
    assert frame is not None and frame[0] == KIND_JSON
    assert decode_json(frame[1]) == {"event": "exit", "code": 3}
    assert reader_done.wait(20)
    assert bytes(got) == expected
    sink.join(5)
    with pytest.raises(OSError):  # the writer closed its own descriptor of the terminal
        os.fstat(fd)
    os.close(master)
    a.close()
    b.close()


@needs_pty
def test_a_terminal_nobody_reads_is_dropped_and_the_client_told_through_the_connection() -> None:
    """A frozen terminal holds the shell only up to the stall limit; the writer then stops
    writing to it and the connection carries the notice."""
    master, fd = _terminal()
    a, b = socket.socketpair()
    sink = ClientSink(a, high_water=64 * 1024, low_water=16 * 1024, stall_limit=0.5, terminal=fd)
    chunk = b"x" * 8192
    done = threading.Event()

    def produce() -> None:
        for _ in range(200):
            sink.push(chunk)
            if sink.dead:
                break
        done.set()

    threading.Thread(target=produce, daemon=True).start()
    assert done.wait(10) and sink.dead
    frame = FrameReader(b, MAX_REPLY).read()
    assert frame is not None and decode_json(frame[1])["event"] == "dropped"
    sink.join(5)
    assert not sink._thread.is_alive()
    os.close(master)
    a.close()
    b.close()


@needs_pty
def test_a_terminal_that_closes_ends_the_client() -> None:
    """The emulator went away (EIO on write): the client is given up, not written on."""
    master, fd = _terminal()
    os.close(master)
    hung_up = threading.Event()
    a, b = socket.socketpair()
    sink = ClientSink(a, terminal=fd, on_dead=hung_up.set)
    sink.push(b"output for a closed terminal")
    assert hung_up.wait(5) and sink.dead
    a.close()
    b.close()


@needs_pty
def test_a_terminal_that_freezes_mid_write_holds_only_the_writer() -> None:
    """Writes to the terminal block (up to BLOCKING_WRITE at a time). A terminal that stops
    reading in the middle of one still lets the shell go on: the client is dropped at the
    stall limit. When the terminal reads again, the writer ends and only the rest of that
    one write reaches it, not the queue behind it."""
    held = _capacity()
    master, fd = _terminal()
    a, b = socket.socketpair()
    sink = ClientSink(a, high_water=1 << 20, low_water=256 * 1024, stall_limit=0.5, terminal=fd)
    reading = threading.Event()
    reading.set()
    got = bytearray()
    frozen_at = [0]

    def emulator() -> None:
        while True:
            if not reading.is_set():
                frozen_at[0] = frozen_at[0] or len(got)
                reading.wait()
            try:
                ready, _, _ = select.select([master], [], [], 0.05)
                if ready:
                    got.extend(os.read(master, 4096))
                    time.sleep(0.0005)  # slower than the producer: output queues
            except OSError:
                return

    threading.Thread(target=emulator, daemon=True).start()
    done = threading.Event()

    def produce() -> None:
        chunk = b"y" * 16384
        for i in range(4000):
            sink.push(chunk)
            if i == 40:
                reading.clear()  # the window freezes while the writer is busy
            if sink.dead:
                break
        done.set()

    threading.Thread(target=produce, daemon=True).start()
    assert done.wait(15) and sink.dead, "the shell was held by a frozen terminal"
    time.sleep(0.3)
    reading.set()
    sink.join(10)
    assert not sink._thread.is_alive(), "the writer did not end once the terminal read again"
    time.sleep(0.3)
    after_freeze = len(got) - frozen_at[0]
    # What the terminal held when it froze plus the rest of one write (and a few KiB the
    # kernel's buffer chunks may add), never the queue behind it (1 MB).
    assert after_freeze <= held + BLOCKING_WRITE + 8192, (after_freeze, held)
    frame = FrameReader(b, MAX_REPLY).read()
    assert frame is not None and decode_json(frame[1])["event"] == "dropped"
    os.close(master)
    a.close()
    b.close()


BACKGROUND_HOST = r"""
import os, socket, sys, time
from termwise.tray.ipc.client_terminal import open_client_terminal
from termwise.tray.ipc.relay import ClientSink

fd = open_client_terminal(os.ttyname(0))
assert fd is not None
a, b = socket.socketpair()
sink = ClientSink(a, terminal=fd)
for _ in range(64):
    sink.push(b"q" * 16384)
time.sleep(float(sys.argv[2]))  # the test reads a little meanwhile, then stops
sink.abort()  # as when the client is killed
sink.join(5)
with open(sys.argv[1], "w") as f:
    f.write("done")
"""


@pytest.mark.skipif(sys.platform != "linux", reason="blocking terminal writes are Linux only")
def test_a_host_in_the_background_of_the_terminal_it_writes_is_not_stopped(tmp_path: Path) -> None:
    """A host started with `&` in the very terminal a client attaches from: dropping that
    client mid-write must not stop the host (waking the write with tcflow there would
    raise SIGTTOU, whose default stops the process)."""
    from termwise.tray.host.pty.posix import PosixPty

    marker = tmp_path / "done"
    script = tmp_path / "host.py"
    script.write_text(BACKGROUND_HOST)
    # A session leader on a fresh terminal starts the "host" in a background group of it.
    leader = (
        "import os, subprocess, sys;"
        f"p = subprocess.Popen([sys.executable, {str(script)!r}, {str(marker)!r}, '1.5'],"
        " preexec_fn=os.setpgrp); sys.exit(p.wait())"
    )
    term = PosixPty.spawn([sys.executable, "-c", leader])
    try:
        time.sleep(0.8)  # the host fills the terminal and queues the rest
        fd = term.fileno()
        os.set_blocking(fd, False)
        try:
            os.read(fd, 8192)  # room: the host starts a write it cannot finish
        except BlockingIOError:
            pass
        assert wait_until(marker.exists, 15), (
            "the host was stopped (or hung) by dropping the client"
        )
    finally:
        term.close()
