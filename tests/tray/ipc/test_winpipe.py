"""The overlapped named-pipe transport against real Windows pipes (Windows CI)."""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Iterator

import pytest

pytestmark = [
    pytest.mark.windows,
    pytest.mark.skipif(sys.platform != "win32", reason="Windows named pipes"),
]


@pytest.fixture
def address() -> str:
    return rf"\\.\pipe\termwise-test-{uuid.uuid4().hex}"


@pytest.fixture
def listener(address: str) -> Iterator[object]:
    from termwise.tray.ipc import winpipe

    pipe = winpipe.PipeListener(address)
    yield pipe
    pipe.close()
    pipe.release()


def _accept_in_thread(listener) -> tuple[threading.Thread, list[object]]:
    got: list[object] = []

    def run() -> None:
        try:
            got.append(listener.accept())
        except BaseException as exc:  # handed to the test thread
            got.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, got


def test_a_client_that_leaves_before_accept_does_not_stop_the_listener(address, listener):
    """ConnectNamedPipe's ERROR_NO_DATA (client already gone) is skipped, not fatal."""
    from termwise.tray.ipc import winpipe

    early = winpipe.connect(address, 5.0)
    early.close()
    thread, got = _accept_in_thread(listener)
    client = winpipe.connect(address, 5.0)
    thread.join(10)
    assert got and isinstance(got[0], winpipe.PipeStream), got
    server = got[0]
    client.sendall(b"hello")
    server.settimeout(5.0)
    assert server.recv(100) == b"hello"
    server.sendall(b"back")
    client.settimeout(5.0)
    assert client.recv(100) == b"back"
    client.close()
    assert server.recv(100) == b""  # the client's close is end of stream
    server.close()


def test_close_wakes_a_pending_accept(listener):
    """close() ends an accept that waits for a client with ListenerClosed."""
    from termwise.tray.ipc.transport import ListenerClosed

    thread, got = _accept_in_thread(listener)
    thread.join(0.3)
    assert thread.is_alive()  # really waiting for a client
    listener.close()
    thread.join(10)
    assert got and isinstance(got[0], ListenerClosed), got


def test_a_timed_out_recv_leaves_the_stream_usable(address, listener):
    """A recv that times out cancels its read cleanly; later data still arrives whole."""
    from termwise.tray.ipc import winpipe

    thread, got = _accept_in_thread(listener)
    client = winpipe.connect(address, 5.0)
    thread.join(10)
    server = got[0]
    assert isinstance(server, winpipe.PipeStream), got
    server.settimeout(0.1)
    with pytest.raises(TimeoutError):
        server.recv(100)
    client.sendall(b"after the timeout")
    server.settimeout(5.0)
    data = b""
    while len(data) < len(b"after the timeout"):
        data += server.recv(100)
    assert data == b"after the timeout"
    client.close()
    server.close()


def test_one_host_per_pipe_name_and_no_host_is_file_not_found(address, listener):
    """A second listener on a taken name is AddressInUse; a missing pipe FileNotFoundError."""
    from termwise.tray.ipc import winpipe
    from termwise.tray.ipc.transport import AddressInUse

    with pytest.raises(AddressInUse):
        winpipe.PipeListener(address)
    with pytest.raises(FileNotFoundError):
        winpipe.connect(address + "-nobody", 1.0)


def test_a_reply_sent_just_before_close_still_reaches_the_client(address, listener):
    """Closing the server end keeps unread data for the client (a last error or exit event)."""
    from termwise.tray.ipc import winpipe

    thread, got = _accept_in_thread(listener)
    client = winpipe.connect(address, 5.0)
    thread.join(10)
    server = got[0]
    assert isinstance(server, winpipe.PipeStream), got
    last = b'{"event": "exit", "code": 3}' * 100
    server.sendall(last)
    server.close()
    client.settimeout(5.0)
    data = b""
    while chunk := client.recv(65536):
        data += chunk
    assert data == last
    client.close()


def test_two_threads_sending_at_once_each_get_their_bytes_through_whole(address, listener):
    """Concurrent sendall calls on one pipe end neither hang nor interleave their data."""
    from termwise.tray.ipc import winpipe

    thread, got = _accept_in_thread(listener)
    client = winpipe.connect(address, 5.0)
    thread.join(10)
    server = got[0]
    assert isinstance(server, winpipe.PipeStream), got
    size = 300_000  # several pipe buffers: each write really waits for the reader
    senders = [
        threading.Thread(target=server.sendall, args=(letter * size,), daemon=True)
        for letter in (b"a", b"b")
    ]
    for sender in senders:
        sender.start()
    client.settimeout(10.0)
    data = b""
    while len(data) < 2 * size:
        data += client.recv(65536)
    for sender in senders:
        sender.join(10)
    assert data in (b"a" * size + b"b" * size, b"b" * size + b"a" * size)
    client.close()
    server.close()


def test_a_stream_dropped_without_close_releases_the_pipe(address, listener):
    """Garbage-collecting an unclosed pipe end closes it: the peer reads end of stream."""
    import gc

    from termwise.tray.ipc import winpipe

    thread, got = _accept_in_thread(listener)
    client = winpipe.connect(address, 5.0)
    thread.join(10)
    assert isinstance(got[0], winpipe.PipeStream), got
    got.clear()  # the last reference to the server end
    gc.collect()
    client.settimeout(5.0)
    assert client.recv(100) == b""
    client.close()
