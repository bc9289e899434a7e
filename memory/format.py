"""The Markdown entry format: parsing with line numbers, rendering, and the version header.

A memory file is a version header, optional free text (a title), then one section per
entry::

    ## pref:answer_style
    - type: profile
    - tags: preference
    - updated_at: 2026-02-11
    - content: prefers short answers

Content may run over several lines: the lines after `- content:` up to the next
section belong to it (indentation is dropped). Unknown `- field:` lines are kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

FORMAT_VERSION = 1
HEADER_RE = re.compile(r"^<!--\s*termwise-memory\s+format:\s*(\d+)\s*-->\s*$")
TYPES = ("profile", "fact", "episode")
_FIELD_RE = re.compile(r"^- ([a-z_]+):[ \t]?(.*)$")
_KEY_RE = re.compile(r"^\S+$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def header_line(version: int = FORMAT_VERSION) -> str:
    return f"<!-- termwise-memory format: {version} -->"


@dataclass(frozen=True)
class Entry:
    """One remembered item."""

    key: str
    type: str
    content: str
    tags: tuple[str, ...] = ()
    updated_at: str = ""  # ISO date (YYYY-MM-DD), possibly with a time after it
    extra: tuple[tuple[str, str], ...] = ()  # unknown fields, kept as written

    def updated_date(self) -> date | None:
        try:
            return date.fromisoformat(self.updated_at[:10])
        except ValueError:
            return None


@dataclass(frozen=True)
class Located:
    """An entry and where its section sits in the file (0-based lines, end exclusive)."""

    entry: Entry
    start: int
    end: int


@dataclass(frozen=True)
class Problem:
    """Something wrong in a file, with its 1-based line number."""

    line: int
    message: str


@dataclass
class ParsedFile:
    version: int | None  # None: no header (a version-0 or hand-made file)
    lines: list[str]
    entries: list[Located] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def keys(self) -> list[str]:
        return [loc.entry.key for loc in self.entries]


def validate_key(key: str) -> str | None:
    """Return why a key is unusable, or None."""
    if not key or not _KEY_RE.match(key):
        return "a key must be one word without spaces (e.g. pref:editor)"
    if key.startswith("#"):
        return "a key cannot start with #"
    if "\t" in key or "\n" in key:
        return "a key cannot hold tabs or line breaks"
    return None


def render_entry(entry: Entry) -> list[str]:
    """The section lines of an entry (no trailing blank line)."""
    lines = [f"## {entry.key}", f"- type: {entry.type}"]
    if entry.tags:
        lines.append(f"- tags: {', '.join(entry.tags)}")
    lines.append(f"- updated_at: {entry.updated_at}")
    for name, value in entry.extra:
        lines.append(f"- {name}: {value}")
    content_lines = entry.content.strip("\n").split("\n") or [""]
    lines.append(f"- content: {content_lines[0]}")
    lines.extend(f"  {line}" if line else "" for line in content_lines[1:])
    return lines


def parse_text(text: str) -> ParsedFile:
    """Parse a file's text; bad sections become problems and are left out of `entries`."""
    lines = text.split("\n")
    version: int | None = None
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None:
        match = HEADER_RE.match(lines[first].strip())
        if match:
            version = int(match.group(1))
    parsed = ParsedFile(version=version, lines=lines)
    starts = [i for i, line in enumerate(lines) if line.startswith("## ")]
    seen: dict[str, int] = {}
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        # Trailing blank lines separate sections; they are not part of one.
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        entry, problem = _parse_section(lines, start, end)
        if problem is not None:
            parsed.problems.append(problem)
            continue
        assert entry is not None
        if entry.key in seen:
            parsed.problems.append(
                Problem(start + 1, f"key {entry.key!r} already defined on line {seen[entry.key]}")
            )
            continue
        seen[entry.key] = start + 1
        parsed.entries.append(Located(entry, start, end))
        parsed.problems.extend(_headless_entries(lines, start + 1, end, entry.key))
    before = starts[0] if starts else len(lines)
    parsed.problems.extend(_headless_entries(lines, 0, before, None))
    return parsed


def _headless_entries(lines: list[str], start: int, end: int, host: str | None) -> list[Problem]:
    """An entry whose `## key` title was deleted: its `- content:` line (at the margin,
    after a section's own content began) is read as part of the entry above, or not at
    all before the first title. Say so instead of losing it quietly."""
    found: list[Problem] = []
    in_content = False
    for i in range(start, end):
        match = _FIELD_RE.match(lines[i])
        if match is None or match.group(1) != "content":
            continue
        if host is None:
            found.append(
                Problem(i + 1, "an entry without its '## key' title; it is not read (add a title)")
            )
        elif in_content:
            found.append(
                Problem(
                    i + 1,
                    f"an entry here has lost its '## key' title and is read as part of {host!r}"
                    " (add its title back)",
                )
            )
        in_content = True
    return found


def _parse_section(lines: list[str], start: int, end: int) -> tuple[Entry | None, Problem | None]:
    key = lines[start][3:].strip()
    why = validate_key(key)
    if why:
        return None, Problem(start + 1, f"bad section title {lines[start]!r}: {why}")
    fields: dict[str, str] = {}
    extra: list[tuple[str, str]] = []
    content: list[str] | None = None
    for i in range(start + 1, end):
        line = lines[i]
        if content is not None:
            content.append(line[2:] if line.startswith("  ") else line)
            continue
        match = _FIELD_RE.match(line)
        if match is None:
            if not line.strip():
                continue
            return None, Problem(i + 1, f"in {key!r}: expected '- field: value', got {line!r}")
        name, value = match.group(1), match.group(2).strip()
        if name == "content":
            content = [match.group(2)]
        elif name in ("type", "tags", "updated_at"):
            fields[name] = value
        else:
            extra.append((name, value))
    if content is None:
        return None, Problem(start + 1, f"in {key!r}: no '- content:' line")
    kind = fields.get("type", "")
    if kind not in TYPES:
        return None, Problem(start + 1, f"in {key!r}: type {kind!r} is not one of {TYPES}")
    updated = fields.get("updated_at", "")
    if updated and not _DATE_RE.match(updated):
        return None, Problem(start + 1, f"in {key!r}: updated_at {updated!r} is not a date")
    tags = tuple(t.strip() for t in fields.get("tags", "").split(",") if t.strip())
    text = "\n".join(content).strip()
    entry = Entry(key, kind, text, tags, updated, tuple(extra))
    return entry, None


def new_file_text(title: str, entries: Sequence[Entry] = ()) -> str:
    """A fresh file: header, title, entries."""
    out = [header_line(), f"# {title}", ""]
    for entry in entries:
        out.extend(render_entry(entry))
        out.append("")
    return "\n".join(out)


def entry_text(entry: Entry) -> str:
    return "\n".join(render_entry(entry))


def decode_file(raw: bytes) -> tuple[str, int]:
    """Text with Windows line ends normalised, and the 1-based line of bad UTF-8 (0: none)."""
    try:
        text = raw.decode("utf-8")
        bad = 0
    except UnicodeDecodeError as exc:
        bad = raw[: exc.start].count(b"\n") + 1
        text = raw.decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n"), bad


def salvage(parsed: ParsedFile) -> str:
    """The file's text with only its readable sections (and the text before them)."""
    starts = [i for i, line in enumerate(parsed.lines) if line.startswith("## ")]
    head = parsed.lines[: starts[0]] if starts else parsed.lines
    out = [line for line in head]
    while out and not out[-1].strip():
        out.pop()
    for loc in parsed.entries:
        out.append("")
        out.extend(parsed.lines[loc.start : loc.end])
    return "\n".join(out) + "\n"
