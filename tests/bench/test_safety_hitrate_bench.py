"""Benchmark: safety verdicts of the real `termwise check --jsonl` over public classifier test data."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest
from termwise.agent.safety import classify

DATA = Path(__file__).parent / "data" / "safety"
ROUNDS = 5
# label -> what a right answer is; "harmless" and "readonly" only count a `dangerous` as a false alarm
LABELS = ("destructive", "risky", "temp", "harmless", "readonly")


def load_cases() -> list[dict[str, str]]:
    """Every case of every data file (public sources and our own hostile set), in file order."""
    cases: list[dict[str, str]] = []
    for path in sorted(DATA.glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                case["file"] = path.name
                cases.append(case)
    return cases


def run_check(cases: list[dict[str, str]], home: Path) -> list[str]:
    """Verdicts from the installed command line, one JSON line per case."""
    feed = "".join(json.dumps({"command": c["command"], "shell": c["shell"]}) + "\n" for c in cases)
    env = {**os.environ, "TERMWISE_HOME": str(home)}
    script = Path(sys.executable).with_name("termwise")  # the installed console script
    argv = (
        [str(script)] if script.exists() else [sys.executable, "-m", "termwise.tray.commands.cli"]
    )
    done = subprocess.run(
        [*argv, "check", "--jsonl"],
        input=feed,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    print(f"\n  verdicts from: {' '.join(Path(a).name for a in argv)} check --jsonl")
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert len(answers) == len(cases), done.stderr[-2000:]
    return [a.get("verdict", "error") for a in answers]


def summarise(cases: list[dict[str, str]], verdicts: list[str]) -> dict[str, object]:
    """The headline figures and a per-class breakdown (also used by the regression test)."""
    per_class: dict[tuple[str, str], list[str]] = defaultdict(list)
    by_label: dict[str, list[str]] = defaultdict(list)
    for case, verdict in zip(cases, verdicts, strict=True):
        per_class[(case["label"], case["class"])].append(verdict)
        by_label[case["label"]].append(verdict)
    destructive = by_label["destructive"]
    harmless = by_label["harmless"] + by_label["readonly"]
    return {
        "destructive": len(destructive),
        "destructive_safe": destructive.count("safe"),
        "destructive_dangerous": destructive.count("dangerous"),
        "risky": len(by_label["risky"]),
        "risky_safe": by_label["risky"].count("safe"),
        "temp": len(by_label["temp"]),
        "temp_confirm": by_label["temp"].count("confirm"),
        "harmless": len(harmless),
        "false_alarms": harmless.count("dangerous"),
        "readonly": len(by_label["readonly"]),
        "readonly_safe": by_label["readonly"].count("safe"),
        "per_class": per_class,
    }


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f} %" if whole else "   n/a"


@pytest.mark.bench
def test_safety_hitrate_on_public_cases(tmp_path: Path) -> None:
    """Print never-safe, % dangerous, % false alarms per class, and classify() time per round."""
    cases = load_cases()
    verdicts = run_check(cases, tmp_path)
    s = summarise(cases, verdicts)
    print()
    print(f"safety over {len(cases)} cases from {len({c['file'] for c in cases})} files")
    print(
        f"  destructive never safe: {s['destructive_safe']} of {s['destructive']} rated safe (goal 0)"
    )
    print(
        f"  destructive rated dangerous: {s['destructive_dangerous']}/{s['destructive']} = "
        f"{_pct(s['destructive_dangerous'], s['destructive'])} (goal >= 97 %)"  # type: ignore[arg-type]
    )
    print(
        f"  false alarms (harmless rated dangerous): {s['false_alarms']}/{s['harmless']} = "
        f"{_pct(s['false_alarms'], s['harmless'])} (goal <= 3 %)"  # type: ignore[arg-type]
    )
    print(f"  risky (must ask) rated safe: {s['risky_safe']} of {s['risky']} (goal 0)")
    print(
        f"  temp-folder deletes rated confirm: {s['temp_confirm']}/{s['temp']}; "
        f"read-only rated safe: {s['readonly_safe']}/{s['readonly']}"
    )
    print("  per label/class: n  safe/confirm/dangerous")
    per_class: dict[tuple[str, str], list[str]] = s["per_class"]  # type: ignore[assignment]
    for (label, cls), got in sorted(per_class.items()):
        counts = "/".join(str(got.count(v)) for v in ("safe", "confirm", "dangerous"))
        print(f"    {label:<11} {cls:<14} {len(got):>4}  {counts}")
    misses = [
        (c, v)
        for c, v in zip(cases, verdicts, strict=True)
        if (c["label"] == "destructive" and v != "dangerous")
        or (c["label"] in ("harmless", "readonly") and v == "dangerous")
        or (c["label"] == "risky" and v == "safe")
        or (c["label"] == "temp" and v != "confirm")
    ]
    for case, verdict in misses[:60]:
        print(f"    miss [{case['label']}/{case['class']}] {verdict}: {case['command']!r}")

    # classify() in-process: interleaved rounds over every case, per-call min/median/max
    for case in cases:
        classify(case["command"], case["shell"])  # warm-up: rules compiled once per process
    per_round: list[float] = []
    per_call: list[float] = []
    for _ in range(ROUNDS):
        start_round = time.perf_counter()
        for case in cases:
            start = time.perf_counter()
            classify(case["command"], case["shell"])
            per_call.append((time.perf_counter() - start) * 1000)
        per_round.append((time.perf_counter() - start_round) * 1000)
    print(
        f"  classify per call over {ROUNDS} rounds: min {min(per_call):.3f} ms, "
        f"median {statistics.median(per_call):.3f} ms, max {max(per_call):.3f} ms"
    )
    print(
        f"  per round ({len(cases)} calls): min {min(per_round):.1f} ms, "
        f"median {statistics.median(per_round):.1f} ms, max {max(per_round):.1f} ms"
    )
