"""Benchmark: secret values removed by `termwise redact --jsonl` over gitleaks' own rule test data."""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from termwise.agent.privacy.redact import redact

DATA = Path(__file__).parent / "data" / "secrets"
ROUNDS = 5
_MARKER = re.compile(r"\[REDACTED:[\w-]+\]")
_WORD = re.compile(r"[A-Za-z0-9_.\-]{3,}")


def load(name: str) -> list[dict[str, Any]]:
    with open(DATA / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def vendor(rule_id: str) -> str:
    """The credential family a gitleaks rule id belongs to (its vendor: `gitlab-pat` → `gitlab`)."""
    return rule_id.split("-")[0]


def leaked(secret: str, out: str) -> bool:
    """True when the value, or a long piece of it, is still in the output."""
    width = min(12, max(6, len(secret) // 2), len(secret))
    return any(secret[i : i + width] in out for i in range(len(secret) - width + 1))


def context_kept(text: str, secrets: list[str], out: str) -> float:
    """Share of the words around the secret (names, keys, other values) that survive."""
    rest = text
    for s in secrets:
        # The whole token the value sits in goes (a marked piece may be the middle of a token).
        rest = re.sub(r"[^\s\"'`<>(),]*" + re.escape(s) + r"[^\s\"'`<>(),]*", " ", rest)
    words = [w for w in _WORD.findall(rest) if not any(w in s for s in secrets)]
    if not words:
        return 1.0
    plain = _MARKER.sub(" ", out)
    return sum(w in plain for w in words) / len(words)


def run_cli(texts: list[str], home: Path) -> list[dict[str, Any]]:
    """The real command: `termwise redact --jsonl` in a subprocess, one JSON line per input."""
    env = {**os.environ, "TERMWISE_HOME": str(home)}
    feed = "".join(json.dumps({"text": t}) + "\n" for t in texts)
    proc = subprocess.run(
        [sys.executable, "-m", "termwise.tray.commands.cli", "redact", "--jsonl"],
        input=feed,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(rows) == len(texts), proc.stderr[-2000:]
    return rows


def score(cases: list[dict[str, Any]], outs: list[str]) -> dict[str, Any]:
    per_family: dict[str, list[bool]] = defaultdict(list)
    per_rule: dict[str, list[bool]] = defaultdict(list)
    kept: list[float] = []
    misses: dict[str, list[str]] = defaultdict(list)
    for case, out in zip(cases, outs, strict=True):
        ok = not any(leaked(s, out) for s in case["secrets"])
        per_family[vendor(case["family"])].append(ok)
        per_rule[case["family"]].append(ok)
        kept.append(context_kept(case["text"], case["secrets"], out))
        if not ok:
            misses[case["family"]].append(case["text"])
    fam = {f: sum(v) / len(v) for f, v in per_family.items()}
    rule = {f: sum(v) / len(v) for f, v in per_rule.items()}
    values = [ok for v in per_family.values() for ok in v]
    return {
        "macro": statistics.mean(fam.values()),
        "macro_rule": statistics.mean(rule.values()),
        "values": sum(values) / len(values),
        "families": fam,
        "rules": rule,
        "context": statistics.mean(kept),
        "misses": misses,
    }


@pytest.mark.bench
def test_redact_secret_families(tmp_path: Path) -> None:
    """Macro % over credential families, % of values, weakest families, look-alikes kept, context."""
    cases = load("gitleaks_tps.jsonl")
    fps = load("gitleaks_fps.jsonl") + load("lookalikes.jsonl")
    rows = run_cli([c["text"] for c in cases] + [f["text"] for f in fps], tmp_path)
    outs = [r["text"] for r in rows[: len(cases)]]
    result = score(cases, outs)
    fp_changed = [f for f, r in zip(fps, rows[len(cases) :], strict=True) if r["text"] != f["text"]]
    n_fam, n_rule = len(result["families"]), len(result["rules"])
    print(f"\nredaction over gitleaks rule tests: {len(cases)} texts, {n_fam} families")
    print(f"  macro over {n_fam} families:   {result['macro'] * 100:.1f} %")
    print(f"  macro over {n_rule} rule ids:   {result['macro_rule'] * 100:.1f} %")
    print(f"  values removed:              {result['values'] * 100:.1f} %")
    print(f"  context kept (words around): {result['context'] * 100:.1f} %")
    print(
        f"  look-alikes changed:         {len(fp_changed)}/{len(fps)} "
        f"= {len(fp_changed) / len(fps) * 100:.1f} %"
    )
    for f in fp_changed[:12]:
        print(f"    changed [{f['family']}] {f['text'][:100]!r}")
    print("  weakest families:")
    for fam, rate in sorted(result["families"].items(), key=lambda x: x[1])[:12]:
        print(f"    {rate * 100:5.1f} %  {fam}")
    for rule, texts in sorted(result["misses"].items(), key=lambda x: -len(x[1]))[:15]:
        print(f"    miss {rule} ({len(texts)}): {texts[0][:110]!r}")
    assert len(outs) == len(cases)


@pytest.mark.bench
def test_redact_time_per_line() -> None:
    """In-process time per line and per KB over the same texts, ≥5 interleaved rounds."""
    texts = [c["text"] for c in load("gitleaks_tps.jsonl")]
    texts += [f["text"] for f in load("gitleaks_fps.jsonl") + load("lookalikes.jsonl")]
    plain = "\n".join(texts)
    kb = len(plain.encode()) / 1024
    per_line: list[float] = []
    per_kb: list[float] = []
    baseline: list[float] = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for t in texts:
            redact(t)
        per_line.append((time.perf_counter() - t0) / len(texts) * 1e6)
        t0 = time.perf_counter()
        redact(plain)
        per_kb.append((time.perf_counter() - t0) / kb * 1e3)
        # Peer in the same run: one pass of a single compiled regex over the same bytes.
        t0 = time.perf_counter()
        re.findall(r"[A-Za-z0-9_]{40,}", plain)
        baseline.append((time.perf_counter() - t0) / kb * 1e3)
    print(f"\nredact() over {len(texts)} lines ({kb:.0f} KB), {ROUNDS} rounds")
    print(
        "  µs per line  min/median/max: "
        f"{min(per_line):.1f} / {statistics.median(per_line):.1f} / {max(per_line):.1f}"
    )
    print(
        "  ms per KB (one big text)   : "
        f"{min(per_kb):.3f} / {statistics.median(per_kb):.3f} / {max(per_kb):.3f}"
    )
    print(f"  one-regex scan, ms per KB  : {statistics.median(baseline):.4f}")
    assert per_line
