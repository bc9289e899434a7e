"""Benchmark: the rules tier against thefuck's own rule test cases (top-3 hit rate, ms per case)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from termwise.agent.rules import suggest_fixes

DATA = Path(__file__).parent / "data" / "thefuck" / "cases.jsonl"
CLI = [sys.executable, "-m", "termwise.tray.commands.cli"]
ROUNDS = 7
TOP = 3

# thefuck rule name (prefix) -> failure category; first match wins.
CATEGORIES: list[tuple[str, tuple[str, ...]]] = [
    ("git", ("git_",)),
    (
        "package managers",
        ("apt_", "brew_", "choco_", "pacman", "pip_", "npm_", "yarn_", "composer_", "conda_"),
    ),
    (
        "not found / slips",
        (
            "cd_cs",
            "sl_ls",
            "has_exists_script",
            "python_command",
            "remove_shell_prompt_literal",
            "fix_alt_space",
            "remove_trailing_cedilla",
            "switch_lang",
            "quotation_marks",
            "man_no_space",
        ),
    ),
    ("permissions", ("sudo", "unsudo", "chmod_x", "rm_root")),
    (
        "paths and files",
        (
            "cat_dir",
            "cd_",
            "cp_",
            "mkdir_p",
            "no_such_file",
            "rm_dir",
            "touch",
            "grep_",
            "ls_",
            "ln_",
            "open",
            "prove_recursively",
        ),
    ),
    (
        "subcommand typos",
        (
            "adb_",
            "aws_cli",
            "az_cli",
            "cargo_",
            "dry",
            "fab_",
            "heroku_not_command",
            "lein_",
            "mercurial",
            "mvn_",
            "tsuru_not_command",
            "unknown_command",
            "long_form_help",
            "man",
            "systemctl",
            "whois",
            "sed_",
            "tmux",
        ),
    ),
    ("language and dev tools", ("",)),
]


def category(rule: str) -> str:
    for name, prefixes in CATEGORIES:
        if any(rule.startswith(p) for p in prefixes):
            return name
    return "other"


def load_cases() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TERMWISE_")}
    # A fixed package manager, so install fixes do not depend on the machine running this.
    return {**env, "TERMWISE_HOME": str(home), "TERMWISE_PKG_MANAGER": "apt"}


def cli_answers(cases: list[dict[str, Any]], home: Path) -> list[list[str]]:
    """One `termwise fix --jsonl` process over every case; the commands answered for each."""
    stdin = "".join(
        json.dumps({"script": c["script"], "output": c["output"], "shell": "bash"}) + "\n"
        for c in cases
    )
    done = subprocess.run(
        [*CLI, "fix", "--jsonl"],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(home),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(cases), done.stderr[-2000:]
    answers = []
    for line in lines:
        obj = json.loads(line)
        assert "error" not in obj, obj
        answers.append([s["command"] for s in obj["suggestions"]])
    return answers


def hit(case: dict[str, Any], commands: list[str]) -> bool:
    top = {" ".join(c.split()) for c in commands[:TOP]}
    return any(" ".join(e.split()) in top for e in case["expected"])


def report(cases: list[dict[str, Any]], answers: list[list[str]]) -> tuple[int, list[str]]:
    per: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    misses = []
    for case, commands in zip(cases, answers, strict=True):
        cat = category(case["rule"])
        per[cat] += 1
        if hit(case, commands):
            hits[cat] += 1
        else:
            misses.append(f"  {case['rule']:32s} {case['script']!r} -> {case['expected'][0]!r}")
    total = sum(hits.values())
    strict = sum(
        " ".join(case["expected"][0].split()) in {" ".join(c.split()) for c in commands[:TOP]}
        for case, commands in zip(cases, answers, strict=True)
    )
    print(
        f"\nthefuck rule tests: top-{TOP} hit rate {total}/{len(cases)} = "
        f"{100 * total / len(cases):.1f} %"
    )
    print(
        f"  (strict: thefuck's first expected command in the top {TOP}: {strict}/{len(cases)} = "
        f"{100 * strict / len(cases):.1f} %)"
    )
    for cat in sorted(per, key=lambda c: -per[c]):
        print(f"  {cat:24s} {hits[cat]:4d}/{per[cat]:<4d} {100 * hits[cat] / per[cat]:5.1f} %")
    return total, misses


def latency(cases: list[dict[str, Any]]) -> list[float]:
    """Per-case in-process milliseconds: the median over interleaved rounds of every case."""
    runs: list[list[float]] = [[] for _ in cases]
    for _ in range(ROUNDS):
        for i, c in enumerate(cases):
            t0 = time.perf_counter()
            suggest_fixes(c["script"], c["output"], None, "bash")
            runs[i].append((time.perf_counter() - t0) * 1000)
    return [statistics.median(r) for r in runs]


@pytest.mark.bench
def test_rules_tier_on_thefuck_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Top-3 hit rate through the real CLI, per category, and the in-process ms per case."""
    cases = load_cases()
    answers = cli_answers(cases, tmp_path)
    total, misses = report(cases, answers)
    if os.environ.get("TERMWISE_BENCH_MISSES"):
        print("misses:\n" + "\n".join(misses))

    monkeypatch.setenv("TERMWISE_PKG_MANAGER", "apt")
    suggest_fixes("gti status", "bash: gti: command not found", None)  # warm the data caches
    per_case = latency(cases)
    floor: list[float] = []
    for _ in range(ROUNDS):  # the tier's fixed cost: every rule runs, none matches
        t0 = time.perf_counter()
        suggest_fixes("./run-tests", "3 passed, 1 failed\n", 1, "bash")
        floor.append((time.perf_counter() - t0) * 1000)
    med = statistics.median(per_case)
    base = statistics.median(floor)
    print(
        f"in-process ms per case over {ROUNDS} interleaved rounds: min {min(per_case):.3f}"
        f"  median {med:.3f}  max {max(per_case):.3f}  (goal: median <= 1 ms)"
    )
    print(f"  no-match floor {base:.3f} ms; median case = {med / base:.1f}x the floor")
    peer = os.environ.get("TERMWISE_BENCH_THEFUCK_PYTHON")
    if peer:  # an interpreter with thefuck installed: the peer, measured in this same run
        done = subprocess.run(
            [peer, str(DATA.parent / "peer.py"), str(DATA)],
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        assert done.returncode == 0 and done.stdout.strip(), done.stderr[-2000:]
        theirs = json.loads(done.stdout.strip().splitlines()[-1])
        their_med = statistics.median(theirs["ms"])
        print(
            f"thefuck in-process: {theirs['hits']}/{theirs['cases']} = "
            f"{100 * theirs['hits'] / theirs['cases']:.1f} %; ms per case min "
            f"{min(theirs['ms']):.2f} median {their_med:.2f} max {max(theirs['ms']):.2f}"
        )
        print(
            f"  termwise median is {their_med / med:.0f}x faster; "
            f"hits {total - theirs['hits']:+d} cases"
        )
    else:
        print("(set TERMWISE_BENCH_THEFUCK_PYTHON to a Python with thefuck to measure the peer)")
    assert total <= len(cases)
