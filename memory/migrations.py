"""Ordered migrations of memory files from older format versions to `FORMAT_VERSION`.

Each migration takes the whole text at version N and returns it at version N + 1.
A file without a header is version 0: hand-made, or written before the header existed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from termwise.memory.errors import MemoryStoreError
from termwise.memory.format import FORMAT_VERSION, HEADER_RE, header_line

Migration = Callable[[str], str]
# A migration with the number of lines it inserts above the original text, so problems
# found in the migrated text are reported at their line in the file the user has.
Step = tuple[Migration, int]


def _v0_to_v1(text: str) -> str:
    """Add the header; early files spelt the date field `updated:`."""
    body = re.sub(r"(?m)^- updated:", "- updated_at:", text)
    return header_line(1) + "\n" + body


MIGRATIONS: dict[int, Step] = {0: (_v0_to_v1, 1)}


def file_version(text: str) -> int:
    for line in text.split("\n"):
        if line.strip():
            match = HEADER_RE.match(line.strip())
            return int(match.group(1)) if match else 0
    return 0


def _set_header(text: str, version: int) -> str:
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip():
            if HEADER_RE.match(line.strip()):
                lines[i] = header_line(version)
            break
    return "\n".join(lines)


def migrate(text: str, where: str = "memory file") -> tuple[str, int, int]:
    """Bring text up to the current version: (text, version it was at, lines added on top)."""
    start = file_version(text)
    if start > FORMAT_VERSION:
        raise MemoryStoreError(
            f"{where} is in memory format {start}, written by a newer Termwise; "
            f"this one reads up to format {FORMAT_VERSION}. Update Termwise."
        )
    version = start
    shift = 0
    while version < FORMAT_VERSION:
        step, added = MIGRATIONS[version]
        text = step(text)
        shift += added
        version += 1
        text = _set_header(text, version)
    return text, start, shift
