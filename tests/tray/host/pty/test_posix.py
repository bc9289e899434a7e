"""The PTY contract on POSIX (ptyprocess), plus process-group behaviour."""

from __future__ import annotations

import os
import re
import signal
import sys
import time

import pytest
from termwise.tray.host.pty import TerminationPolicy, spawn_pty

from tests.tray.host.pty.contract import PtyContract, read_to_eof, read_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX backend")

TRAP_ALL = "trap '' HUP TERM INT"


class TestPosixPty(PtyContract):
    size_command = b"stty size"
    first_step_status = 128 + 1  # killed by SIGHUP

    def echo_argv(self, word: str) -> list[str]:
        return ["echo", word]

    def shell_argv(self) -> list[str]:
        return ["sh"]

    def exit_argv(self, code: int) -> list[str]:
        return ["sh", "-c", f"exit {code}"]

    def stubborn_argv(self) -> list[str]:
        return ["sh", "-c", f"{TRAP_ALL}; echo ready; while :; do sleep 0.05; done"]

    def lingering_argv(self, marker: str) -> list[str]:
        return [
            "sh",
            "-c",
            f"trap 'sleep 0.5; exit 7' HUP; echo {marker}; while :; do sleep 0.05; done",
        ]

    def test_killed_by_signal_reports_128_plus_signal(self, spawned):
        """A child killed by SIGKILL reports 137, the shell convention."""
        pty = spawned(["sh", "-c", f"{TRAP_ALL}; echo ready; while :; do sleep 0.05; done"])
        read_until(pty, b"ready")
        assert pty.terminate(TerminationPolicy(0.2, 0.2, 2.0)) == 128 + 9

    def test_terminate_reaches_the_whole_process_group(self, spawned):
        """A background child of the shell does not survive the shell's termination."""
        pty = spawned(["sh", "-c", "sleep 60 & echo child=$!; wait"])
        out = read_until(pty, b"\n", 5)
        while b"child=" not in out or not out.rstrip().split(b"child=")[-1].strip().isdigit():
            out += read_until(pty, b"\n", 5)
        child = int(out.split(b"child=")[1].split()[0])
        pty.terminate(TerminationPolicy(1.0, 1.0, 2.0))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        else:
            pytest.fail(f"background child {child} outlived the terminated shell")

    def test_missing_program_raises(self):
        """Spawning a program that does not exist fails at spawn time, naming the error."""
        from termwise.tray.host.pty import spawn_pty

        with pytest.raises(OSError):
            spawn_pty(["/nonexistent/termwise-no-such-shell"])

    def test_close_twice_and_read_after_close(self, spawned):
        """close() is idempotent and a read afterwards is b"", not an exception."""
        pty = spawned(["sh"])
        pty.close()
        pty.close()
        assert pty.read() == b""
        assert not pty.isalive()

    def test_large_output_arrives_whole(self, spawned):
        """Every byte of a few megabytes of output is read, in order."""
        pty = spawned(["sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo END"])
        out = read_to_eof(pty, 30)
        assert out.count(b"x") == 3000000
        assert out.rstrip().endswith(b"END")

    def test_a_flood_is_read_whole_in_gathered_chunks(self, spawned):
        """Reads at the default size gather what a flood left waiting: every numbered line
        arrives once and in order, and some chunks hold more than one PTY read gives."""
        pty = spawned(["seq", "1", "300000"])
        chunks: list[bytes] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            chunk = pty.read()
            if not chunk:
                break
            chunks.append(chunk)
        lines = b"".join(chunks).split(b"\r\n")
        assert lines[:-1] == [str(i).encode() for i in range(1, 300001)]

    @pytest.mark.skipif(sys.platform != "linux", reason="the reader naps on Linux only")
    def test_line_writes_read_with_naps_arrive_whole_and_the_echo_after_is_not_napped(
        self, spawned
    ):
        """A program printing 100-byte lines one write each (the case the reader naps
        for): every line arrives once and in order. Then `cat` echoes keys typed back to
        back, as a program would type them: no read of an echo waits on a nap."""
        line = "0123456789" * 9
        pty = spawned(["sh", "-c", f"seq -f '%08g {line}' 1 40000; echo FLOOD-END; exec cat"])
        got = bytearray()
        deadline = time.monotonic() + 60
        while b"FLOOD-END" not in got and time.monotonic() < deadline:
            chunk = pty.read()
            assert chunk, "the output ended early"
            got += chunk
        lines = bytes(got).split(b"\r\n")
        assert lines[:40000] == [b"%08d %s" % (i, line.encode()) for i in range(1, 40001)]
        time.sleep(0.05)  # the flood is over; cat waits for input
        for key in b"abcdefghijklmnopqrstuvwxyz" * 2:
            pty.write(bytes([key]))
            echoed = pty.read()
            while bytes([key]) not in echoed:
                echoed += pty.read()
            assert pty._pace.nap == 0, f"an echo read was followed by a nap at {chr(key)}"

    def test_a_flood_of_large_writes_comes_in_large_chunks(self, spawned):
        """Where a single PTY read gives about 4 KiB, a default-size read gathers what is
        already waiting: a flood arrives in chunks of tens of KiB (fewer wake-ups down
        the line), every byte of it."""
        pty = spawned(["sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x"])
        sizes: list[int] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (chunk := pty.read()):
            assert chunk.count(b"x") == len(chunk)
            sizes.append(len(chunk))
        assert sum(sizes) == 3000000
        assert max(sizes) >= 32768, f"largest chunk {max(sizes)} bytes"

    def test_a_start_up_burst_keeps_the_small_read_buffer_a_flood_grows_it(self, spawned):
        """Idle memory: 7 KB printed at once (a shell's start-up) leaves the reader's buffer
        at its small size; megabytes of output grow it to the large one."""
        from termwise.tray.host.pty.posix import FIRST_BUFFER, READ_BUFFER

        pty = spawned(["sh", "-c", "printf '%7000s' ''; sleep 1; echo done"])  # one write
        read_until(pty, b"done", 15)
        assert len(pty._read_buf) == FIRST_BUFFER
        flood = spawned(["sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x"])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and flood.read():  # the host's reads: default size
            pass
        assert len(flood._read_buf) == READ_BUFFER

    def test_input_larger_than_the_pty_holds_waits_for_the_program(self, spawned, tmp_path):
        """Typing more than the terminal buffers while the program is not reading yet does
        not fail or lose keys: the write waits for room, and every byte arrives in order."""
        got = tmp_path / "got"
        script = (
            "import sys, time, tty; tty.setraw(0); print('raw', flush=True); time.sleep(0.5)\n"
            "data = b''\n"
            "while len(data) < 300000: data += sys.stdin.buffer.raw.read(300000 - len(data))\n"
            f"open({str(got)!r}, 'wb').write(data)\n"
        )
        pty = spawned([sys.executable, "-c", script])
        read_until(pty, b"raw", 15)
        payload = bytes(b"abcdefghij"[i % 10] for i in range(300000))
        start = time.monotonic()
        pty.write(payload)  # far more than the PTY's input buffer: blocks for room
        assert time.monotonic() - start >= 0.2  # it did wait for the program
        read_to_eof(pty, 30)
        assert got.read_bytes() == payload

    @pytest.mark.parametrize("parent_ignores", [False, True], ids=["plain", "under-nohup"])
    def test_terminate_hangs_up_an_interactive_shells_jobs(self, spawned, parent_ignores):
        """Jobs of an interactive bash (their own process groups) end with the session, as
        when a terminal window closes, also when Termwise itself was started with the
        hang-up and termination signals ignored (`nohup`, some CI runners)."""
        if parent_ignores:
            saved = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGHUP, signal.SIGTERM)}
            try:
                pty = spawned(["bash", "--norc", "--noprofile", "-i"])
            finally:
                for s, handler in saved.items():
                    signal.signal(s, handler)
        else:
            pty = spawned(["bash", "--norc", "--noprofile", "-i"])
        pty.write(b"sleep 300 & echo job=$!\r")
        out = read_until(pty, b"\n", 5)
        deadline = time.monotonic() + 5
        while not re.search(rb"job=(\d+)\r", out) and time.monotonic() < deadline:
            out += read_until(pty, b"\n", 5)
        match = re.search(rb"job=(\d+)\r", out)
        assert match, out
        job = int(match.group(1))
        assert os.getpgid(job) != os.getpgid(pty.pid)  # job control: a group of its own
        pty.terminate(TerminationPolicy(1.0, 1.0, 2.0))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.kill(job, 0)
            except ProcessLookupError:
                return
            time.sleep(0.02)
        pytest.fail(f"job {job} outlived its shell")


def _job_pids(pty, line: bytes, count: int) -> list[int]:
    pty.write(line)
    out = b""
    deadline = time.monotonic() + 10
    while b"trap=0\r" not in out and time.monotonic() < deadline:
        out += read_until(pty, b"\n", 5)
    pids = [int(p) for p in re.findall(rb"job=(\d+)\r", out)]
    assert len(pids) == count, out
    return pids


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sessions read from /proc")
def test_jobs_of_a_shell_that_had_to_be_killed_are_hung_up():
    """A shell that ignores the hang-up is killed and cannot pass it on: its jobs get it from
    us, as from a closing terminal; a `nohup` job keeps running as its user asked."""
    pty = spawn_pty(["bash", "--norc", "--noprofile", "-i"])
    plain, kept = _job_pids(
        pty,
        b"sleep 300 & echo job=$!; nohup sleep 301 >/dev/null 2>&1 & echo job=$!; trap '' HUP; echo trap=$?\r",
        2,
    )
    try:
        assert pty.terminate(TerminationPolicy(0.3, 0.3, 5.0)) == 128 + signal.SIGKILL
        deadline = time.monotonic() + 10
        while _alive(plain) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _alive(plain), "the job outlived its killed shell"
        assert _alive(kept), "a nohup job was hung up"
    finally:
        pty.close()
        for pid in (plain, kept):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
