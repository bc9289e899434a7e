"""Windows PTY backend: a thin adapter over pywinpty (ConPTY, else its WinPTY fallback)."""

from __future__ import annotations

import codecs
import os
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable

import winpty  # only imported on Windows (see spawn_pty)
from termwise.tray.host.pty.base import (
    DEFAULT_TERMINATION,
    ReapedStatus,
    TerminationPolicy,
    poll_until,
)

# taskkill answers in well under a second; a hung one must not hang us.
TASKKILL_TIMEOUT = 5.0
# ConPTY keeps its output pipe open after the child exits (until the pseudo console is
# closed), so pywinpty may never report EOF: while no output comes, look whether the
# child still runs this often, and once it ended, wait this long for trailing output.
READ_POLL = 0.25
EXIT_DRAIN = 0.5
# pywinpty's reader thread sends this for an empty read; over its TCP socket it can
# arrive glued to real output, where pywinpty no longer recognises it.
KEEPALIVE = "0011Ignore"
# pywinpty's backend numbers (winpty.enums.Backend), tried in this order.
BACKENDS = (("ConPTY", 0), ("WinPTY", 1))
# A marker cut in two by a socket read leaves a tail that starts it; that tail waits at
# most this long for the rest before it is passed on as ordinary output.
KEEPALIVE_TAIL_WAIT = 0.05


def split_keepalive_tail(text: str) -> tuple[str, str]:
    """(output, tail): `tail` is the end of `text` that is a proper prefix of KEEPALIVE,
    which the next read may complete; everything before it can go out now."""
    for size in range(min(len(text), len(KEEPALIVE) - 1), 0, -1):
        if KEEPALIVE.startswith(text[-size:]):
            return text[:-size], text[-size:]
    return text, ""


def command_line(program: str, args: list[str]) -> tuple[str, str | None]:
    """The (appname, cmdline) pair for pywinpty's PTY.spawn.

    pywinpty's ConPTY backend starts `appname + " " + cmdline` with no application
    name, so an unquoted program path with a space (Program Files\\PowerShell\\7) would
    reach the child cut at the space plus a stray first argument (pwsh then takes it
    for a script and exits). Quoting it (only when needed) keeps the program whole.
    """
    appname = subprocess.list2cmdline([program])
    return appname, (" " + subprocess.list2cmdline(args)) if args else None


class WindowsPty(ReapedStatus):
    """A child on a Windows pseudo console, behind the same interface as PosixPty.

    pywinpty reads through its own thread into a loopback socket and hands out `str`;
    this adapter turns that back into UTF-8 bytes, maps EOFError to b"", and never
    relies on its `close(force)` default (which differs from ptyprocess's).
    """

    def __init__(
        self, proc: winpty.PtyProcess, backend: str = "ConPTY", fallback: str = ""
    ) -> None:
        self._proc = proc
        # Which pseudo console runs the child, and why it is not ConPTY when it is not.
        self.backend = backend
        self.fallback_reason = fallback
        self.pid: int = int(proc.pid or 0)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._status: int | None = None
        self._closed = False
        self._tail = ""  # a possible start of a keep-alive marker, held for the next read

    @classmethod
    def spawn(
        cls,
        argv: list[str],
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        rows: int = 24,
        cols: int = 80,
    ) -> WindowsPty:
        # pywinpty's PtyProcess.spawn, except for the program's quoting (see command_line).
        environ = dict(os.environ) if env is None else dict(env)
        path = next((v for k, v in environ.items() if k.upper() == "PATH"), os.defpath)
        program = shutil.which(argv[0], path=path)
        if program is None:
            raise FileNotFoundError(f"the program was not found or is not executable: {argv[0]}")
        appname, cmdline = command_line(program, argv[1:])
        block = "".join(f"{key}={value}\0" for key, value in environ.items())
        chosen = os.environ.get("PYWINPTY_BACKEND")  # honoured as pywinpty does
        backends = [b for b in BACKENDS if chosen is None or str(b[1]) == chosen.strip()]
        failures: list[str] = []
        for name, number in backends or BACKENDS:
            # ConPTY first; where it cannot start (Windows before 10 1809, Wine), WinPTY.
            try:
                pty = winpty.PTY(cols, rows, backend=number)
                started = pty.spawn(appname, cmdline=cmdline, cwd=cwd or os.getcwd(), env=block)
            except winpty.WinptyError as exc:
                failures.append(f"{name}: {exc}")
                continue
            if not started:
                failures.append(f"{name}: the process did not start")
                continue
            return cls(winpty.PtyProcess(pty), name, "; ".join(failures))
        raise OSError(f"could not start {program} ({'; '.join(failures)})")

    def read(self, size: int = 65536) -> bytes:
        while True:
            if self._tail and not self._readable(KEEPALIVE_TAIL_WAIT):
                return self._release_tail()  # no rest came: it was ordinary output
            if not self._readable(READ_POLL):
                if self._reap() and not self._readable(EXIT_DRAIN):
                    return b""  # the child ended and its last output has been read
                continue
            try:
                text = self._proc.read(size)
            except (EOFError, OSError):
                return self._release_tail()  # then b"" on the next call
            text = self._tail + text
            if KEEPALIVE in text:
                text = text.replace(KEEPALIVE, "")
            text, self._tail = split_keepalive_tail(text)
            if text:  # pywinpty returns "" for its keep-alive packets
                return text.encode("utf-8", errors="surrogateescape")

    def _release_tail(self) -> bytes:
        tail, self._tail = self._tail, ""
        return tail.encode("utf-8", errors="surrogateescape")

    def _readable(self, timeout: float) -> bool:
        """Whether pywinpty's socket has output (or EOF) within `timeout` seconds."""
        try:
            ready, _, _ = select.select([self._proc.fileobj], [], [], timeout)
        except (OSError, ValueError):  # closed: let read() report the end
            return True
        return bool(ready)

    def write(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        if not text:
            return
        try:
            self._proc.write(text)
        except (EOFError, winpty.WinptyError):  # pywinpty's ways of saying it is gone
            raise BrokenPipeError("the process has ended") from None

    def resize(self, rows: int, cols: int) -> None:
        try:
            self._proc.setwinsize(rows, cols)
        except winpty.WinptyError as exc:  # not an OSError: callers expect one
            raise OSError(f"cannot resize the pseudo console: {exc}") from None

    def _reap(self) -> bool:
        if self._status is not None:
            return True
        if self._proc.isalive():
            return False
        status = self._proc.exitstatus
        self._status = int(status) if status is not None else -1
        return True

    def _kill_tree(self) -> None:
        args = ["taskkill", "/F", "/T", "/PID", str(self.pid)]
        flags = 0
        if sys.platform == "win32":  # a tray process must not flash a console window
            flags = subprocess.CREATE_NO_WINDOW
        try:
            subprocess.run(
                args,
                capture_output=True,
                timeout=TASKKILL_TIMEOUT,
                check=False,
                creationflags=flags,
            )
        except (OSError, subprocess.TimeoutExpired):
            pass

    def _terminate_process(self) -> None:
        try:  # os.kill with a plain signal is TerminateProcess on Windows
            os.kill(self.pid, signal.SIGTERM)
        except OSError:
            pass

    def terminate(self, policy: TerminationPolicy = DEFAULT_TERMINATION) -> int | None:
        # A console program in another (pseudo) console has no SIGHUP to receive and
        # ignores taskkill's polite WM_CLOSE, so the first step already ends the whole
        # tree; the next one is TerminateProcess for when taskkill itself is unavailable.
        steps: tuple[tuple[Callable[[], None], float], ...] = (
            (self._kill_tree, policy.hangup_grace),
            (self._terminate_process, policy.term_grace),
        )
        for step, grace in steps:
            if self._reap():
                break
            step()
            if poll_until(self._reap, grace):
                break
        if self._status is None:
            poll_until(self._reap, policy.kill_grace)
        return self._status

    def close(self) -> None:
        if self._closed:
            return
        if not self._reap():
            self.terminate()
        self._closed = True
        try:
            # force=False: the child is already gone, and pywinpty's own terminate
            # would sleep and signal again.
            self._proc.close(force=False)
        except OSError:
            pass
        # pywinpty's close() does nothing once isalive() saw the child gone, so its
        # sockets stay open; and its reader thread stays blocked in a read ConPTY never
        # ends, holding the pseudo console (and its conhost) alive. Release both.
        for sock in (self._proc.fileobj, getattr(self._proc, "_server", None)):
            try:
                if sock is not None:
                    sock.close()
            except OSError:
                pass
        try:
            self._proc.pty.cancel_io()
        except Exception:  # nothing pending, or a pywinpty without cancel_io
            pass
