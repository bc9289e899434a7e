"""File skills read only inside the allowed folders, with a size cap, and explain refusals."""

from __future__ import annotations

import os
from pathlib import Path

from termwise.agent.chat.skills.base import SkillContext
from termwise.agent.chat.skills.registry import run_skill


def test_file_read_inside_the_allowed_folder(ctx: SkillContext) -> None:
    """A file inside the allowed folder is read, by relative or absolute path."""
    result = run_skill("file_read", {"path": "notes.txt"}, ctx)
    assert result.ok and result.text == "hello from notes\n"
    assert run_skill("file_read", {"path": str(ctx.cwd / "src" / "main.py")}, ctx).ok


def test_paths_outside_the_allowed_folders_are_refused(ctx: SkillContext, allowed: Path) -> None:
    """A path outside, through `..` or a symlink, is refused with a message naming the folders."""
    for path in (str(allowed.parent / "outside.txt"), "../outside.txt", "/etc/hostname"):
        result = run_skill("file_read", {"path": path}, ctx)
        assert not result.ok
        assert "outside the folders skills may use" in result.text
        assert str(allowed) in result.text and "private" not in result.text
    os.symlink(allowed.parent / "outside.txt", allowed / "link.txt")
    result = run_skill("file_read", {"path": "link.txt"}, ctx)
    assert not result.ok and "outside" in result.text
    assert not run_skill("list_dir", {"path": str(allowed.parent)}, ctx).ok
    assert not run_skill("file_search", {"pattern": "*", "path": "/"}, ctx).ok


def test_file_read_is_size_capped_and_text_only(ctx: SkillContext, allowed: Path) -> None:
    """Large files come back cut at the configured size with a note; binary files are refused."""
    (allowed / "big.log").write_text("x" * 5000, encoding="utf-8")
    result = run_skill("file_read", {"path": "big.log"}, ctx)
    assert result.ok and result.text.startswith("x" * 1000)
    assert "the file has 5000 bytes" in result.text and "x" * 1001 not in result.text
    (allowed / "blob.bin").write_bytes(b"\x00\x01\x02" * 10)
    result = run_skill("file_read", {"path": "blob.bin"}, ctx)
    assert not result.ok and "binary" in result.text
    missing = run_skill("file_read", {"path": "nope.txt"}, ctx)
    assert not missing.ok and "does not exist" in missing.text


def test_file_search_and_list_dir(ctx: SkillContext, allowed: Path) -> None:
    """Search finds names by glob or plain text; list_dir shows entries with sizes."""
    found = run_skill("file_search", {"pattern": "*.py"}, ctx)
    assert found.ok and found.text == str(allowed / "src" / "main.py")
    assert str(allowed / "notes.txt") in run_skill("file_search", {"pattern": "NOTES"}, ctx).text
    listing = run_skill("list_dir", {}, ctx)
    assert listing.ok
    assert "notes.txt  (17 bytes)" in listing.text and "src/" in listing.text


def test_bad_calls_are_messages_not_crashes(ctx: SkillContext) -> None:
    """Unknown skills, missing or mistyped arguments become clear messages."""
    assert "no skill named 'rm'" in run_skill("rm", {}, ctx).text
    assert "missing argument 'path'" in run_skill("file_read", {}, ctx).text
    assert "must be a JSON object" in run_skill("file_read", ["x"], ctx).text
    assert "should be text" in run_skill("file_read", {"path": ["a"]}, ctx).text
