"""Host memory, side by side with a tmux server: 10 idle shells, and RSS as 80 busy
sessions (each prints 10 MB, then ends) come and go.

Run with `uv run pytest tests/bench/test_rss_bench.py -m bench -s`. The idle figure is
taken over interleaved rounds (a fresh host and a fresh tmux server each round).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.bench.sides import budget, have, spread, tmux_argv
from tests.support.tmux import tmux_server_pid
from tests.tray.host.churn import churn_termwise, churn_tmux, rss_mib
from tests.tray.serve_support import ServeProcess, wait_until

pytestmark = [
    pytest.mark.timeout(3600),
    pytest.mark.bench,
    pytest.mark.skipif(not have("tmux"), reason="needs tmux"),
]

ROUNDS = int(os.environ.get("TW_BENCH_ROUNDS", "5"))
IDLE_SHELLS = 10
CHURN_SESSIONS = int(os.environ.get("TW_BENCH_CHURN", "80"))
CHURN_BYTES = 10_000_000


def idle_termwise(home: Path) -> float:
    serve = ServeProcess(home)
    try:
        ids = [serve.client.create("bash")["id"] for _ in range(IDLE_SHELLS)]
        for sid in ids:
            serve.run_command(sid, "true")
        return rss_mib(serve.proc.pid)
    finally:
        serve.stop()


def idle_tmux() -> float:
    tmux = tmux_argv(f"tw-rss-{uuid.uuid4().hex[:8]}")
    try:
        subprocess.run([*tmux, "new-session", "-d", "bash --norc"], check=True, timeout=30)
        for _ in range(IDLE_SHELLS - 1):
            subprocess.run([*tmux, "new-window", "-d", "bash --norc"], check=True, timeout=30)
        pid = tmux_server_pid(tmux)
        assert wait_until(lambda: len(_children(pid)) >= IDLE_SHELLS, 30)
        return rss_mib(pid)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)


def _children(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


def test_rss_idle_shells(termwise_home: Path) -> None:
    """RSS of the host with 10 idle shells, against a tmux server with 10 idle shells."""
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(ROUNDS):
        ours.append(idle_termwise(termwise_home))
        theirs.append(idle_tmux())
    print(f"\nhost RSS with {IDLE_SHELLS} idle shells, MiB ({ROUNDS} rounds): min median max")
    print(f"  termwise serve  {spread(ours)}")
    print(f"  tmux server     {spread(theirs)}")
    print(f"  termwise / tmux: {statistics.median(ours) / statistics.median(theirs):.2f}x"
          f"  (goal: termwise <= 20 MiB)")  # fmt: skip
    budget("rss.idle.termwise_per_tmux", statistics.median(ours) / statistics.median(theirs))


def test_rss_after_ended_sessions(termwise_home: Path) -> None:
    """RSS after every 20 busy sessions ended (10 MB each); flat means the memory came back."""
    serve = ServeProcess(termwise_home)
    try:
        ours = churn_termwise(serve, CHURN_SESSIONS, CHURN_BYTES)
    finally:
        serve.stop()
    tmux = tmux_argv(f"tw-rss-{uuid.uuid4().hex[:8]}")
    try:
        theirs = churn_tmux(tmux, CHURN_SESSIONS, CHURN_BYTES)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)
    print(f"\nRSS (MiB) after N busy sessions ({CHURN_BYTES / 1e6:.0f} MB each) ended:")
    print("  ended   termwise   tmux")
    for n in ours:
        print(f"  {n:5d}   {ours[n]:8.1f}   {theirs.get(n, float('nan')):6.1f}")
    first, last = min(ours), max(ours)
    print(f"  termwise at {last} / at {first}: {ours[last] / ours[first]:.2f}x (goal <= 1.10x)")
    budget("rss.ended.last_per_first", ours[last] / ours[first])
