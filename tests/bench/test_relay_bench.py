"""Benchmarks of the session host relay: throughput vs tmux, keystroke round trip, idle wake-ups.

Run with `uv run pytest tests/bench/test_relay_bench.py -m bench -s`; figures are printed,
nothing is asserted about time.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.tray.host.pty import PtyProcess, spawn_pty

from tests.tray.serve_support import ServeProcess, serve_fixture, wait_until

pytestmark = pytest.mark.bench

TOTAL = 200 * 1000 * 1000
LINE = "0123456789" * 9  # 90 characters per line, like a busy build log
PRODUCE = f"yes {LINE} | head -c {TOTAL}"
MARKER = b"END-42"
MARKER_CMD = "echo END-$((40 + 2))"
ROWS, COLS = 50, 200


@pytest.fixture(autouse=True)
def plain_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


class Drain:
    """A terminal's reading end: counts bytes, keeps a short tail, wakes waiters on each read."""

    def __init__(self, pty: PtyProcess) -> None:
        self.pty = pty
        self.count = 0
        self.tail = b""
        self.cond = threading.Condition()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            data = self.pty.read(65536)
            if not data:
                return
            with self.cond:
                self.count += len(data)
                self.tail = (self.tail + data)[-4096:]
                self.cond.notify_all()

    def wait_for(self, needle: bytes, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while needle not in self.tail:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def round_trip(self, key: bytes) -> float:
        """Seconds from writing one key to seeing it echoed."""
        with self.cond:
            self.tail = b""
        start = time.perf_counter()
        self.pty.write(key)
        assert self.wait_for(key, 5)
        return time.perf_counter() - start


def attach_terminal(session_id: str) -> PtyProcess:
    argv = [sys.executable, "-m", "termwise.tray.commands.cli", "attach", session_id]
    return spawn_pty(argv, rows=ROWS, cols=COLS)


def time_in_tmux() -> float:
    """Seconds for the same output inside a tmux pane (tmux parses it all into its grid)."""
    name = f"tw-bench-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", name, "-f", "/dev/null"]
    try:
        start = time.monotonic()
        subprocess.run(
            [*tmux, "new-session", "-d", "-x", str(COLS), "-y", str(ROWS),
             f"{PRODUCE}; tmux wait-for -S produced; sleep 5"],
            check=True, timeout=30,
        )  # fmt: skip
        subprocess.run([*tmux, "wait-for", "produced"], check=True, timeout=600)
        return time.monotonic() - start
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)


def time_direct_pty() -> float:
    """Seconds for the output read straight off a PTY (no host, no relay): the floor."""
    pty = spawn_pty(["bash", "--norc", "-c", f"{PRODUCE}; {MARKER_CMD}"], rows=ROWS, cols=COLS)
    drain = Drain(pty)
    start = time.monotonic()
    assert drain.wait_for(MARKER, 600)
    elapsed = time.monotonic() - start
    pty.close()
    return elapsed


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_relay_throughput_vs_tmux(serve: ServeProcess) -> None:
    """~200 MB through host + attach client, against a direct PTY and the same command in tmux."""
    sid = serve.client.create("bash", rows=ROWS, cols=COLS)["id"]
    serve.run_command(sid, "true")
    pty = attach_terminal(sid)
    drain = Drain(pty)
    try:
        assert wait_until(lambda: serve.client.sessions()[0]["clients"] == 1)
        start = time.monotonic()
        pty.write(f"{PRODUCE}; {MARKER_CMD}\r".encode())
        assert drain.wait_for(MARKER, 600)
        ours = time.monotonic() - start
        relayed = drain.count
    finally:
        pty.close()
    direct = time_direct_pty()
    in_tmux = time_in_tmux()
    mb = TOTAL / 1e6
    print(
        f"\nrelay of {mb:.0f} MB ({relayed / 1e6:.0f} MB reached the attached terminal):"
        f"\n  direct PTY read       {direct:6.2f} s  {mb / direct:7.1f} MB/s"
        f"\n  host + attach client  {ours:6.2f} s  {mb / ours:7.1f} MB/s"
        f"\n  inside tmux           {in_tmux:6.2f} s  {mb / in_tmux:7.1f} MB/s"
        f"\n  host+attach vs tmux: {in_tmux / ours:.2f}x (goal >= 1.0x)"
    )


def test_keystroke_round_trip(serve: ServeProcess) -> None:
    """Key → echo through the attach client and host, against the same on a bare PTY."""
    n = 200
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    pty = attach_terminal(sid)
    drain = Drain(pty)
    direct_pty = spawn_pty(["bash", "--norc"], rows=ROWS, cols=COLS)
    direct = Drain(direct_pty)
    try:
        assert wait_until(lambda: serve.client.sessions()[0]["clients"] == 1)
        for d in (drain, direct):
            d.pty.write(b"cat\r")  # cat in canonical mode: the tty echoes each key
            time.sleep(0.3)
        through = [drain.round_trip(b"k") for _ in range(n)]
        bare = [direct.round_trip(b"k") for _ in range(n)]
    finally:
        pty.close()
        direct_pty.close()
    med_t, med_b = statistics.median(through), statistics.median(bare)
    p95 = sorted(through)[int(n * 0.95)]
    print(
        f"\nkeystroke round trip over {n} keys:"
        f"\n  direct PTY            median {med_b * 1e3:6.3f} ms"
        f"\n  attach + host         median {med_t * 1e3:6.3f} ms  p95 {p95 * 1e3:6.3f} ms"
        f"\n  added by the relay    {(med_t - med_b) * 1e3:6.3f} ms ({med_t / med_b:.1f}x)"
    )


def context_switches(pid: int) -> tuple[int, int]:
    """(voluntary + involuntary context switches over all threads, thread count)."""
    total = 0
    tasks = os.listdir(f"/proc/{pid}/task")
    for tid in tasks:
        try:
            text = Path(f"/proc/{pid}/task/{tid}/status").read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total, len(tasks)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_idle_host_wakeups(serve: ServeProcess) -> None:
    """An idle host with a shell and an attached client: wake-ups counted over a few seconds."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    serve.client.close()  # our own connection would count as activity
    pty = attach_terminal(sid)
    Drain(pty)
    try:
        time.sleep(1.0)  # let start-up settle
        window = 5.0
        host_before, threads = context_switches(serve.proc.pid)
        client_before, _ = context_switches(pty.pid)
        time.sleep(window)
        host_after, _ = context_switches(serve.proc.pid)
        client_after, _ = context_switches(pty.pid)
    finally:
        pty.close()
    print(
        f"\nidle for {window:.0f} s with one shell and one attached client:"
        f"\n  host ({threads} threads): {host_after - host_before} wake-ups"
        f"\n  attach client:           {client_after - client_before} wake-ups"
    )
