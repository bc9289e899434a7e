"""The three tiers: recent commands, background summaries every N commands, profile rewrite."""

from __future__ import annotations

import threading
from pathlib import Path

from termwise.memory.store import MemoryStore
from termwise.memory.tiers import PROFILE_KEY, CommandRecord, MemoryTiers


def test_short_term_keeps_the_last_n_with_exit_codes(tmp_path: Path) -> None:
    """Only the last N commands of each session are kept, each with its exit code."""
    tiers = MemoryTiers(MemoryStore(tmp_path), short_term=3, summary_every=100)
    for i in range(5):
        tiers.on_command("s1", CommandRecord(f"cmd{i}", i % 2))
    tiers.on_command("s2", CommandRecord("other", 0))
    assert [r.command for r in tiers.short.recent("s1")] == ["cmd2", "cmd3", "cmd4"]
    assert tiers.short.render("s1").splitlines()[0] == "[exit 0] cmd2"
    assert [r.command for r in tiers.short.recent("s2")] == ["other"]
    tiers.close()


def test_summary_every_n_commands_runs_in_the_background(tmp_path: Path) -> None:
    """The Nth command queues a summary and returns at once, even while the summariser is stuck."""
    release = threading.Event()
    seen: list[str] = []

    def summarize(material: str) -> str:
        release.wait(10)
        seen.append(material)
        return f"summary {len(seen)}"

    store = MemoryStore(tmp_path)
    tiers = MemoryTiers(store, summarize=summarize, summary_every=3)
    for i in range(6):
        tiers.on_command("s1", CommandRecord(f"git commit -m {i}", 0))  # never blocks
    assert seen == []
    release.set()
    assert tiers.flush(10)
    assert len(seen) == 2
    assert "git commit -m 0" in seen[0] and "git commit -m 3" not in seen[0]
    assert "Summary so far:\nsummary 1" in seen[1] and "git commit -m 5" in seen[1]
    [episode] = [e for e in store.entries() if e.type == "episode"]
    assert episode.content == "summary 2"
    tiers.close()


def test_session_end_summarises_the_rest_and_rewrites_the_profile(tmp_path: Path) -> None:
    """At session end the leftover commands are summarised and the profile rewritten from it."""
    store = MemoryStore(tmp_path)
    store.upsert("pref:editor", "profile", "uses vim")
    calls: list[tuple[str, list[str]]] = []

    def rewrite(old: str, summaries: list[str]) -> str:
        calls.append((old, summaries))
        return "Uses vim and cargo daily."

    tiers = MemoryTiers(
        store, summarize=lambda m: "built a Rust project", rewrite_profile=rewrite, summary_every=10
    )
    tiers.on_command("s1", CommandRecord("cargo build", 101))
    tiers.on_session_end("s1")
    assert tiers.flush(10)
    [(old, summaries)] = calls
    assert "pref:editor" in old and summaries == ["built a Rust project"]
    assert store.get(PROFILE_KEY).content == "Uses vim and cargo daily."
    assert store.get("pref:editor") is not None  # the user's own entries survive
    assert tiers.short.recent("s1") == []
    tiers.close()


def test_a_failing_summariser_loses_no_commands(tmp_path: Path) -> None:
    """When the model fails, the commands stay queued and the next summary covers them."""
    attempts: list[str] = []

    def summarize(material: str) -> str:
        attempts.append(material)
        if len(attempts) == 1:
            raise ConnectionError("model down")
        return "ok"

    tiers = MemoryTiers(MemoryStore(tmp_path), summarize=summarize, summary_every=2)
    for cmd in ("a", "b", "c"):
        tiers.on_command("s1", CommandRecord(cmd, 0))
        assert tiers.flush(10)
    assert "model down" in tiers.worker.failures[0]
    # a and b failed with the first attempt and were summarised with c by the second.
    assert all(f"] {c}" in attempts[1] for c in "abc")
    tiers.close()


def test_without_a_model_a_plain_summary_is_kept(tmp_path: Path) -> None:
    """Offline, the mid-term tier still records what ran, counted by program."""
    store = MemoryStore(tmp_path)
    tiers = MemoryTiers(store, summary_every=3)
    for cmd, code in (("git status", 0), ("git push", 1), ("make", 0)):
        tiers.on_command("s1", CommandRecord(cmd, code))
    assert tiers.flush(10)
    [episode] = store.entries()
    assert episode.content == "Ran 3 commands (1 failed): git ×2, make ×1."
    tiers.close()


def test_tray_quit_rewrites_the_profile_once_from_every_session(tmp_path: Path) -> None:
    """Quitting with several open sessions summarises each and rewrites the profile once."""
    store = MemoryStore(tmp_path)
    rewrites: list[list[str]] = []

    def rewrite(old: str, summaries: list[str]) -> str:
        rewrites.append(sorted(summaries))
        return "overview"

    tiers = MemoryTiers(
        store, summarize=lambda m: m.splitlines()[-1], rewrite_profile=rewrite, summary_every=10
    )
    tiers.on_command("1", CommandRecord("make", 0))
    tiers.on_command("2", CommandRecord("npm test", 1))
    tiers.end_all()
    assert tiers.flush(10)
    assert rewrites == [["[exit 0] make", "[exit 1] npm test"]]
    assert len([e for e in store.entries() if e.type == "episode"]) == 2
    tiers.close()
