"""Windows transport: an overlapped named pipe through ctypes (same surface as a socket).

Overlapped handles let one thread block in `recv` while another `sendall`s (a
synchronous handle would serialise the two). Only imported on Windows.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from ctypes import wintypes

from termwise.tray.ipc import pipe_security

assert sys.platform == "win32"

_k32 = ctypes.WinDLL("kernel32", use_last_error=True)

INVALID_HANDLE_VALUE = wintypes.HANDLE(-1).value
PIPE_ACCESS_DUPLEX = 0x00000003
FILE_FLAG_OVERLAPPED = 0x40000000
FILE_FLAG_FIRST_PIPE_INSTANCE = 0x00080000
PIPE_TYPE_BYTE = 0x00000000
PIPE_READMODE_BYTE = 0x00000000
PIPE_WAIT = 0x00000000
PIPE_REJECT_REMOTE_CLIENTS = 0x00000008
PIPE_UNLIMITED_INSTANCES = 255
GENERIC_READ = 0x80000000
GENERIC_WRITE = 0x40000000
OPEN_EXISTING = 3
INFINITE = 0xFFFFFFFF
WAIT_OBJECT_0 = 0
WAIT_TIMEOUT = 0x102
ERROR_FILE_NOT_FOUND = 2
ERROR_ACCESS_DENIED = 5
ERROR_BROKEN_PIPE = 109
ERROR_PIPE_BUSY = 231
ERROR_NO_DATA = 232
ERROR_PIPE_NOT_CONNECTED = 233
ERROR_MORE_DATA = 234
ERROR_OPERATION_ABORTED = 995
ERROR_IO_PENDING = 997
ERROR_PIPE_CONNECTED = 535
# Client side: let the server identify us but never impersonate us (a pipe squatter
# would otherwise act with our token).
SECURITY_SQOS_PRESENT = 0x00100000
SECURITY_IDENTIFICATION = 0x00010000
BUFFER_SIZE = 65536
_EOF_ERRORS = (ERROR_BROKEN_PIPE, ERROR_NO_DATA, ERROR_PIPE_NOT_CONNECTED, ERROR_OPERATION_ABORTED)


class OVERLAPPED(ctypes.Structure):
    _fields_ = [
        ("Internal", ctypes.c_void_p),
        ("InternalHigh", ctypes.c_void_p),
        ("Offset", wintypes.DWORD),
        ("OffsetHigh", wintypes.DWORD),
        ("hEvent", wintypes.HANDLE),
    ]


_k32.CreateNamedPipeW.restype = wintypes.HANDLE
_k32.CreateNamedPipeW.argtypes = [
    wintypes.LPCWSTR,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.DWORD,
    ctypes.c_void_p,
]
_k32.CreateFileW.restype = wintypes.HANDLE
_k32.CreateFileW.argtypes = [
    wintypes.LPCWSTR,
    wintypes.DWORD,
    wintypes.DWORD,
    ctypes.c_void_p,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.HANDLE,
]
_k32.CreateEventW.restype = wintypes.HANDLE
_k32.CreateEventW.argtypes = [ctypes.c_void_p, wintypes.BOOL, wintypes.BOOL, wintypes.LPCWSTR]
_k32.ConnectNamedPipe.restype = wintypes.BOOL
_k32.ConnectNamedPipe.argtypes = [wintypes.HANDLE, ctypes.POINTER(OVERLAPPED)]
_k32.ReadFile.restype = wintypes.BOOL
_k32.ReadFile.argtypes = [
    wintypes.HANDLE,
    ctypes.c_void_p,
    wintypes.DWORD,
    ctypes.POINTER(wintypes.DWORD),
    ctypes.POINTER(OVERLAPPED),
]
_k32.WriteFile.restype = wintypes.BOOL
_k32.WriteFile.argtypes = _k32.ReadFile.argtypes
_k32.GetOverlappedResult.restype = wintypes.BOOL
_k32.GetOverlappedResult.argtypes = [
    wintypes.HANDLE,
    ctypes.POINTER(OVERLAPPED),
    ctypes.POINTER(wintypes.DWORD),
    wintypes.BOOL,
]
_k32.WaitForMultipleObjects.restype = wintypes.DWORD
_k32.WaitForMultipleObjects.argtypes = [
    wintypes.DWORD,
    ctypes.POINTER(wintypes.HANDLE),
    wintypes.BOOL,
    wintypes.DWORD,
]
_k32.WaitForSingleObject.argtypes = [wintypes.HANDLE, wintypes.DWORD]
_k32.WaitForSingleObject.restype = wintypes.DWORD
_k32.CancelIoEx.restype = wintypes.BOOL
_k32.CancelIoEx.argtypes = [wintypes.HANDLE, ctypes.c_void_p]
_k32.CloseHandle.restype = wintypes.BOOL
_k32.CloseHandle.argtypes = [wintypes.HANDLE]
_k32.SetEvent.restype = wintypes.BOOL
_k32.SetEvent.argtypes = [wintypes.HANDLE]
_k32.WaitNamedPipeW.restype = wintypes.BOOL
_k32.WaitNamedPipeW.argtypes = [wintypes.LPCWSTR, wintypes.DWORD]
_k32.DisconnectNamedPipe.restype = wintypes.BOOL
_k32.DisconnectNamedPipe.argtypes = [wintypes.HANDLE]


def _error(code: int, what: str) -> OSError:
    err = OSError(code, f"{what}: {ctypes.FormatError(code)}")
    err.winerror = code  # type: ignore[misc]
    return err


def _event() -> int:
    handle = _k32.CreateEventW(None, True, False, None)
    if not handle:
        raise _error(ctypes.get_last_error(), "CreateEvent")
    return int(handle)


class PipeStream:
    """One end of a connected pipe, opened with FILE_FLAG_OVERLAPPED."""

    def __init__(self, handle: int, *, server: bool) -> None:
        self._handle = handle
        self._server = server
        self._read_event = _event()
        self._write_event = _event()
        self._timeout: float | None = None
        self._closed = False
        self._lock = threading.Lock()
        # Each direction has one event: two threads reading (or writing) at once would
        # wake on each other's completion, so each direction takes one caller at a time.
        self._recv_lock = threading.Lock()
        self._send_lock = threading.Lock()

    def settimeout(self, value: float | None) -> None:
        self._timeout = value

    def _wait(self, ov: OVERLAPPED, count: ctypes.c_ulong) -> int:
        """Wait for an overlapped operation; returns the bytes moved, 0 at end of stream."""
        ms = INFINITE if self._timeout is None else int(self._timeout * 1000)
        if _k32.WaitForSingleObject(ov.hEvent, ms) == WAIT_TIMEOUT:
            _k32.CancelIoEx(self._handle, ctypes.byref(ov))
            # Wait for the cancel to land (ov and the buffer must outlive the I/O); the
            # operation may have completed in the meantime, and then its bytes count.
            if (
                _k32.GetOverlappedResult(self._handle, ctypes.byref(ov), ctypes.byref(count), True)
                and count.value
            ):
                return int(count.value)
            raise TimeoutError("timed out waiting on the pipe")
        if not _k32.GetOverlappedResult(self._handle, ctypes.byref(ov), ctypes.byref(count), True):
            code = ctypes.get_last_error()
            if code in _EOF_ERRORS:
                return 0
            if code != ERROR_MORE_DATA:
                raise _error(code, "pipe I/O")
        return int(count.value)

    def recv(self, size: int) -> bytes:
        with self._recv_lock:
            return self._recv(size)

    def sendall(self, data: bytes) -> None:
        with self._send_lock:
            self._sendall(data)

    def _recv(self, size: int) -> bytes:
        if self._closed:
            return b""
        buf = ctypes.create_string_buffer(size)
        ov = OVERLAPPED(hEvent=self._read_event)
        count = wintypes.DWORD(0)
        ok = _k32.ReadFile(self._handle, buf, size, ctypes.byref(count), ctypes.byref(ov))
        if not ok:
            code = ctypes.get_last_error()
            if code in _EOF_ERRORS:
                return b""
            if code not in (ERROR_IO_PENDING, ERROR_MORE_DATA):
                raise _error(code, "ReadFile")
        n = self._wait(ov, count)
        return buf.raw[:n]

    def _sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            if self._closed:
                raise BrokenPipeError("pipe closed")
            chunk = bytes(view[: 1 << 20])
            ov = OVERLAPPED(hEvent=self._write_event)
            count = wintypes.DWORD(0)
            ok = _k32.WriteFile(
                self._handle, chunk, len(chunk), ctypes.byref(count), ctypes.byref(ov)
            )
            if not ok:
                code = ctypes.get_last_error()
                if code in _EOF_ERRORS:
                    raise BrokenPipeError("the other end closed the pipe")
                if code != ERROR_IO_PENDING:
                    raise _error(code, "WriteFile")
            n = self._wait(ov, count)
            if n == 0:
                raise BrokenPipeError("the other end closed the pipe")
            view = view[n:]

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        # Wake any thread blocked in recv/sendall before the handle goes away.
        _k32.CancelIoEx(self._handle, None)
        # No DisconnectNamedPipe: it discards what the peer has not read yet (a last
        # reply, the session's exit event). A plain close lets the peer read it all,
        # then see a broken pipe (end of stream).
        _k32.CloseHandle(self._handle)

    def __del__(self) -> None:
        # A stream dropped without close() must not leak its pipe handle (sockets don't).
        # The events may still be waited on by a thread that close() woke; free them last.
        try:
            self.close()
        except (AttributeError, OSError):  # __init__ failed half way
            return
        _k32.CloseHandle(self._read_event)
        _k32.CloseHandle(self._write_event)


def _create_instance(name: str, first: bool) -> int:
    mode = PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED
    if first:
        mode |= FILE_FLAG_FIRST_PIPE_INSTANCE
    # The default descriptor lets other users open the pipe for reading: ours admits only
    # this user and SYSTEM.
    with pipe_security.owner_only_attributes() as attributes:
        handle = _k32.CreateNamedPipeW(
            name,
            mode,
            PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS,
            PIPE_UNLIMITED_INSTANCES,
            BUFFER_SIZE,
            BUFFER_SIZE,
            0,
            ctypes.byref(attributes),
        )
        code = ctypes.get_last_error()
    if handle == INVALID_HANDLE_VALUE or not handle:
        if first and code == ERROR_ACCESS_DENIED:
            from termwise.tray.ipc.transport import AddressInUse

            # FILE_FLAG_FIRST_PIPE_INSTANCE: the name exists already, ours or not.
            raise AddressInUse(
                f"a Termwise host already listens at {name} (or another program took the name)"
            )
        raise _error(code, "CreateNamedPipe")
    return int(handle)


class PipeListener:
    """Named-pipe server: always keeps one idle instance so the name stays owned."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._pending = _create_instance(address, first=True)
        self._connect_event = _event()
        self._stop_event = _event()
        self._closed = False

    def accept(self) -> PipeStream:
        from termwise.tray.ipc.transport import ListenerClosed

        if self._closed:
            raise ListenerClosed
        handle = self._pending
        while not self._connect(handle):
            # A client came and went before we looked (ERROR_NO_DATA): the instance
            # must be disconnected before it can wait for the next client.
            _k32.DisconnectNamedPipe(handle)
        self._pending = _create_instance(self.address, first=False)
        return PipeStream(handle, server=True)

    def _connect(self, handle: int) -> bool:
        """Wait for a client on `handle`: True once one is connected, False if it left."""
        from termwise.tray.ipc.transport import ListenerClosed

        if self._closed:
            raise ListenerClosed
        ov = OVERLAPPED(hEvent=self._connect_event)
        if _k32.ConnectNamedPipe(handle, ctypes.byref(ov)):
            return True
        code = ctypes.get_last_error()
        if code == ERROR_PIPE_CONNECTED:
            return True
        if code == ERROR_NO_DATA:
            return False
        if code != ERROR_IO_PENDING:
            raise _error(code, "ConnectNamedPipe")
        handles = (wintypes.HANDLE * 2)(self._connect_event, self._stop_event)
        which = _k32.WaitForMultipleObjects(2, handles, False, INFINITE)
        count = wintypes.DWORD(0)
        if which != WAIT_OBJECT_0 or self._closed:
            _k32.CancelIoEx(handle, ctypes.byref(ov))
            # The kernel writes to `ov` until the cancel completes: wait for it.
            _k32.GetOverlappedResult(handle, ctypes.byref(ov), ctypes.byref(count), True)
            raise ListenerClosed
        if _k32.GetOverlappedResult(handle, ctypes.byref(ov), ctypes.byref(count), True):
            return True
        code = ctypes.get_last_error()
        if code in (ERROR_NO_DATA, ERROR_BROKEN_PIPE):
            return False
        raise _error(code, "ConnectNamedPipe")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        _k32.SetEvent(self._stop_event)

    def release(self) -> None:
        _k32.CloseHandle(self._pending)
        _k32.CloseHandle(self._connect_event)
        _k32.CloseHandle(self._stop_event)


def connect(address: str, timeout: float) -> PipeStream:
    """Open the client end; FileNotFoundError when no host owns the pipe, ForeignPipeServer
    (a PermissionError) when the process serving it runs as another user."""
    deadline = time.monotonic() + timeout
    while True:
        handle = _k32.CreateFileW(
            address,
            GENERIC_READ | GENERIC_WRITE,
            0,
            None,
            OPEN_EXISTING,
            FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION,
            None,
        )
        if handle and handle != INVALID_HANDLE_VALUE:
            try:  # whoever created the pipe first serves it: it must be this user's host
                pipe_security.verify_server(int(handle), address)
            except BaseException:
                _k32.CloseHandle(handle)
                raise
            return PipeStream(int(handle), server=False)
        code = ctypes.get_last_error()
        if code == ERROR_FILE_NOT_FOUND:
            raise FileNotFoundError(address)
        if code != ERROR_PIPE_BUSY or time.monotonic() > deadline:
            raise _error(code, "CreateFile on the host pipe")
        _k32.WaitNamedPipeW(address, max(1, int((deadline - time.monotonic()) * 1000)))
