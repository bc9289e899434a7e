"""Statements about the user, in English and Chinese, become profile entries; secrets never do."""

from __future__ import annotations

import re
from pathlib import Path

from termwise.memory.extract import find_statements, remember_statements
from termwise.memory.store import MemoryStore


def _looks_secret(text: str) -> bool:
    # Stands in for the agent's redactor, which the memory package may not import.
    return bool(re.search(r"sk-[A-Za-z0-9]{16,}|password\s*[:=]", text, re.I))


def test_english_statements(tmp_path: Path) -> None:
    """Likes, dislikes, projects and goals in English are upserted under pref/project/goal keys."""
    store = MemoryStore(tmp_path)
    text = (
        "I like short answers. I don't like emojis in commit messages! "
        "I'm working on a Rust CLI for backups; my goal is to learn Kubernetes."
    )
    result = remember_statements(store, text, _looks_secret)
    got = {e.key: e.content for e in store.entries()}
    assert got == {
        "pref:short_answers": "likes short answers",
        "pref:emojis_commit_messages": "dislikes emojis in commit messages",
        "project:rust_cli_backups": "working on a Rust CLI for backups",
        "goal:learn_kubernetes": "goal: learn Kubernetes",
    }
    assert result.withheld == 0 and len(result.written) == 4
    assert all(e.type == "profile" for e in store.entries())


def test_changing_your_mind_replaces_the_preference(tmp_path: Path) -> None:
    """ "I don't like X" after "I like X" updates the same key rather than adding a second one."""
    store = MemoryStore(tmp_path)
    remember_statements(store, "I like tabs", _looks_secret)
    remember_statements(store, "I don't like tabs", _looks_secret)
    assert [(e.key, e.content) for e in store.entries()] == [("pref:tabs", "dislikes tabs")]


def test_chinese_statements(tmp_path: Path) -> None:
    """我喜欢 / 我不喜欢 / 我正在做 / 我的目标是 each produce their entry."""
    store = MemoryStore(tmp_path)
    remember_statements(
        store,
        "我喜欢简短的回答。我不喜欢表情符号！我正在做一个博客网站，我的目标是学会 Go 语言。",
        _looks_secret,
    )
    got = {e.key: e.content for e in store.entries()}
    assert got["pref:简短的回答"] == "喜欢简短的回答"
    assert got["pref:表情符号"] == "不喜欢表情符号"
    assert got["project:一个博客网站"] == "正在做一个博客网站"
    assert got["goal:学会go语言"] == "目标是学会 Go 语言"


def test_secret_in_a_chinese_project_sentence_is_not_written(tmp_path: Path) -> None:
    """A "我正在做…" sentence carrying an API key is withheld; the harmless one beside it is kept."""
    store = MemoryStore(tmp_path)
    result = remember_statements(
        store,
        "我正在做一个用 sk-abcdefghijklmnopqrstuv 调用的机器人。我喜欢深色主题。",
        _looks_secret,
    )
    assert result.withheld == 1
    assert [e.key for e in store.entries()] == ["pref:深色主题"]
    on_disk = "".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file())
    assert "sk-abc" not in on_disk


def test_plain_text_yields_nothing() -> None:
    """Ordinary sentences are not mistaken for statements about the user."""
    assert find_statements("The build failed because likes.json is missing.") == []
    assert find_statements("他喜欢咖啡") == []
