"""Command start-up, whole process: `termwise --version`, `check -- ls`, `context` and
`sessions` against a bare interpreter (`python -c pass`, the physical limit of a Python
command) and `context` against `tmux capture-pane -p` (the peer, on its own socket).

Run with `uv run pytest tests/bench/test_startup_bench.py -m bench -s`. Each round runs
every side once, in the same order (interleaved), after one warm-up round (page cache,
the rules cache). Our modules are compiled first by the benchmarks' conftest, as an
install leaves them.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bench.sides import budget, have, print_wall_cpu, tmux_argv
from tests.tray.serve_support import ServeProcess, serve_fixture

pytestmark = [
    pytest.mark.timeout(1800),
    pytest.mark.bench,
    pytest.mark.skipif(not have("tmux"), reason="needs tmux"),
]

ROUNDS = max(5, int(os.environ.get("TW_BENCH_ROUNDS", "10")))
# The installed console script is what a user runs; `python -m` would add runpy's cost.
SCRIPT = Path(sys.executable).with_name("termwise")
TERMWISE = (
    [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "termwise.tray.commands.cli"]
)
GOALS = {"check": 0.08, "context": 0.05}  # seconds, issue 16


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


@pytest.fixture
def tmux_pane() -> Iterator[list[str]]:
    """A tmux server on its own socket with one bash that ran the same commands."""
    tmux = tmux_argv(f"tw-start-{uuid.uuid4().hex[:8]}")
    subprocess.run([*tmux, "new-session", "-d", "-x", "120", "-y", "40", "bash --norc"],
                   check=True, timeout=30)  # fmt: skip
    try:
        for command in COMMANDS:
            subprocess.run([*tmux, "send-keys", command, "Enter"], check=True, timeout=30)
        time.sleep(0.5)
        yield tmux
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)


COMMANDS = ("echo hello", "ls /", "printf 'a\\nb\\nc\\n'", "false", "uname -a")


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one whole run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env, timeout=60)  # fmt: skip
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, f"{argv}: exit {done.returncode}: {done.stderr!r}"
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, cpu


def test_cli_startup(serve: ServeProcess, tmux_pane: list[str], tmp_path: Path) -> None:
    """Whole-process time of the lean commands, beside `python -c pass` and tmux capture-pane."""
    sid = str(serve.client.create("bash")["id"])
    for command in COMMANDS:
        serve.run_command(sid, command)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # A user sets no TERMWISE_HOME: the folders then come from platformdirs, which costs
    # its own import; `check` needs no host, so it runs that way too.
    folders = {k: v for k, v in env.items() if k != "TERMWISE_HOME"}
    for name in ("CONFIG", "DATA", "CACHE", "STATE", "RUNTIME"):
        folders[f"XDG_{name}_HOME" if name != "RUNTIME" else "XDG_RUNTIME_DIR"] = str(
            tmp_path / name.lower()
        )
    sides = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "tmux capture-pane": [*tmux_pane, "capture-pane", "-p"],
        "termwise --version": [*TERMWISE, "--version"],
        "termwise check": [*TERMWISE, "check", "--", "ls"],
        "termwise check (platform folders)": [*TERMWISE, "check", "--", "ls"],
        "termwise context": [*TERMWISE, "context", "--session", sid],
        "termwise sessions": [*TERMWISE, "sessions"],
    }
    envs = {name: folders if "platform" in name else env for name in sides}
    for name, argv in sides.items():  # warm-up: page cache, bytecode, the rules cache
        timed(argv, envs[name])
    times: dict[str, list[float]] = {name: [] for name in sides}
    cpus: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(ROUNDS):
        for name, argv in sides.items():
            seconds, cpu = timed(argv, envs[name])
            times[name].append(seconds)
            cpus[name].append(cpu)
    print_wall_cpu(f"CLI start-up, whole process, {ROUNDS} interleaved rounds", times, cpus)
    # Budgets are on CPU ratios: on this shared machine wall-clock ratios swing by 2x
    # between runs (the scheduler, not our code), CPU ones by a few percent.
    print("  ratios of medians, wall | cpu (rounds' own wall ratios in brackets):")
    pairs = [(name, "python -c pass") for name in sides if name.startswith("termwise")]
    pairs.append(("termwise context", "tmux capture-pane"))
    for mine, peer in pairs:
        _ratio(f"{mine} / {peer}", times[mine], times[peer], cpus[mine], cpus[peer])
        word = mine.split()[1].lstrip("-") + ("_platform" if "platform" in mine else "")
        key = "python" if peer.startswith("python") else "tmux"
        cpu_ratio = statistics.median(cpus[mine]) / statistics.median(cpus[peer])
        budget(f"startup.{word}_per_{key}.cpu", cpu_ratio)
    base = statistics.median(times["python -c pass"])
    for name in sides:
        goal = next((g for word, g in GOALS.items() if name.startswith(f"termwise {word}")), None)
        if goal is not None:
            median = statistics.median(times[name])
            print(f"  {name}: median {median:.3f} s (goal <= {goal:.2f} s; "
                  f"{median - base:+.3f} s over a bare interpreter)")  # fmt: skip


def _ratio(label: str, mine: list[float], theirs: list[float], mine_cpu: list[float],
           theirs_cpu: list[float]) -> None:  # fmt: skip
    pairs = [a / b for a, b in zip(mine, theirs, strict=True)]
    wall = statistics.median(mine) / statistics.median(theirs)
    cpu = statistics.median(mine_cpu) / statistics.median(theirs_cpu)
    print(f"  {label:<40} {wall:6.2f}x ({min(pairs):.2f}-{max(pairs):.2f}) | {cpu:6.2f}x")
