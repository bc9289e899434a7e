"""The behaviour every PTY backend must show; each backend's test class inherits it."""

from __future__ import annotations

import time

import pytest
from termwise.tray.host.pty import PtyProcess, TerminationPolicy, spawn_pty

QUICK = TerminationPolicy(hangup_grace=1.0, term_grace=1.0, kill_grace=2.0)


def read_until(pty: PtyProcess, needle: bytes, timeout: float = 10.0) -> bytes:
    """Read from `pty` until `needle` shows up or EOF/deadline; everything read."""
    import threading

    got = bytearray()
    done = threading.Event()

    def pump() -> None:
        while needle not in got:
            chunk = pty.read(4096)
            if not chunk:
                break
            got.extend(chunk)
        done.set()

    threading.Thread(target=pump, daemon=True).start()
    done.wait(timeout)
    return bytes(got)


def read_to_eof(pty: PtyProcess, timeout: float = 10.0) -> bytes:
    return read_until(pty, b"\x00never\x00", timeout)


class PtyContract:
    """Mixin: subclasses give the platform's commands; the assertions are shared."""

    def echo_argv(self, word: str) -> list[str]:
        raise NotImplementedError

    def shell_argv(self) -> list[str]:
        raise NotImplementedError

    def exit_argv(self, code: int) -> list[str]:
        raise NotImplementedError

    def stubborn_argv(self) -> list[str]:
        """A process that ignores every polite request to stop."""
        raise NotImplementedError

    def lingering_argv(self, marker: str) -> list[str]:
        """A process that, asked to stop, cleans up for a moment, then exits 7."""
        raise NotImplementedError

    first_step_status: int | None = None  # the status the policy's first step leaves
    size_command = b""  # prints "rows cols"
    compute_command = b"echo $((6*7))x"  # its output differs from its echo
    compute_needle = b"42x"
    newline = b"\n"

    @pytest.fixture
    def spawned(self):
        procs: list[PtyProcess] = []

        def spawn(argv: list[str], **kw) -> PtyProcess:
            proc = spawn_pty(argv, **kw)
            procs.append(proc)
            return proc

        yield spawn
        for proc in procs:
            proc.close()

    def test_output_of_a_short_program_then_eof(self, spawned):
        """A program's output arrives as bytes and the end reads as b"" (twice)."""
        pty = spawned(self.echo_argv("hello-pty"))
        out = read_to_eof(pty)
        assert b"hello-pty" in out
        assert pty.read() == b""
        assert pty.wait(5) == 0

    def test_input_is_echoed_and_executed(self, spawned):
        """Bytes written reach the shell: the command runs and its output comes back."""
        pty = spawned(self.shell_argv())
        pty.write(self.compute_command + self.newline)
        assert self.compute_needle in read_until(pty, self.compute_needle)

    def test_resize_is_seen_by_the_child(self, spawned):
        """After resize(30, 100) the child's terminal reports 30 rows, 100 columns."""
        pty = spawned(self.shell_argv(), rows=24, cols=80)
        pty.resize(30, 100)
        pty.write(self.size_command + self.newline)
        assert b"30 100" in read_until(pty, b"30 100")

    def test_exit_status(self, spawned):
        """`exit 3` gives exit status 3 through wait() and exit_status."""
        pty = spawned(self.exit_argv(3))
        read_to_eof(pty)
        assert pty.wait(5) == 3
        assert pty.exit_status == 3
        assert not pty.isalive()

    def test_wait_times_out_on_a_running_child(self, spawned):
        """wait() returns None after its timeout while the child still runs."""
        pty = spawned(self.shell_argv())
        start = time.monotonic()
        assert pty.wait(0.3) is None
        assert time.monotonic() - start < 3
        assert pty.isalive()
        assert pty.exit_status is None

    def test_terminate_a_child_that_exits_promptly(self, spawned):
        """A plain shell ends on the first, polite step of the policy."""
        pty = spawned(self.shell_argv())
        start = time.monotonic()
        status = pty.terminate(QUICK)
        assert status is not None
        assert not pty.isalive()
        if self.first_step_status is not None:
            assert status == self.first_step_status
        assert time.monotonic() - start < QUICK.hangup_grace + QUICK.term_grace

    def test_terminate_a_child_that_needs_kill(self, spawned):
        """A child ignoring the polite steps is still ended by the last one."""
        pty = spawned(self.stubborn_argv())
        read_until(pty, b"ready", 5)
        status = pty.terminate(QUICK)
        assert status is not None
        assert not pty.isalive()

    def test_terminate_lets_a_lingering_child_finish(self, spawned):
        """A child that takes a moment to clean up exits with its own code inside the grace."""
        pty = spawned(self.lingering_argv("ready"))
        read_until(pty, b"ready", 5)
        status = pty.terminate(TerminationPolicy(hangup_grace=5, term_grace=1, kill_grace=1))
        assert status == 7

    def test_write_after_close_raises_oserror(self, spawned):
        """Typing into a closed terminal fails with OSError, which callers already handle."""
        pty = spawned(self.shell_argv())
        pty.close()
        with pytest.raises(OSError):
            pty.write(b"echo late" + self.newline)
