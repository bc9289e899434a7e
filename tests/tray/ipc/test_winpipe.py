"""The overlapped named-pipe transport against real Windows pipes (Windows CI)."""

from __future__ import annotations

import re
import sys
import threading
import uuid
from collections.abc import Iterator

import pytest

from tests.support.wine_limits import wine_limit

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


@wine_limit("first-pipe-instance")
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


def _dacl_text(handle: int) -> str:
    """The DACL of a kernel object as SDDL, read through GetSecurityInfo."""
    if sys.platform == "win32":  # (mypy --platform win32 checks this branch)
        import ctypes
        from ctypes import wintypes

        adv = ctypes.WinDLL("advapi32", use_last_error=True)
        k32 = ctypes.WinDLL("kernel32", use_last_error=True)
        out = ctypes.POINTER(ctypes.c_void_p)
        adv.GetSecurityInfo.restype = wintypes.DWORD
        adv.GetSecurityInfo.argtypes = [
            wintypes.HANDLE, ctypes.c_int, wintypes.DWORD, out, out, out, out, out,
        ]  # fmt: skip
        adv.ConvertSecurityDescriptorToStringSecurityDescriptorW.restype = wintypes.BOOL
        adv.ConvertSecurityDescriptorToStringSecurityDescriptorW.argtypes = [
            ctypes.c_void_p,
            wintypes.DWORD,
            wintypes.DWORD,
            ctypes.POINTER(wintypes.LPWSTR),
            ctypes.POINTER(wintypes.ULONG),
        ]
        k32.LocalFree.restype = ctypes.c_void_p
        k32.LocalFree.argtypes = [ctypes.c_void_p]
        se_kernel_object, dacl_information = 6, 0x4
        descriptor = ctypes.c_void_p()
        code = adv.GetSecurityInfo(
            handle, se_kernel_object, dacl_information, None, None, None, None,
            ctypes.byref(descriptor),
        )  # fmt: skip
        assert code == 0, ctypes.FormatError(code)
        text = wintypes.LPWSTR()
        try:
            assert adv.ConvertSecurityDescriptorToStringSecurityDescriptorW(
                descriptor, 1, dacl_information, ctypes.byref(text), None
            ), ctypes.FormatError(ctypes.get_last_error())
            value = str(text.value)
            k32.LocalFree(ctypes.cast(text, ctypes.c_void_p))
            return value
        finally:
            k32.LocalFree(descriptor)
    raise AssertionError("Windows only")


FULL_ACCESS = {"GA", "FA", "0X1F01FF", "0X1F019F"}


def _aces(sddl: str) -> set[tuple[str, str, str]]:
    """(type, rights, trustee) of each entry; full access spelled one way."""
    found = re.findall(r"\(([A-Z]+);[^;]*;([^;]*);[^;]*;[^;]*;([^)]+)\)", sddl.upper())
    return {(kind, "full" if rights in FULL_ACCESS else rights, sid) for kind, rights, sid in found}


def test_the_pipe_admits_only_this_user_and_system(address, listener):
    """The pipe's DACL is protected and allows this user and SYSTEM only (no Everyone,
    no read access for other users), so only we can open it."""
    from termwise.tray.ipc import pipe_security, winpipe

    thread, got = _accept_in_thread(listener)
    client = winpipe.connect(address, 5.0)
    thread.join(10)
    try:
        sddl = _dacl_text(client._handle)
        assert sddl.startswith("D:P"), sddl
        trustees = set(re.findall(r"\(A;[^;]*;[^;]*;[^;]*;[^;]*;([^)]+)\)", sddl))
        assert trustees == {pipe_security.current_user_sid(), "SY"}, sddl
        # Read back, the DACL is the one the code meant to set: the same allow entries,
        # with GENERIC_ALL mapped to the pipe's full access (FA or its number).
        meant = pipe_security.owner_only_sddl(pipe_security.current_user_sid())
        assert _aces(sddl) == _aces(meant), (sddl, meant)
    finally:
        client.close()
        if got and isinstance(got[0], winpipe.PipeStream):
            got[0].close()


def test_the_client_checks_the_servers_user(address, listener):
    """Our own host passes the server check; a process of another account does not."""
    import os

    from termwise.tray.ipc import pipe_security, winpipe

    if sys.platform != "win32":
        return
    me = pipe_security.current_user_sid()
    assert pipe_security.process_user_sid(os.getpid()) == me
    thread, got = _accept_in_thread(listener)
    client = winpipe.connect(address, 5.0)  # verified inside: no ForeignPipeServer
    thread.join(10)
    pipe_security.verify_server(client._handle, address)
    client.close()
    if got and isinstance(got[0], winpipe.PipeStream):
        got[0].close()
    # PID 4 is the kernel's System process: never this user (usually not even readable).
    assert not pipe_security.same_user(me, pipe_security.process_user_sid(4))
    with pytest.raises(pipe_security.ForeignPipeServer):
        pipe_security.check_server_user(address, me, pipe_security.process_user_sid(4), 4)
