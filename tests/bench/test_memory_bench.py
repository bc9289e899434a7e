"""Benchmark: top-3 retrieval across 10,000 memory entries (goal: 10 ms or less)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from termwise.memory.format import Entry, new_file_text
from termwise.memory.retrieve import query_terms
from termwise.memory.store import MemoryStore

WORDS = (
    "git docker cargo npm pip kubectl ssh rsync make cmake python node rust go java "
    "build deploy test branch commit push pull cache image volume port proxy venv "
    "部署 编辑器 数据库 服务器 测试 构建 镜像 分支 提交 网络"
).split()


def _write_entries(root: Path, n: int) -> None:
    rng = random.Random(7)
    entries = []
    for i in range(n):
        words = " ".join(rng.choice(WORDS) for _ in range(12))
        day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        entries.append(Entry(f"fact:{rng.choice(WORDS)}_{i}", "fact", words, ("bench",), day))
    root.mkdir(parents=True, exist_ok=True)
    (root / "facts.md").write_text(new_file_text("Facts", entries), encoding="utf-8")


@pytest.mark.bench
def test_top3_retrieval_across_10000_entries(tmp_path: Path) -> None:
    """Prints the time of one top-3 search over 10,000 entries, after the first load."""
    _write_entries(tmp_path, 10_000)
    store = MemoryStore(tmp_path)
    start = time.perf_counter()
    assert len(store.entries()) == 10_000
    load_ms = (time.perf_counter() - start) * 1000
    queries = ["docker port proxy", "how do I deploy with kubectl", "数据库 服务器", "rust cargo"]
    store.search(queries[0])  # builds the search structures once
    rounds = 50
    timings = []
    for query in queries:
        start = time.perf_counter()
        for _ in range(rounds):
            hits = store.search(query, 3)
        timings.append((time.perf_counter() - start) * 1000 / rounds)
        assert len(hits) == 3
    entries = store.entries()
    naive = []
    for query in queries:
        start = time.perf_counter()
        for _ in range(5):
            _naive_top3(entries, query)
        naive.append((time.perf_counter() - start) * 1000 / 5)
    print(f"\nmemory: parse 10,000 entries once: {load_ms:.1f} ms")
    for query, ms, base in zip(queries, timings, naive, strict=True):
        print(
            f"memory: top-3 of 10,000 for {query!r}: {ms:.2f} ms (goal <= 10 ms); "
            f"per-entry loop baseline {base:.2f} ms, {base / ms:.1f}x"
        )


def _naive_top3(entries: list[Entry], query: str) -> list[Entry]:
    """The obvious implementation: test every term against every entry in Python."""
    terms = query_terms(query)
    scored = []
    for entry in entries:
        key, text = entry.key.lower(), entry.content.lower()
        score = sum(2 * (t in key) + (t in text) for t in terms)
        if score:
            scored.append((score, entry.updated_at, entry))
    scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
    return [e for _, _, e in scored[:3]]
