"""The Markdown entry format survives tricky content and reads hand-written sections."""

from __future__ import annotations

from termwise.memory.format import Entry, entry_text, new_file_text, parse_text
from termwise.memory.migrations import migrate


def test_tricky_content_round_trips() -> None:
    """Content with headings, field-like lines, blank lines and indentation reads back unchanged."""
    content = "first line\n## not a section\n- type: fact\n\n    indented code\nlast"
    entry = Entry("fact:tricky", "fact", content, ("a", "b c"), "2026-01-02", (("source", "me"),))
    parsed = parse_text(new_file_text("Facts", [entry, Entry("k2", "fact", "x", (), "2026-01-02")]))
    assert parsed.problems == []
    assert parsed.entries[0].entry == entry
    assert parsed.entries[1].entry.key == "k2"


def test_hand_written_section_without_date_or_tags() -> None:
    """A minimal section a person types (type and content only, content on the next lines) is fine."""
    parsed = parse_text("# My notes\n\n## fact:ssh\n- type: fact\n- content:\n  use port 2222\n")
    [loc] = parsed.entries
    assert (loc.entry.content, loc.entry.updated_at, loc.start) == ("use port 2222", "", 2)
    assert parsed.version is None


def test_problems_carry_line_numbers() -> None:
    """Each kind of damage is reported at the line where it is."""
    text = "\n".join(
        [
            "## ok",
            "- type: fact",
            "- content: fine",
            "## bad key here",
            "- type: fact",
            "- content: x",
            "## no_content",
            "- type: fact",
            "## ok",
            "- type: fact",
            "- content: duplicate",
            "## bad_date",
            "- type: fact",
            "- updated_at: yesterday",
            "- content: x",
        ]
    )
    parsed = parse_text(text)
    assert [loc.entry.key for loc in parsed.entries] == ["ok"]
    assert [p.line for p in parsed.problems] == [4, 7, 9, 12]
    assert "already defined on line 1" in parsed.problems[2].message


def test_migration_is_a_no_op_on_current_files() -> None:
    """A file already at the current version is returned unchanged."""
    text = new_file_text("Profile", [Entry("a", "profile", "b", (), "2026-01-01")])
    assert migrate(text) == (text, 1, 0)
    assert entry_text(parse_text(text).entries[0].entry).startswith("## a\n- type: profile")
