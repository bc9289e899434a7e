"""The Windows adapter's normalisation of pywinpty, checked on any platform.

pywinpty cannot be installed off Windows, so a stand-in with pywinpty's behaviour (read
from its loopback socket, "0011Ignore" keep-alive packets, EOFError at the end and on
writes to a dead child, `exitstatus` property, `close(force)` skipping its cleanup once
`isalive()` saw the child gone) exercises the adapter's own logic here; the contract
suite runs the real thing in Windows CI.
"""

from __future__ import annotations

import socket
import sys
import threading
import types

import pytest


class WinptyError(Exception):
    """pywinpty's native error: an Exception, not an OSError."""


class StandInWinpty:
    """Behaves like winpty.PtyProcess: output comes through a real socket pair, as from
    pywinpty's reader thread, and `read` decodes it the way pywinpty does."""

    def __init__(self) -> None:
        self.pid = 4242
        self.fileobj, self._feeder = socket.socketpair()
        self.pty = types.SimpleNamespace(cancel_io=self._cancel_io)
        self.cancelled = 0
        self.written: list[str] = []
        self.alive = True
        self.closed = False
        self.exitstatus: int | None = None
        self.closed_with: list[bool] = []
        self.size = (24, 80)
        self.pipe_broken = False

    # what the pseudo console would do
    def feed(self, data: bytes) -> None:
        self._feeder.sendall(data)

    def end_output(self) -> None:
        self._feeder.close()

    def _cancel_io(self) -> bool:
        self.cancelled += 1
        return True

    # pywinpty's PtyProcess surface
    def read(self, size: int = 1024) -> str:
        data = self.fileobj.recv(size)
        if not data:
            raise EOFError("Pty is closed")
        if data == b"0011Ignore":
            data = b""
        while data:
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                data += self.fileobj.recv(1)
        return ""

    def write(self, text: str) -> int:
        if not self.alive:
            raise EOFError("Pty is closed")
        if self.pipe_broken:  # died between pywinpty's isalive() and its write
            raise WinptyError("The pipe is being closed.")
        self.written.append(text)
        return len(text)

    def isalive(self) -> bool:
        self.closed = not self.alive  # as pywinpty does: close() then skips its cleanup
        return self.alive

    def setwinsize(self, rows: int, cols: int) -> None:
        self.size = (rows, cols)

    def close(self, force: bool = False) -> None:
        self.closed_with.append(force)
        if not self.closed:
            self.fileobj.close()


def read_all(pty, limit: float = 10.0) -> bytes:
    """Everything `pty` reads until b"", from a thread so a missing EOF fails in `limit` s."""
    got = bytearray()
    done = threading.Event()

    def pump() -> None:
        while chunk := pty.read():
            got.extend(chunk)
        done.set()

    threading.Thread(target=pump, daemon=True).start()
    if not done.wait(limit):
        raise AssertionError(f"no end of output within {limit} s; read {bytes(got)!r}")
    return bytes(got)


@pytest.fixture
def adapter(monkeypatch: pytest.MonkeyPatch):
    """The real tray/host/pty/windows.py, imported with the stand-in as its `winpty`."""
    fake = types.ModuleType("winpty")
    fake.PtyProcess = StandInWinpty  # type: ignore[attr-defined]
    fake.WinptyError = WinptyError  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "winpty", fake)
    monkeypatch.delitem(sys.modules, "termwise.tray.host.pty.windows", raising=False)
    from termwise.tray.host.pty import windows

    yield windows.WindowsPty
    sys.modules.pop("termwise.tray.host.pty.windows", None)  # bound to the stand-in: forget it


def test_reads_become_utf8_bytes_and_eof_is_empty(adapter) -> None:
    """str reads come back as UTF-8 bytes, keep-alive packets vanish, EOF is b""."""
    proc = StandInWinpty()
    pty = adapter(proc)
    proc.feed(b"0011Ignore")
    proc.feed("héllo ✓".encode())
    proc.feed(b"0011Ignore\x1b]133;A\x07")  # glued to output: pywinpty misses it
    proc.end_output()
    assert read_all(pty) == "héllo ✓\x1b]133;A\x07".encode()
    assert pty.read() == b""


def test_a_keepalive_marker_split_across_two_reads_is_still_removed(adapter) -> None:
    """Output before a half-arrived marker goes out at once; the marker's rest completes it."""
    proc = StandInWinpty()
    pty = adapter(proc)
    proc.feed(b"abc0011Ig")
    assert pty.read() == b"abc"  # not delayed by the held-back start of the marker
    proc.feed(b"nore def")
    assert pty.read() == b" def"
    proc.feed(b"0")
    proc.feed(b"011Ignore\x1b]133;A\x07")  # may arrive in one read or two: same result
    proc.end_output()
    assert read_all(pty) == b"\x1b]133;A\x07"


def test_output_that_merely_looks_like_the_start_of_a_marker_is_kept(adapter) -> None:
    """A chunk ending in "0011" with nothing after it is passed on, and nothing is lost at EOF."""
    proc = StandInWinpty()
    pty = adapter(proc)
    proc.feed(b"exit code 0011")
    assert pty.read() == b"exit code "
    assert pty.read() == b"0011"  # no rest came: released shortly, not at the next output
    proc.feed(b"total 001")
    proc.end_output()
    assert read_all(pty) == b"total 001"


def test_only_a_proper_prefix_of_the_marker_is_held_back(adapter) -> None:
    """The tail kept between reads is the longest end of the text that starts the marker."""
    from termwise.tray.host.pty.windows import split_keepalive_tail

    assert split_keepalive_tail("ls -l\r\n") == ("ls -l\r\n", "")
    assert split_keepalive_tail("abc0011Ignor") == ("abc", "0011Ignor")
    assert split_keepalive_tail("100") == ("1", "00")
    assert split_keepalive_tail("a01") == ("a01", "")  # "01" does not start the marker
    assert split_keepalive_tail("0011") == ("", "0011")
    assert split_keepalive_tail("") == ("", "")


def test_a_closed_socket_reads_as_eof(adapter) -> None:
    """A read on pywinpty's closed loopback socket is plain EOF, not an exception."""
    proc = StandInWinpty()
    proc.fileobj.close()
    assert adapter(proc).read() == b""


def test_output_ends_when_the_child_exits_even_if_conpty_keeps_the_pipe_open(adapter) -> None:
    """The child's last output is read, then b"" although no EOF ever comes."""
    proc = StandInWinpty()
    pty = adapter(proc)
    proc.feed(b"bye\r\n")
    proc.alive = False
    proc.exitstatus = 0
    assert read_all(pty) == b"bye\r\n"
    assert pty.exit_status == 0


def test_output_arriving_just_after_the_exit_is_kept(adapter) -> None:
    """Output the pseudo console flushes a moment after the child ended still arrives."""
    proc = StandInWinpty()
    pty = adapter(proc)
    proc.alive = False
    proc.exitstatus = 2
    late = threading.Timer(0.3, proc.feed, args=(b"late words",))
    late.start()
    try:
        assert read_all(pty) == b"late words"
    finally:
        late.cancel()


def test_writes_decode_utf8_across_calls(adapter) -> None:
    """A character split between two writes reaches pywinpty whole, as one str."""
    proc = StandInWinpty()
    pty = adapter(proc)
    data = "é✓\r\n".encode()
    pty.write(data[:1])
    pty.write(data[1:4])
    pty.write(data[4:])
    assert "".join(proc.written) == "é✓\r\n"
    assert all(proc.written)  # no empty writes for half characters


def test_write_to_an_ended_child_is_oserror(adapter) -> None:
    """pywinpty's EOFError on write becomes the OSError callers handle."""
    proc = StandInWinpty()
    proc.alive = False
    with pytest.raises(OSError):
        adapter(proc).write(b"dir\r\n")


def test_status_resize_and_close(adapter) -> None:
    """Exit status comes from the property once the child is gone; close never forces."""
    proc = StandInWinpty()
    pty = adapter(proc)
    pty.resize(30, 100)
    assert proc.size == (30, 100)
    assert pty.isalive() and pty.exit_status is None
    assert pty.wait(0.05) is None
    proc.alive = False
    proc.exitstatus = 3
    assert pty.wait(1) == 3 and pty.exit_status == 3 and not pty.isalive()
    pty.close()
    pty.close()
    assert proc.closed_with == [False]


def test_close_releases_the_socket_and_the_blocked_reader(adapter) -> None:
    """After the child ended, close still frees pywinpty's socket and cancels its read."""
    proc = StandInWinpty()
    pty = adapter(proc)
    proc.alive = False
    proc.exitstatus = 0
    assert not pty.isalive()  # pywinpty now thinks it is closed and would skip cleanup
    pty.close()
    assert proc.fileobj.fileno() == -1
    assert proc.cancelled == 1


def test_a_program_path_with_spaces_is_quoted_for_conpty(adapter) -> None:
    """pywinpty glues appname and cmdline unquoted; a spaced path must arrive quoted."""
    from termwise.tray.host.pty.windows import command_line

    pwsh = r"C:\Program Files\PowerShell\7\pwsh.exe"
    appname, cmdline = command_line(pwsh, ["-NoLogo", "-Command", "Write-Output 'a b'"])
    assert appname == '"' + pwsh + '"'
    assert cmdline == " -NoLogo -Command \"Write-Output 'a b'\""
    # A path without spaces and no arguments: exactly what pywinpty itself passes.
    assert command_line(r"C:\Windows\System32\cmd.exe", []) == (
        r"C:\Windows\System32\cmd.exe",
        None,
    )


def test_native_pywinpty_errors_become_oserror(adapter) -> None:
    """WinptyError from a write or a resize reaches callers as the OSError they handle."""
    proc = StandInWinpty()
    pty = adapter(proc)
    proc.pipe_broken = True
    with pytest.raises(BrokenPipeError):
        pty.write(b"dir\r\n")

    def refuse(rows: int, cols: int) -> None:
        raise WinptyError("The handle is invalid.")

    proc.setwinsize = refuse  # type: ignore[method-assign]
    with pytest.raises(OSError):
        pty.resize(10, 10)
