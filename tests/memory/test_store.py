"""The Markdown store: upserts, deletes, index, damaged files and migrations."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import pytest
from termwise.memory.errors import MemoryStoreError
from termwise.memory.format import parse_text
from termwise.memory.store import MemoryStore


def _clock(day: str):
    return lambda: datetime.fromisoformat(day + "T12:00:00").timestamp()


def test_new_entry_is_written_in_the_documented_format(tmp_path: Path) -> None:
    """A new key lands in profile.md exactly as the format shows and is indexed."""
    store = MemoryStore(tmp_path, clock=_clock("2026-02-11"))
    store.upsert("pref:answer_style", "profile", "prefers short answers", ["preference"])
    text = (tmp_path / "profile.md").read_text(encoding="utf-8")
    assert (
        "## pref:answer_style\n- type: profile\n- tags: preference\n"
        "- updated_at: 2026-02-11\n- content: prefers short answers\n"
    ) in text
    assert "pref:answer_style\tprofile.md\tprofile\t2026-02-11" in (
        tmp_path / "index" / "memory_keys.tsv"
    ).read_text(encoding="utf-8")


def test_upsert_replaces_the_section_and_refreshes_the_date(tmp_path: Path) -> None:
    """Upserting an existing key rewrites only its section, with today's date, in place."""
    days = iter(["2026-02-11", "2026-02-11", "2026-03-01"])
    store = MemoryStore(tmp_path, clock=lambda: _clock(next(days))())
    store.upsert("pref:shell", "profile", "uses bash")
    store.upsert("pref:editor", "profile", "uses vim")
    store.upsert("pref:shell", "profile", "uses zsh now")
    parsed = parse_text((tmp_path / "profile.md").read_text(encoding="utf-8"))
    assert [loc.entry.key for loc in parsed.entries] == ["pref:shell", "pref:editor"]
    shell = parsed.entries[0].entry
    assert (shell.content, shell.updated_at) == ("uses zsh now", "2026-03-01")
    assert parsed.entries[1].entry.updated_at == "2026-02-11"


def test_types_go_to_their_files_and_a_type_change_moves_the_entry(tmp_path: Path) -> None:
    """Facts go to facts.md, episodes to episodes/<day>.md; changing the type moves the entry."""
    store = MemoryStore(tmp_path, clock=_clock("2026-02-11"))
    store.upsert("tool:git", "fact", "git 2.43 installed")
    store.upsert("episode:s1", "episode", "fixed a failing build\nthen pushed")
    assert "tool:git" in (tmp_path / "facts.md").read_text(encoding="utf-8")
    assert "then pushed" in (tmp_path / "episodes" / "2026-02-11.md").read_text(encoding="utf-8")
    store.upsert("tool:git", "profile", "uses git every day")
    assert "tool:git" not in (tmp_path / "facts.md").read_text(encoding="utf-8")
    assert store.index_rows()["tool:git"].file == "profile.md"
    assert store.get("episode:s1").content == "fixed a failing build\nthen pushed"


def test_hand_edits_are_picked_up_and_indexed(tmp_path: Path) -> None:
    """A section the user adds in an editor is found by get, search and the index."""
    store = MemoryStore(tmp_path)
    store.upsert("pref:a", "profile", "first")
    with open(tmp_path / "facts.md", "a", encoding="utf-8") as handle:
        handle.write("## fact:vpn\n- type: fact\n- content: the VPN is wg0\n")
    assert store.get("fact:vpn").content == "the VPN is wg0"
    assert store.index_rows()["fact:vpn"].file == "facts.md"
    assert store.search("vpn")[0].entry.key == "fact:vpn"


def test_delete_and_purge(tmp_path: Path) -> None:
    """Delete forgets one key and keeps the rest; purge forgets everything."""
    store = MemoryStore(tmp_path)
    store.upsert("a:1", "fact", "one")
    store.upsert("a:2", "fact", "two")
    assert store.delete("a:1") is True
    assert store.delete("a:1") is False
    assert [e.key for e in store.entries()] == ["a:2"]
    assert set(store.index_rows()) == {"a:2"}
    assert store.purge() == 1
    assert store.entries() == [] and not (tmp_path / "facts.md").exists()


def test_bad_keys_types_and_empty_content_are_refused(tmp_path: Path) -> None:
    """Input that would break the file format is refused with a message saying why."""
    store = MemoryStore(tmp_path)
    with pytest.raises(MemoryStoreError, match="without spaces"):
        store.upsert("two words", "fact", "x")
    with pytest.raises(MemoryStoreError, match="type must be one of"):
        store.upsert("k", "diary", "x")
    with pytest.raises(MemoryStoreError, match="empty"):
        store.upsert("k", "fact", "  ")
    assert store.entries() == []


def test_corrupt_section_is_reported_kept_aside_and_the_rest_survives(tmp_path: Path) -> None:
    """A broken section is reported with file and line, the original is copied aside, others stay."""
    store = MemoryStore(tmp_path)
    store.upsert("fact:a", "fact", "alpha")
    store.upsert("fact:b", "fact", "beta")
    path = tmp_path / "facts.md"
    text = path.read_text(encoding="utf-8")
    broken = text.replace(
        "- type: fact\n- updated_at", "- type: fact\ngarbage here\n- updated_at", 1
    )
    path.write_text(broken, encoding="utf-8")
    bad_line = broken.split("\n").index("garbage here") + 1

    fresh = MemoryStore(tmp_path)
    assert [e.key for e in fresh.entries()] == ["fact:b"]
    [problem] = fresh.problems
    assert problem.path == path and problem.line == bad_line
    assert "garbage here" in problem.message
    assert problem.kept_aside is not None
    assert problem.kept_aside.read_text(encoding="utf-8") == broken
    if sys.platform != "win32":  # the copy holds memories: this user only
        assert problem.kept_aside.stat().st_mode & 0o777 == 0o600
    assert f"facts.md:{bad_line}" in str(problem)
    fresh.upsert("fact:c", "fact", "gamma")
    assert {e.key for e in MemoryStore(tmp_path).entries()} == {"fact:b", "fact:c"}


def test_invalid_utf8_is_reported_with_its_line(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 are reported with their line and the file is kept aside."""
    store = MemoryStore(tmp_path)
    store.upsert("fact:a", "fact", "alpha")
    path = tmp_path / "facts.md"
    raw = path.read_bytes() + b"\n## fact:b\n- type: fact\n- content: caf\xe9\n"
    path.write_bytes(raw)
    fresh = MemoryStore(tmp_path)
    keys = [e.key for e in fresh.entries()]
    assert "fact:a" in keys
    problem = fresh.problems[0]
    assert problem.line == raw.split(b"\n").index(b"- content: caf\xe9") + 1
    assert problem.kept_aside is not None and problem.kept_aside.read_bytes() == raw


def test_version_0_file_is_migrated_with_a_backup(tmp_path: Path) -> None:
    """A file without a format header (old `updated:` field) is upgraded and the old one backed up."""
    old = "# Profile\n\n## pref:shell\n- type: profile\n- updated: 2025-01-02\n- content: bash\n"
    (tmp_path / "profile.md").write_text(old, encoding="utf-8")
    store = MemoryStore(tmp_path)
    entry = store.get("pref:shell")
    assert entry is not None and entry.updated_at == "2025-01-02"
    text = (tmp_path / "profile.md").read_text(encoding="utf-8")
    assert text.startswith("<!-- termwise-memory format: 1 -->")
    assert (tmp_path / "profile.md.v0.bak").read_text(encoding="utf-8") == old


def test_file_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    """A file in a future format is not rewritten; the message says to update Termwise."""
    text = "<!-- termwise-memory format: 99 -->\n## k\n- type: fact\n- content: x\n"
    (tmp_path / "facts.md").write_text(text, encoding="utf-8")
    with pytest.raises(MemoryStoreError, match="newer Termwise"):
        MemoryStore(tmp_path).entries()
    assert (tmp_path / "facts.md").read_text(encoding="utf-8") == text


def test_lost_index_is_rebuilt(tmp_path: Path) -> None:
    """Deleting or garbling the index costs nothing: it is rebuilt from the files."""
    store = MemoryStore(tmp_path)
    store.upsert("a", "fact", "one")
    store.upsert("b", "profile", "two")
    (tmp_path / "index" / "memory_keys.tsv").write_text("nonsense\n", encoding="utf-8")
    rows = MemoryStore(tmp_path).index_rows()
    assert {k: r.file for k, r in rows.items()} == {"a": "facts.md", "b": "profile.md"}


def test_damage_in_an_old_file_is_reported_at_its_own_line(tmp_path: Path) -> None:
    """Line numbers refer to the file as the user has it, even when migration adds a header."""
    text = "## fact:a\n- type: fact\n- content: ok\n\n## fact:b\n- type: nonsense\n- content: x\n"
    (tmp_path / "facts.md").write_text(text, encoding="utf-8")
    store = MemoryStore(tmp_path)
    assert [e.key for e in store.entries()] == ["fact:a"]
    [problem] = store.problems
    assert problem.line == 5 and "nonsense" in problem.message


def test_an_entry_whose_title_was_deleted_is_reported_not_lost_quietly(tmp_path: Path) -> None:
    """Deleting a `## key` line once made that memory vanish with no word; now it is named by line."""
    store = MemoryStore(tmp_path)
    store.upsert("fact:a", "fact", "alpha")
    store.upsert("fact:b", "fact", "bravo")
    path = tmp_path / "facts.md"
    raw = path.read_text(encoding="utf-8")
    damaged = raw.replace("## fact:b\n", "")
    path.write_text(damaged, encoding="utf-8")
    fresh = MemoryStore(tmp_path)
    assert [e.key for e in fresh.entries()] == ["fact:a"]
    problem = next(p for p in fresh.problems if "lost its '## key' title" in p.message)
    assert problem.line == damaged.split("\n").index("- content: bravo") + 1
    assert problem.kept_aside is not None and problem.kept_aside.read_text() == damaged
    assert "bravo" in (fresh.get("fact:a").content if fresh.get("fact:a") else "")
