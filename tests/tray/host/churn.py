"""Busy sessions that end, for the host memory test and benchmark: RSS read from /proc."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.tmux import tmux_server_pid
from tests.tray.serve_support import ServeProcess, wait_until


def rss_mib(pid: int) -> float:
    """Resident set size of one process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def produce(nbytes: int) -> str:
    """A command printing `nbytes` of 100-byte lines, then ending the shell."""
    return f"yes {'x' * 99} | head -c {nbytes}; exit"


def churn_termwise(
    serve: ServeProcess,
    sessions: int,
    nbytes: int,
    *,
    parallel: int = 4,
    every: int = 20,
    on_mark: Callable[[int, float], None] | None = None,
) -> dict[int, float]:
    """Start `sessions` shells, `parallel` at a time, each printing `nbytes` and exiting;
    the host's RSS (MiB) after every `every` ended sessions."""
    marks: dict[int, float] = {}
    ended = 0
    while ended < sessions:
        batch = [serve.client.create("bash")["id"] for _ in range(min(parallel, sessions - ended))]
        for sid in batch:
            serve.client.send(sid, produce(nbytes), enter=True)
        for sid in batch:
            assert wait_until(lambda s=sid: not _alive(serve, s), 120, 0.05), (
                f"session {sid} runs on"
            )
        ended += len(batch)
        if ended % every == 0:
            time.sleep(0.3)  # let the last reader threads finish
            marks[ended] = rss_mib(serve.proc.pid)
            if on_mark is not None:
                on_mark(ended, marks[ended])
    return marks


def _alive(serve: ServeProcess, sid: str) -> bool:
    for row in serve.client.sessions():
        if row["id"] == sid:
            return bool(row["alive"])
    return False  # pruned: long ended


def churn_tmux(
    tmux: list[str], sessions: int, nbytes: int, *, parallel: int = 4, every: int = 20
) -> dict[int, float]:
    """The same in one tmux server (windows that close when their shell ends)."""
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", "keep", "sleep 100000"], check=True, timeout=30
    )
    server = tmux_server_pid(tmux)
    marks: dict[int, float] = {}
    ended = 0
    while ended < sessions:
        count = min(parallel, sessions - ended)
        for _ in range(count):
            subprocess.run([*tmux, "new-window", "-d", "-t", "keep", f"bash --norc -c '{produce(nbytes)}'"],
                           check=True, timeout=30)  # fmt: skip
        assert wait_until(lambda: _tmux_windows(tmux) == 1, 120, 0.05)
        ended += count
        if ended % every == 0:
            marks[ended] = rss_mib(server)
    return marks


def _tmux_windows(tmux: list[str]) -> int:
    out = subprocess.run(
        [*tmux, "list-windows", "-t", "keep"], capture_output=True, text=True, timeout=30
    ).stdout
    return len(out.splitlines())
