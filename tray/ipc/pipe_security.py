"""Who may use the host's named pipe: an owner-only DACL, and a check of the server's user.

Pipe names are global to the machine. The host creates its pipe readable and writable by
its own user (and SYSTEM) only; a client checks that the process serving the pipe runs as
its own user, so a pipe created first by someone else is refused instead of trusted. The
secret-file handshake stays on top of both.
"""

from __future__ import annotations

import re
import sys

# A string SID as ConvertSidToStringSidW writes it: S-1-<authority>-<sub>-<sub>…
_SID = re.compile(r"S-1-\d+(?:-\d+)+", re.IGNORECASE)
SYSTEM_SID = "SY"  # SDDL's alias for LocalSystem


class ForeignPipeServer(PermissionError):
    """The process serving the pipe is not ours (another user's, or cannot be told)."""


def owner_only_sddl(user_sid: str) -> str:
    """A protected DACL granting all access to `user_sid` and SYSTEM, and nothing to others.

    "D:P" protects it from inherited entries; without any entry for Everyone or
    Authenticated Users, other users cannot even open the pipe for reading.
    """
    if not _SID.fullmatch(user_sid):
        raise ValueError(f"not a SID string: {user_sid!r}")
    return f"D:P(A;;GA;;;{user_sid.upper()})(A;;GA;;;{SYSTEM_SID})"


def same_user(our_sid: str, their_sid: str | None) -> bool:
    """Whether two string SIDs name the same account (None: the other side is unknown)."""
    if their_sid is None or not _SID.fullmatch(their_sid) or not _SID.fullmatch(our_sid):
        return False
    return their_sid.upper() == our_sid.upper()


def check_server_user(address: str, our_sid: str, server_sid: str | None, pid: int) -> None:
    """Refuse a pipe whose server runs as someone else (or whose user cannot be read)."""
    if same_user(our_sid, server_sid):
        return
    who = f"user {server_sid}" if server_sid else "a user Termwise cannot determine"
    raise ForeignPipeServer(
        f"refusing {address}: it is served by process {pid}, which runs as {who}, not as "
        f"you ({our_sid}); another program may have taken the name of your Termwise host"
    )


if sys.platform == "win32":
    import ctypes
    from collections.abc import Iterator
    from contextlib import contextmanager
    from ctypes import wintypes

    _k32 = ctypes.WinDLL("kernel32", use_last_error=True)
    _adv = ctypes.WinDLL("advapi32", use_last_error=True)

    TOKEN_QUERY = 0x0008
    TOKEN_USER_CLASS = 1  # TOKEN_INFORMATION_CLASS.TokenUser
    PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
    SDDL_REVISION_1 = 1
    ERROR_INSUFFICIENT_BUFFER = 122

    class SECURITY_ATTRIBUTES(ctypes.Structure):
        _fields_ = [
            ("nLength", wintypes.DWORD),
            ("lpSecurityDescriptor", ctypes.c_void_p),
            ("bInheritHandle", wintypes.BOOL),
        ]

    _k32.GetCurrentProcess.restype = wintypes.HANDLE
    _k32.GetCurrentProcess.argtypes = []
    _k32.OpenProcess.restype = wintypes.HANDLE
    _k32.OpenProcess.argtypes = [wintypes.DWORD, wintypes.BOOL, wintypes.DWORD]
    _k32.CloseHandle.restype = wintypes.BOOL
    _k32.CloseHandle.argtypes = [wintypes.HANDLE]
    _k32.LocalFree.restype = ctypes.c_void_p
    _k32.LocalFree.argtypes = [ctypes.c_void_p]
    _k32.GetNamedPipeServerProcessId.restype = wintypes.BOOL
    _k32.GetNamedPipeServerProcessId.argtypes = [wintypes.HANDLE, ctypes.POINTER(wintypes.ULONG)]
    _adv.OpenProcessToken.restype = wintypes.BOOL
    _adv.OpenProcessToken.argtypes = [
        wintypes.HANDLE,
        wintypes.DWORD,
        ctypes.POINTER(wintypes.HANDLE),
    ]
    _adv.GetTokenInformation.restype = wintypes.BOOL
    _adv.GetTokenInformation.argtypes = [
        wintypes.HANDLE,
        ctypes.c_int,
        ctypes.c_void_p,
        wintypes.DWORD,
        ctypes.POINTER(wintypes.DWORD),
    ]
    _adv.ConvertSidToStringSidW.restype = wintypes.BOOL
    _adv.ConvertSidToStringSidW.argtypes = [ctypes.c_void_p, ctypes.POINTER(wintypes.LPWSTR)]
    _adv.ConvertStringSecurityDescriptorToSecurityDescriptorW.restype = wintypes.BOOL
    _adv.ConvertStringSecurityDescriptorToSecurityDescriptorW.argtypes = [
        wintypes.LPCWSTR,
        wintypes.DWORD,
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(wintypes.ULONG),
    ]

    def _error(what: str) -> OSError:
        code = ctypes.get_last_error()
        err = OSError(code, f"{what}: {ctypes.FormatError(code)}")
        err.winerror = code  # type: ignore[misc]
        return err

    def _token_sid(token: int) -> str:
        """The string SID of the user a process token belongs to."""
        size = wintypes.DWORD(0)
        _adv.GetTokenInformation(token, TOKEN_USER_CLASS, None, 0, ctypes.byref(size))
        if ctypes.get_last_error() != ERROR_INSUFFICIENT_BUFFER or not size.value:
            raise _error("GetTokenInformation(TokenUser)")
        buf = ctypes.create_string_buffer(size.value)
        if not _adv.GetTokenInformation(
            token, TOKEN_USER_CLASS, buf, size.value, ctypes.byref(size)
        ):
            raise _error("GetTokenInformation(TokenUser)")
        # TOKEN_USER starts with SID_AND_ATTRIBUTES, whose first field is the PSID.
        sid = ctypes.cast(buf, ctypes.POINTER(ctypes.c_void_p))[0]
        text = wintypes.LPWSTR()
        if not _adv.ConvertSidToStringSidW(sid, ctypes.byref(text)):
            raise _error("ConvertSidToStringSid")
        try:
            return str(text.value)
        finally:
            _k32.LocalFree(ctypes.cast(text, ctypes.c_void_p))

    def _process_sid(process: int) -> str:
        token = wintypes.HANDLE()
        if not _adv.OpenProcessToken(process, TOKEN_QUERY, ctypes.byref(token)):
            raise _error("OpenProcessToken")
        try:
            return _token_sid(int(token.value or 0))
        finally:
            _k32.CloseHandle(token)

    def current_user_sid() -> str:
        """The string SID of the user this process runs as."""
        return _process_sid(int(_k32.GetCurrentProcess() or 0))

    def process_user_sid(pid: int) -> str | None:
        """The string SID of the user running process `pid`; None when it cannot be read
        (another user's process usually cannot even be opened)."""
        process = _k32.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, False, pid)
        if not process:
            return None
        try:
            return _process_sid(int(process))
        except OSError:
            return None
        finally:
            _k32.CloseHandle(process)

    @contextmanager
    def owner_only_attributes() -> Iterator[SECURITY_ATTRIBUTES]:
        """SECURITY_ATTRIBUTES with the owner-only DACL, valid inside the `with` block
        (CreateNamedPipeW copies the descriptor, so it can be freed right after)."""
        sddl = owner_only_sddl(current_user_sid())
        descriptor = ctypes.c_void_p()
        if not _adv.ConvertStringSecurityDescriptorToSecurityDescriptorW(
            sddl, SDDL_REVISION_1, ctypes.byref(descriptor), None
        ):
            raise _error("ConvertStringSecurityDescriptorToSecurityDescriptor")
        try:
            yield SECURITY_ATTRIBUTES(ctypes.sizeof(SECURITY_ATTRIBUTES), descriptor.value, False)
        finally:
            _k32.LocalFree(descriptor)

    def verify_server(handle: int, address: str) -> None:
        """Raise ForeignPipeServer unless the process serving this client end is ours."""
        pid = wintypes.ULONG(0)
        if not _k32.GetNamedPipeServerProcessId(handle, ctypes.byref(pid)):
            raise _error("GetNamedPipeServerProcessId")
        check_server_user(address, current_user_sid(), process_user_sid(pid.value), pid.value)
