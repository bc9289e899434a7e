"""Benchmark: what the foreground check adds to `SessionHost.active()` (budget: a few ms).

Under pytest-xvfb: 3 bash sessions, 20 attached clients in 20 stand-in windows, and a
focused xterm whose client belongs to one session. Prints p50/p95 of `active()` with
the real X11 probe against the same host without a probe (last input only).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.tray.host.foreground import ClientWindow, ForegroundProbe, platform_probe
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy

from tests.tray.host.foreground.support import Terminal
from tests.tray.serve_support import wait_until

pytestmark = [
    pytest.mark.bench,
    pytest.mark.skipif(
        not (os.environ.get("DISPLAY") and shutil.which("xterm") and shutil.which("xdotool")),
        reason="needs an X display, xterm and xdotool",
    ),
]

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)
CALLS = 2000


@pytest.fixture
def focused_client(tmp_path: Path) -> Iterator[int]:
    """An xterm with the focus; yields the pid of the 'client' running inside it."""
    pid_file = tmp_path / "client.pid"
    proc = subprocess.Popen(["xterm", "-e", "sh", "-c", f"echo $$ > {pid_file}; exec sleep 300"])
    try:
        window = subprocess.run(
            ["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(proc.pid)],
            capture_output=True, text=True, timeout=30,
        ).stdout.split()[0]  # fmt: skip
        subprocess.run(["xdotool", "windowfocus", "--sync", window], check=True, timeout=30)
        assert wait_until(lambda: pid_file.exists() and pid_file.read_text().strip() != "", 10)
        yield int(pid_file.read_text())
    finally:
        proc.terminate()
        proc.wait(10)


def timings(host: SessionHost, want: str) -> tuple[list[float], int]:
    """Times of CALLS `active()` calls, and how many of them fell back (missed `want`)."""
    out = []
    missed = 0
    for _ in range(CALLS):
        start = time.perf_counter()
        active = host.active()
        out.append((time.perf_counter() - start) * 1000)
        missed += active is None or active.id != want
        time.sleep(0.001)  # a hotkey is not a busy loop
    return out, missed


def measure(
    probe: ForegroundProbe | None, client_pid: int, streaming: int
) -> tuple[list[float], int]:
    """3 idle sessions (+ `streaming` ones printing without pause), 21 attached clients."""
    host = SessionHost(Config(), resolve_paths().ensure(), termination=FAST_END, foreground=probe)
    windows = [Terminal(1) for _ in range(20)]
    try:
        sessions = [host.create("bash") for _ in range(3)]
        for i, window in enumerate(windows):
            host.attach_window(sessions[i % 2].id, ClientWindow(pid=window.clients[0]))
        host.attach_window(sessions[2].id, ClientWindow(pid=client_pid))
        host.set_active(sessions[0].id)
        # With a probe, wait until it has connected and sees the focused xterm.
        want = sessions[2] if probe is not None else sessions[0]
        assert wait_until(lambda: host.active() is want, 10)
        for _ in range(streaming):
            host.create("bash").send_text("yes 'building module foo/bar/baz.o ... ok'", enter=True)
        time.sleep(1.0 if streaming else 0.0)  # let the output flow
        return timings(host, want.id)
    finally:
        host.shutdown()
        for window in windows:
            window.close()


def report(name: str, t: list[float], missed: int, base: list[float]) -> None:
    q = statistics.quantiles(t, n=20)
    print(
        f"\nactive() {name:34}: p50 {statistics.median(t):.3f} ms  p95 {q[18]:.3f} ms"
        f"  max {max(t):.2f} ms  fell back {missed}/{len(t)}"
        f"  (p50 {statistics.median(t) / statistics.median(base):.0f}x last-input only)"
    )


def test_active_session_cost(focused_client: int) -> None:
    """Prints how long `active()` takes with the X11 probe, idle and with 20 sessions streaming, against no probe."""
    baseline, _ = measure(None, focused_client, 0)
    report("last input only", baseline, 0, baseline)
    for streaming in (0, 20):
        probe = platform_probe()
        assert probe is not None
        times, missed = measure(probe, focused_client, streaming)
        report(f"X11 foreground, {streaming} sessions streaming", times, missed, baseline)
