"""Benchmark: every rule stays linear on hostile output.

A command's output is not ours: a program can print one phrase a rule looks for thousands
of times on one line. A rule whose pattern scans to the end of the line from every such
start is quadratic, and one did 2 s of work on 64 KB before its spans were bounded. Each
hostile output here repeats the literal start of one of the rules' own patterns; every rule
runs on it at 16 KB and at 64 KB (the most the rules ever see), and the slowest are
printed with their 64 KB / 16 KB ratio (4 for a linear rule, 16 for a quadratic one).
"""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import pytest
from termwise.agent.rules.engine import RULES, Case

RULES_DIR = Path(__file__).resolve().parents[2] / "agent" / "rules"
SCRIPTS = (("npm start", "bash"), ("git push", "bash"), ("cd src", "powershell"))
FILLS = (" ", "'")
SLOW = 0.03  # seconds on 64 KB before a rule is looked at twice
SUPERLINEAR = 8.0  # 64 KB / 16 KB time ratio that fails the job (linear is 4)


def pattern_starts() -> list[str]:
    """The literal text each pattern in the rules' source begins with (4+ characters)."""
    found: set[str] = set()
    for path in sorted(RULES_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                m = re.match(r"[^\\()\[\].*+?{|^$]{4,}", node.value)
                if m:
                    found.add(m.group(0)[:40])
    return sorted(found)


def hostile(start: str, fill: str, size: int) -> str:
    unit = start + fill
    return (unit * (size // len(unit) + 1))[:size]


def timed(func, case: Case) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    try:
        func(case)
    except Exception:
        pass  # failures are the property tests' business; this measures time
    return time.perf_counter() - t0


@pytest.mark.bench
def test_every_rule_stays_linear_on_hostile_output() -> None:
    starts = pattern_starts()
    worst: dict[str, tuple[float, float, str]] = {}
    for i, start in enumerate(starts):
        # Scripts and fills rotate over the starts: the whole product takes minutes.
        script, shell = SCRIPTS[i % len(SCRIPTS)]
        fill = FILLS[i // len(SCRIPTS) % len(FILLS)]
        big = Case(script, hostile(start, fill, 64_000), 1, shell)
        small = Case(script, hostile(start, fill, 16_000), 1, shell)
        for rule in RULES:
            t_big = timed(rule.func, big)
            if t_big < SLOW:
                continue
            # Twice each, the faster kept: a pause of the collector is not a rule.
            t_big = min(t_big, timed(rule.func, big))
            t_small = min(timed(rule.func, small), timed(rule.func, small))
            ratio = t_big / max(t_small, 1e-6)
            if rule.name not in worst or worst[rule.name][0] < t_big:
                worst[rule.name] = (t_big, ratio, start)
    print(f"\n{len(starts)} pattern starts (scripts and fills rotating), {len(RULES)} rules")
    if not worst:
        print(f"  every rule under {SLOW * 1000:.0f} ms on 64 KB of hostile output")
    for name, (t_big, ratio, start) in sorted(worst.items(), key=lambda kv: -kv[1][0]):
        print(f"  {name:32s} {t_big * 1000:7.1f} ms at 64 KB, x{ratio:.1f} of 16 KB  ({start!r})")
    bad = [n for n, (t, r, _) in worst.items() if t >= SLOW and r > SUPERLINEAR]
    assert not bad, f"rules superlinear on hostile output: {bad}"
