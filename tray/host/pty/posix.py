"""POSIX PTY backend: a thin adapter over `ptyprocess`."""

from __future__ import annotations

import errno
import os
import select
import signal
import sys
import time

if sys.platform == "win32":  # spawn_pty never imports this module there
    raise ImportError("the POSIX PTY backend does not run on Windows")

import ptyprocess
from termwise.tray.host.pty.base import (
    DEFAULT_TERMINATION,
    ReapedStatus,
    TerminationPolicy,
    poll_until,
)
from termwise.tray.host.pty.pace import FloodPace

# Dispositions a shell must start with, as under a terminal emulator. Ignored ones are
# inherited through exec: a tray started under `nohup` would give shells whose jobs
# ignore the hang-up and outlive their session.
_RESET_SIGNALS = tuple(
    getattr(signal, name)
    for name in (
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGTERM",
        "SIGPIPE",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGCHLD",
        "SIGXFSZ",
        "SIGALRM",
        "SIGUSR1",
        "SIGUSR2",
    )
    if hasattr(signal, name)
)


READ_BUFFER = 65536  # the most one read() returns
FIRST_BUFFER = 8192  # an idle or interactive shell's reads fit; a flood grows it
MORE_ROOM = 4096  # read on while this much room is left and output is waiting
# While a program prints line by line (the nap is on), a read that found less than this
# ends the gathering: the kernel is still moving its lines into the PTY's buffer, and a
# read that finds the buffer empty sleeps until the kernel is done. Large writes gather
# on: their output is already there (stopping early measured slower for them).
TRICKLE = 1024


def _default_signals() -> None:
    """In the child before exec: default dispositions and nothing blocked."""
    for sig in _RESET_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())


def session_members(sid: int, proc: str = "/proc") -> list[int]:
    """The processes of session `sid` (Linux /proc; elsewhere none are found)."""
    members = []
    try:
        names = os.listdir(proc)
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # ended meanwhile, or not ours to read
        # Fields after the command name, which may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 3 and fields[3] == str(sid).encode():
            members.append(int(name))
    return members


def hang_up_session(sid: int) -> None:
    """SIGHUP (and SIGCONT, for stopped jobs) to what is left of a shell's session."""
    for pid in session_members(sid):
        for sig in (signal.SIGHUP, signal.SIGCONT):
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                break


class PosixPty(ReapedStatus):
    """A child on a POSIX pseudo-terminal; the child leads its own session and group."""

    def __init__(self, proc: ptyprocess.PtyProcess) -> None:
        self._proc = proc
        self.pid: int = proc.pid
        self._status: int | None = None
        self._closed = False
        # One reader thread reads into this buffer and copies each chunk out at its size
        # (os.read would allocate the whole size per call and then shrink it). It starts
        # small: ten idle shells would otherwise hold 640 KiB nobody reads into.
        self._read_buf = memoryview(bytearray(FIRST_BUFFER))
        self._waiting = select.poll()
        self._waiting.register(proc.fd, select.POLLIN)
        # Non-blocking, so a flood is gathered by reading until the PTY has nothing more
        # (one empty read) instead of a poll before every read. Writes wait for room.
        os.set_blocking(proc.fd, False)
        self._room = select.poll()
        self._room.register(proc.fd, select.POLLOUT)
        # Linux only: the nap's sizes are set by a Linux PTY's capacity (see pace.py).
        self._pace = FloodPace() if sys.platform == "linux" else None

    @classmethod
    def spawn(
        cls,
        argv: list[str],
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        rows: int = 24,
        cols: int = 80,
    ) -> PosixPty:
        proc = ptyprocess.PtyProcess.spawn(
            argv, cwd=cwd, env=env, dimensions=(rows, cols), preexec_fn=_default_signals
        )
        return cls(proc)

    def read(self, size: int = READ_BUFFER) -> bytes:
        """Block for output, then take what else is already waiting, up to `size` bytes
        (one reader thread at a time: the buffer is reused)."""
        # Straight from the descriptor: ptyprocess's buffered file object adds a layer
        # and a method call per chunk on the hottest path.
        fd = self._proc.fd
        buf = self._read_buf if size <= READ_BUFFER else memoryview(bytearray(size))
        size = min(size, len(buf))
        n = 0
        waited = 0.0
        pace = self._pace
        if pace is not None and pace.nap:
            time.sleep(pace.nap)  # a flood of small writes: let the PTY gather them
        least = TRICKLE if pace is not None and pace.nap else 1
        try:
            while True:
                try:
                    n = os.readv(fd, (buf[:size],))
                    break
                except BlockingIOError:
                    began = time.perf_counter()
                    self._waiting.poll()  # nothing yet: sleep until output (or hang-up)
                    waited += time.perf_counter() - began
            # A PTY hands over at most a few KiB per read. While a program floods it,
            # more is there at once: gathering it makes one chunk for the parser, the
            # clients and the socket instead of several (3-4x fewer for `seq`).
            # Interactive echo pays one read that finds nothing.
            while n and size - n >= MORE_ROOM:
                more = os.readv(fd, (buf[n:size],))
                n += more
                if more < least:
                    break
        except BlockingIOError:
            pass  # all that was waiting has been read
        except OSError as exc:  # EIO: the child side closed; EBADF: closed under us
            if exc.errno not in (errno.EBADF, errno.EIO):
                raise
        if pace is not None:
            pace.after(n, waited, size)
        chunk = buf[:n].tobytes()
        if size == len(buf) < READ_BUFFER and n > size - MORE_ROOM and self._waiting.poll(0):
            # Full, and still more waiting: output is flooding in. (A shell's start-up
            # burst fills the small buffer at once but ends there: it stays small.)
            self._read_buf = memoryview(bytearray(READ_BUFFER))
        return chunk

    def fileno(self) -> int:
        """The PTY's master descriptor (-1 once closed)."""
        return int(self._proc.fd)

    def write(self, data: bytes) -> None:
        fd = self._proc.fd
        if fd < 0 or self._closed:
            raise BrokenPipeError("the terminal is closed")
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                self._room.poll(1000)  # the program is not reading its input yet
                continue
            view = view[n:]

    def resize(self, rows: int, cols: int) -> None:
        self._proc.setwinsize(rows, cols)

    def _reap(self) -> bool:
        """Collect the child's status without blocking; whether it has ended."""
        if self._status is not None:
            return True
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere; the status is lost
            self._status = -1
            self._tell_ptyprocess()
            return True
        if pid == 0:
            return False
        if os.WIFSIGNALED(status):
            self._status = 128 + os.WTERMSIG(status)
        elif os.WIFEXITED(status):
            self._status = os.WEXITSTATUS(status)
        else:  # stopped: still there
            return False
        self._tell_ptyprocess()
        return True

    def _tell_ptyprocess(self) -> None:
        # ptyprocess's own isalive() would call a blocking waitpid after EOF; mark the
        # child as gone so its close() and __del__ never try.
        self._proc.terminated = True
        self._proc.exitstatus = self._status

    def _signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:  # the leader may have left its group; reach it directly too
            os.kill(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def terminate(self, policy: TerminationPolicy = DEFAULT_TERMINATION) -> int | None:
        steps = (
            (signal.SIGHUP, policy.hangup_grace),
            (signal.SIGTERM, policy.term_grace),
            (signal.SIGKILL, policy.kill_grace),
        )
        signalled = False
        for sig, grace in steps:
            if self._reap():
                break
            self._signal_group(sig)
            signalled = True
            if poll_until(self._reap, grace):
                break
        if self._status is not None:
            # The shell is gone; children it left in its group must not outlive it.
            self._signal_group(signal.SIGKILL)
            if signalled:
                # A shell ended before it could hang up its jobs (their own groups)
                # leaves them running: hang them up as a closing terminal would.
                # `nohup` ones stay; so do jobs a shell that exited by itself left.
                hang_up_session(self.pid)
        return self._status

    def close(self) -> None:
        if self._closed:
            return
        if not self._reap():
            self.terminate()
        self._closed = True
        try:
            self._proc.fileobj.close()
        except OSError:
            pass
        self._proc.closed = True
        self._proc.fd = -1
