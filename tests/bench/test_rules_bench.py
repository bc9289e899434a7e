"""Benchmark: milliseconds per case for the instant rules tier, across the whole rules table."""

from __future__ import annotations

import statistics
import time

import pytest
from termwise.agent.rules import data, env, suggest_fixes

from tests.agent.rules import (
    cases_extra,
    cases_files,
    cases_git,
    cases_listed,
    cases_node,
    cases_not_found,
    cases_permission,
    cases_python,
    cases_script_only,
    cases_tools,
    cases_usage,
    cases_windows,
)
from tests.agent.rules.table import T

TABLE: list[T] = [
    *cases_not_found.CASES,
    *cases_git.CASES,
    *cases_python.CASES,
    *cases_permission.CASES,
    *cases_windows.CASES,
    *cases_node.CASES,
    *cases_files.CASES,
    *cases_tools.CASES,
    *cases_extra.CASES,
    *cases_usage.CASES,
    *cases_script_only.CASES,
    *cases_listed.CASES,
]
REPEATS = 15


def _ms(case: T) -> float:
    t0 = time.perf_counter()
    suggest_fixes(case.script, case.output, case.exit_code, case.shell, cwd=case.cwd)
    return (time.perf_counter() - t0) * 1000


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@pytest.mark.bench
def test_rules_tier_ms_per_case() -> None:
    """Median and p95 per case (goal: median ≤ 5 ms), the cold first call, and a no-match baseline."""
    data.load.cache_clear()
    env._programs_in.cache_clear()
    cold = _ms(T("gti status", "bash: gti: command not found", "git status"))

    # Every rule runs (exit code 1) but none matches: the fixed cost of the tier.
    baseline_case = T("./run-tests", "3 passed, 1 failed\n", "", exit_code=1)
    baseline = statistics.median(_ms(baseline_case) for _ in range(200))

    per_case = [statistics.median(_ms(c) for _ in range(REPEATS)) for c in TABLE]
    worst = sorted(zip(per_case, TABLE, strict=True), key=lambda x: -x[0])[:5]
    med, p95 = statistics.median(per_case), _p(per_case, 0.95)
    print(f"\nrules tier over {len(TABLE)} cases x {REPEATS} runs")
    print(f"  cold first call (YAML load, PATH scan): {cold:.2f} ms")
    print(f"  baseline (no rule matches):             {baseline:.3f} ms")
    print(f"  median per case: {med:.3f} ms  ({med / baseline:.1f}x baseline; goal <= 5 ms)")
    print(f"  p95 per case:    {p95:.3f} ms  ({p95 / baseline:.1f}x baseline)")
    print(f"  max per case:    {max(per_case):.3f} ms")
    for ms, case in worst:
        print(f"    {ms:7.3f} ms  {case}")
    assert len(per_case) == len(TABLE)


ADVERSARIAL = {
    "colons": "a: b: c: " * 8000,
    "quotes": "'x' \"y\" `z` " * 6000,
    "indented blank lines": "\n    " * 15000 + "x",
    "one long word": "x" * 64000,
    "usage with many choices": "usage: git [" + "|".join("a" * i for i in range(1, 300)) + "]",
    "hint lines": "Did you mean this?\n" + "\t x\n" * 10000,
}


@pytest.mark.bench
def test_rules_tier_worst_case_outputs() -> None:
    """Milliseconds for 64 KB outputs built to make regular expressions backtrack."""
    print()
    for name, output in ADVERSARIAL.items():
        for shell in ("bash", "powershell", "cmd"):
            ms = statistics.median(
                _ms(T("git push origin main", output, "", shell)) for _ in range(3)
            )
            print(f"  {name:26s} {shell:10s} {ms:8.2f} ms")
