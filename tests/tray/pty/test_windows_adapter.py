"""The Windows adapter's normalisation of pywinpty, checked on any platform.

pywinpty cannot be installed off Windows, so a stand-in with pywinpty's documented
behaviour (str reads, "" keep-alive reads, EOFError at the end and on writes to a dead
child, `exitstatus` property, `close(force)`) exercises the adapter's own logic here;
the contract suite runs the real thing in Windows CI.
"""

from __future__ import annotations

import sys
import types

import pytest


class StandInWinpty:
    """Behaves like winpty.PtyProcess for reads, writes, status and close."""

    def __init__(self, reads: list[str | type[BaseException]]) -> None:
        self.pid = 4242
        self._reads = list(reads)
        self.written: list[str] = []
        self.alive = True
        self.exitstatus: int | None = None
        self.closed_with: list[bool] = []
        self.size = (24, 80)

    def read(self, size: int = 1024) -> str:
        item = self._reads.pop(0) if self._reads else EOFError
        if isinstance(item, type):
            raise item("Pty is closed")
        return item

    def write(self, text: str) -> int:
        if not self.alive:
            raise EOFError("Pty is closed")
        self.written.append(text)
        return len(text)

    def isalive(self) -> bool:
        return self.alive

    def setwinsize(self, rows: int, cols: int) -> None:
        self.size = (rows, cols)

    def close(self, force: bool = False) -> None:
        self.closed_with.append(force)


@pytest.fixture
def adapter(monkeypatch: pytest.MonkeyPatch):
    """The real tray/pty/windows.py, imported with the stand-in as its `winpty`."""
    fake = types.ModuleType("winpty")
    fake.PtyProcess = StandInWinpty  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "winpty", fake)
    monkeypatch.delitem(sys.modules, "termwise.tray.pty.windows", raising=False)
    from termwise.tray.pty import windows

    yield windows.WindowsPty
    sys.modules.pop("termwise.tray.pty.windows", None)  # bound to the stand-in: forget it


def test_reads_become_utf8_bytes_and_eof_is_empty(adapter) -> None:
    """str reads come back as UTF-8 bytes, keep-alive "" reads are skipped, EOF is b""."""
    proc = StandInWinpty(["", "héllo ✓", "", "", "\x1b]133;A\x07", EOFError])
    pty = adapter(proc)
    assert pty.read() == "héllo ✓".encode()
    assert pty.read() == b"\x1b]133;A\x07"
    assert pty.read() == b""
    assert pty.read() == b""


def test_socket_errors_read_as_eof(adapter) -> None:
    """A read on pywinpty's closed loopback socket (OSError) is also plain EOF."""
    pty = adapter(StandInWinpty([OSError]))
    assert pty.read() == b""


def test_writes_decode_utf8_across_calls(adapter) -> None:
    """A character split between two writes reaches pywinpty whole, as one str."""
    proc = StandInWinpty([])
    pty = adapter(proc)
    data = "é✓\r\n".encode()
    pty.write(data[:1])
    pty.write(data[1:4])
    pty.write(data[4:])
    assert "".join(proc.written) == "é✓\r\n"
    assert all(proc.written)  # no empty writes for half characters


def test_write_to_an_ended_child_is_oserror(adapter) -> None:
    """pywinpty's EOFError on write becomes the OSError callers handle."""
    proc = StandInWinpty([])
    proc.alive = False
    with pytest.raises(OSError):
        adapter(proc).write(b"dir\r\n")


def test_status_resize_and_close(adapter) -> None:
    """Exit status comes from the property once the child is gone; close never forces."""
    proc = StandInWinpty([])
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
