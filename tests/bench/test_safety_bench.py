"""Benchmark: time of `classify` per command over the whole safety table (goal: median ≤ 1 ms)."""

from __future__ import annotations

import statistics
import time

import pytest
from termwise.agent.safety import classify

from tests.agent.safety.test_classify import NASTY, TABLE

ROUNDS = 5


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))
    return ordered[index]


@pytest.mark.bench
def test_classify_speed_over_the_table() -> None:
    """Print median and p95 ms per classify call, per shell family, beside a bashlex-only baseline."""
    import bashlex

    cases = [c for c in TABLE + NASTY if len(c["cmd"]) < 2000]
    long_cases = [c for c in TABLE + NASTY if len(c["cmd"]) >= 2000]
    for case in cases:  # warm-up: rule files are read and compiled once per process
        classify(case["cmd"], case.get("shell", "bash"))

    per_call: dict[str, list[float]] = {}
    for _ in range(ROUNDS):
        for case in cases:
            shell = case.get("shell", "bash")
            start = time.perf_counter()
            classify(case["cmd"], shell)
            per_call.setdefault(shell, []).append((time.perf_counter() - start) * 1000)
    every = [t for times in per_call.values() for t in times]

    baseline: list[float] = []
    for _ in range(ROUNDS):
        for case in cases:
            if case.get("shell", "bash") != "bash":
                continue
            start = time.perf_counter()
            try:
                bashlex.parse(case["cmd"])
            except Exception:
                pass
            baseline.append((time.perf_counter() - start) * 1000)

    print()
    print(f"classify over {len(cases)} table cases x {ROUNDS} rounds")
    print(
        f"  all shells  median {statistics.median(every):.3f} ms  p95 {_percentile(every, 95):.3f} ms"
    )
    for shell, times in sorted(per_call.items()):
        print(
            f"  {shell:<12} median {statistics.median(times):.3f} ms  "
            f"p95 {_percentile(times, 95):.3f} ms  (n={len(times)})"
        )
    bash_median = statistics.median(per_call["bash"])
    base_median = statistics.median(baseline)
    print(
        f"  baseline bashlex.parse alone on the bash cases: median {base_median:.3f} ms "
        f"(classify/bashlex = {bash_median / base_median:.2f}x)"
    )
    for case in long_cases:
        start = time.perf_counter()
        classify(case["cmd"], case.get("shell", "bash"))
        took = (time.perf_counter() - start) * 1000
        head = case["cmd"][:16].replace("\n", " ")
        print(
            f"  long input {head!r}… ({len(case['cmd'])} chars, {case.get('shell', 'bash')}): {took:.1f} ms"
        )
    print("  goal: median <= 1 ms")
