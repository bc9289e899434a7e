"""PowerShell splatting: `$p = @{Path = 'C:\\'; Recurse = $true}; Remove-Item @p` passes the
table's entries as parameters. Only tables of literal values are read; any other entry
leaves the table unknown (a command splatting it is judged on its own words)."""

from __future__ import annotations

import re

MAX_ENTRIES = 64
_ENTRY = re.compile(r"""\s*(?:(['"])(\w+)\1|(\w+))\s*=\s*(.*?)\s*""", re.S)
_STRING = re.compile(r"""'((?:[^']|'')*)'|"([^"$`]*)\"""", re.S)
_BARE = re.compile(r"[\w.:\\/*-]+")


def table_parameters(raw: str) -> list[str] | None:
    """The parameters the hashtable `@{…}` passes when splatted, as words: `-Key value`,
    `-Key` for a `$true` switch (a `$false` one is left out); None unless every entry is
    a literal."""
    if not (raw.startswith("@{") and raw.endswith("}")):
        return None
    entries = _entries(raw[2:-1])
    if entries is None or len(entries) > MAX_ENTRIES:
        return None
    words: list[str] = []
    for entry in entries:
        match = _ENTRY.fullmatch(entry)
        if match is None:
            return None
        key, value = match.group(2) or match.group(3), match.group(4)
        string = _STRING.fullmatch(value)
        if value.lower() == "$true":
            words.append(f"-{key}")
        elif value.lower() == "$false":
            continue
        elif string is not None:
            text = string.group(2) if string.group(1) is None else string.group(1)
            words += [f"-{key}", text.replace("''", "'")]
        elif _BARE.fullmatch(value):
            words += [f"-{key}", value]
        else:
            return None
    return words


def _entries(body: str) -> list[str] | None:
    """`body` split at `;` and line ends outside quotes; None when it nests anything."""
    entries: list[str] = []
    start, quote = 0, ""
    for i, ch in enumerate(body):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "{}()@`#":
            return None
        elif ch in ";\n":
            entries.append(body[start:i])
            start = i + 1
    if quote:
        return None
    entries.append(body[start:])
    return [e for e in entries if e.strip()]
