"""Retrieval follows the scoring rules and finds Chinese text."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from termwise.memory import retrieve_snippets
from termwise.memory.format import Entry
from termwise.memory.retrieve import Retriever, query_terms
from termwise.memory.store import MemoryStore

TODAY = date(2026, 3, 1)


def test_key_hit_beats_content_hit_and_recency_breaks_ties() -> None:
    """Key hit +2, content hit +1, recent +1: the order and scores follow from those rules."""
    entries = [
        Entry("note:a", "fact", "docker compose up works", (), "2025-01-01"),  # content: 1
        Entry("tool:docker", "fact", "installed", (), "2025-01-01"),  # key: 2
        Entry("note:b", "fact", "docker is slow here", (), "2026-02-28"),  # content + recent: 2
        Entry("tool:docker_desktop", "fact", "docker desktop 4.3", (), "2026-02-27"),  # 2+1+1
        Entry("note:c", "fact", "podman only", (), "2026-02-28"),  # no hit
    ]
    hits = Retriever(entries).search("docker", n=5, today=TODAY)
    assert [(h.entry.key, h.score) for h in hits] == [
        ("tool:docker_desktop", 4),
        ("note:b", 2),  # ties with tool:docker at 2; the newer one first
        ("tool:docker", 2),
        ("note:a", 1),
    ]


def test_each_query_term_counts() -> None:
    """An entry matching two query words outranks one matching a single word."""
    entries = [
        Entry("a", "fact", "python venv lives in .venv", (), "2025-01-01"),
        Entry("b", "fact", "python 3.11", (), "2025-01-01"),
    ]
    hits = Retriever(entries).search("where is my python venv", n=2, today=TODAY)
    assert [h.entry.key for h in hits] == ["a", "b"]
    assert hits[0].score == 2 and hits[1].score == 1


def test_chinese_query_finds_chinese_entries(tmp_path: Path) -> None:
    """A Chinese question with no spaces finds the Chinese entry through character pairs."""
    store = MemoryStore(tmp_path, clock=lambda: datetime(2026, 3, 1).timestamp())
    store.upsert("pref:编辑器", "profile", "我喜欢用 Neovim 写代码")
    store.upsert("project:部署", "profile", "我正在做一个网站部署脚本")
    store.upsert("pref:shell", "profile", "uses zsh")
    assert store.search("我平时用什么编辑器")[0].entry.key == "pref:编辑器"
    assert store.search("部署脚本怎么写")[0].entry.key == "project:部署"
    assert store.search("编辑器")[0].entry.key == "pref:编辑器"


def test_query_terms_split_words_and_cjk_pairs() -> None:
    """Latin text splits into words without stop words; CJK runs become overlapping pairs."""
    assert query_terms("How do I fix the Docker build?") == ["fix", "docker", "build"]
    assert query_terms("部署脚本") == ["部署", "署脚", "脚本"]
    assert query_terms("用 vim") == ["用", "vim"]


def test_top_n_and_snippets(tmp_path: Path) -> None:
    """Only the n best come back, as one prompt line each with key, type and content."""
    store = MemoryStore(tmp_path)
    for i in range(6):
        store.upsert(f"fact:git{i}", "fact", f"git alias number {i}")
    lines = retrieve_snippets(store, "git alias", 3)
    assert len(lines) == 3
    assert all(line.startswith("fact:git") and "(fact, " in line for line in lines)
    assert retrieve_snippets(store, "nothing matches this", 3) == []


def test_common_and_rare_terms_find_exactly_the_entries_containing_them() -> None:
    """Whichever scan a term's frequency picks, hits equal a plain substring test of every entry."""
    import random

    from termwise.memory.retrieve import _Column

    rng = random.Random(3)
    words = ["git", "gitlab", "docker", "部署", "署脚", "x", "build"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) for _ in range(3000)]
    column = _Column(texts)
    for term in ["git", "lab", "docker", "部署", "build", "x", "nope"]:
        assert column.hits(term) == [i for i, t in enumerate(texts) if term in t], term
