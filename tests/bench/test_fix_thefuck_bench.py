"""`termwise fix` beside thefuck on the same failed command, whole process, interleaved.

A running session ran `git psuh` in a git repository and it failed. Termwise's side is
`termwise fix --offline --plain --session ID`: it asks the host for the session's last
block and answers from its rules tier. thefuck's side is `thefuck --yes git psuh`, as its
shell alias calls it: it runs the command again to see its output, then prints the fix.
Both must answer `git push`. thefuck needs Python <= 3.11, so it lives in its own virtual
environment under ~/.cache/termwise-thefuck (made with uv from PyPI on first use;
TW_THEFUCK=/path/to/thefuck uses another). If it cannot be installed the benchmark fails
on Linux CI and is skipped elsewhere, saying why.

Run with `uv run pytest tests/bench/test_fix_thefuck_bench.py -m bench -s`. The CPU of
Termwise's side includes what the host spent answering.
"""

from __future__ import annotations

import fcntl
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bench.sides import budget, print_wall_cpu, proc_cpu
from tests.support.tools import require, strict
from tests.tray.serve_support import ServeProcess, serve_fixture

pytestmark = [pytest.mark.timeout(1800), pytest.mark.bench]

ROUNDS = max(5, int(os.environ.get("TW_BENCH_ROUNDS", "10")))
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "termwise-thefuck"
THEFUCK_PYTHON = "3.11"  # thefuck 3.32 imports `imp`, gone in Python 3.12
SCRIPT = Path(sys.executable).with_name("termwise")  # the console script a user runs
TERMWISE = (
    [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "termwise.tray.commands.cli"]
)
FAILED = "git psuh"
WANTED = "git push"
GOAL = 0.8  # Termwise's time / thefuck's, issue 16


def _install_thefuck(venv: Path) -> str:
    """Make `venv` with thefuck from PyPI; '' when done, else what went wrong."""
    uv = shutil.which("uv")
    if uv is None:
        return "uv is not on PATH to make thefuck's environment"
    steps = (
        [uv, "venv", "-q", "-p", THEFUCK_PYTHON, str(venv)],
        [uv, "pip", "install", "-q", "--compile-bytecode", "--python",
         str(venv / "bin" / "python"), "thefuck"],
    )  # fmt: skip
    for argv in steps:
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"`{' '.join(argv[:3])}` failed: {exc}"
        if done.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)  # half-made: the next run starts over
            return f"`{' '.join(argv[:3])}` exited {done.returncode}: {done.stderr.strip()[-500:]}"
    return ""


def _thefuck_or_why() -> tuple[Path | None, str]:
    explicit = os.environ.get("TW_THEFUCK")
    if explicit:
        path = Path(explicit)
        return (path, "") if path.exists() else (None, f"TW_THEFUCK={explicit} does not exist")
    venv = CACHE / "venv"
    program = venv / "bin" / "thefuck"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:  # two runs at once install it once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not program.exists():
            problem = _install_thefuck(venv)
            if problem:
                return None, f"thefuck could not be installed from PyPI: {problem}"
    return program, ""


@pytest.fixture(scope="module")
def thefuck() -> Path:
    """thefuck's executable in its own environment; fails on Linux CI when there is none."""
    if sys.platform == "win32":
        pytest.skip("the thefuck comparison runs on POSIX")
    program, why = _thefuck_or_why()
    if program is None:
        if strict():
            pytest.fail(f"{why}; the fix-vs-thefuck benchmark cannot run without it")
        pytest.skip(why)
    return program


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


def run_timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system, the process and what it waited for) and
    standard output of one whole run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, f"{argv}: exit {done.returncode}: {done.stderr[-2000:]}"
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, cpu, done.stdout


def first_termwise_command(plain: str) -> str:
    """The command of suggestion 1 in `fix --plain` output (`1. git push    [rules · …]`)."""
    for line in plain.splitlines():
        if line.startswith("1. "):
            return line[3:].split("  ")[0].strip()
    return ""


def test_fix_against_thefuck(serve: ServeProcess, thefuck: Path, tmp_path: Path) -> None:
    """Fixing `git psuh` from a running session: Termwise's whole process beside thefuck's."""
    require("git")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    sid = str(serve.client.create("bash", cwd=str(repo))["id"])
    block = serve.run_command(sid, FAILED)
    assert block["command"] == FAILED and block["exit_code"] not in (0, None), block
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # thefuck keeps its settings under the home it is given (written on its first run);
    # these are the variables its bash alias sets.
    tf_home = tmp_path / "thefuck-home"
    tf_env = {**env, "HOME": str(tf_home), "XDG_CONFIG_HOME": str(tf_home / ".config"),
              "TF_SHELL": "bash", "TF_ALIAS": "fuck", "TF_HISTORY": FAILED,
              "PYTHONIOENCODING": "utf-8"}  # fmt: skip
    sides = {
        "termwise fix": ([*TERMWISE, "fix", "--offline", "--plain", "--session", sid], env),
        "thefuck --yes": ([str(thefuck), "--yes", *FAILED.split()], tf_env),
    }
    answers = {
        "termwise fix": first_termwise_command,
        "thefuck --yes": lambda out: out.strip(),
    }
    for name, (argv, side_env) in sides.items():  # warm-up: caches, thefuck's settings
        _, _, out = run_timed(argv, repo, side_env)
        assert answers[name](out) == WANTED, f"{name} answered {out!r}"
    times: dict[str, list[float]] = {name: [] for name in sides}
    cpus: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(ROUNDS):
        for name, (argv, side_env) in sides.items():
            host_before = proc_cpu(serve.proc.pid)
            seconds, cpu, out = run_timed(argv, repo, side_env)
            if name.startswith("termwise"):
                cpu += proc_cpu(serve.proc.pid) - host_before
            assert answers[name](out) == WANTED, f"{name} answered {out!r}"
            times[name].append(seconds)
            cpus[name].append(cpu)
    print_wall_cpu(f"`{FAILED}` fixed from a running session, whole process, {ROUNDS} "
                   "interleaved rounds", times, cpus)  # fmt: skip
    mine, theirs = "termwise fix", "thefuck --yes"
    rounds = [a / b for a, b in zip(times[mine], times[theirs], strict=True)]
    wall = statistics.median(times[mine]) / statistics.median(times[theirs])
    cpu = statistics.median(cpus[mine]) / statistics.median(cpus[theirs])
    print(f"  termwise / thefuck: time {wall:.2f}x (rounds {min(rounds):.2f}-{max(rounds):.2f}),"
          f" cpu {cpu:.2f}x; goal <= {GOAL}x time")  # fmt: skip
    budget("fix.termwise_per_thefuck.time", wall)
    budget("fix.termwise_per_thefuck.cpu", cpu)
