"""The attach relay: ordered, coalesced delivery; back-pressure; a stuck client is dropped."""

from __future__ import annotations

import socket
import threading
import time

from termwise.tray.ipc.protocol import KIND_DATA, KIND_JSON, MAX_REPLY, FrameReader, decode_json
from termwise.tray.ipc.relay import ClientSink


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
