"""Private key blocks (PEM, OpenSSH, PGP): found in linear time, whole or cut in two."""

from __future__ import annotations

import re

_B64_LINE = r"[ \t>|]*[A-Za-z0-9+/=]{16,}[ \t]*"
_HEADER_LINE = r"[ \t]*[A-Za-z-]+:[^\n]*"  # Proc-Type:, DEK-Info:, Version: …


def _spaced(word: str) -> str:
    """A pattern for `word` that tolerates line wraps/spaces between its letters."""
    return r"\s*".join(re.escape(c) for c in word if not c.isspace())


def _armor(word: str) -> str:
    # `(?<!-)` anchors at the start of a dash run, so a long rule of dashes stays linear.
    pk = _spaced("PRIVATE KEY")
    return (
        rf"(?<!-)-{{3,}}\s*{_spaced(word)}[\sA-Z0-9]{{0,40}}?{pk}"
        rf"(?:\s*{_spaced('BLOCK')})?\s*-{{3,}}"
    )


_BEGIN = re.compile(_armor("BEGIN"))
_END = re.compile(_armor("END"))
# After a BEGIN with no END (output cut short): the header and base64 lines that follow.
_BODY = re.compile(rf"(?:\n(?:{_HEADER_LINE}|{_B64_LINE}|[ \t]*))*")
_B64_LINE_RE = re.compile(rf"(?:{_B64_LINE})?")
_MAX_BLOCK = 64_000  # larger than any key block; an END further away belongs to another one


def redact_key_blocks(text: str, marker: str) -> tuple[str, bool]:
    """Replace every private key block by `marker`; also report whether any was found."""
    if "---" not in text:
        return text, False
    out: list[str] = []
    pos = 0
    hit = False
    seen: list[bool] = []  # set by _orphan_ends when it replaces something
    next_end: re.Match[str] | None = None
    end_searched_from = -1
    for begin in _BEGIN.finditer(text):
        if begin.start() < pos:
            continue
        # One END search serves every BEGIN before it, so this stays linear.
        if end_searched_from < 0 or (next_end is not None and next_end.start() < begin.end()):
            next_end = _END.search(text, begin.end())
            end_searched_from = begin.end()
        if next_end is not None and next_end.start() - begin.end() <= _MAX_BLOCK:
            stop = next_end.end()
        else:
            body = _BODY.match(text, begin.end())
            stop = body.end() if body else begin.end()
        out.append(_orphan_ends(text[pos : begin.start()], marker, seen))
        out.append(marker)
        hit = True
        pos = stop
    out.append(_orphan_ends(text[pos:], marker, seen))
    return "".join(out), hit or bool(seen)


def _orphan_ends(text: str, marker: str, seen: list[bool]) -> str:
    """An END line whose BEGIN was elsewhere: replace it with the base64 lines just above it."""
    if "END" not in text:
        return text
    out: list[str] = []
    pos = 0
    for m in _END.finditer(text):
        start = m.start()
        # Walk back line by line (bounded) while the lines look like key material.
        for _ in range(400):
            prev_nl = text.rfind("\n", pos, start - 1) if start > pos else -1
            line_start = prev_nl + 1 if prev_nl >= 0 else pos
            line = text[line_start : max(line_start, start - 1)]
            if start <= pos or not _B64_LINE_RE.fullmatch(line):
                break
            start = line_start
        out.append(text[pos:start])
        out.append(marker)
        seen.append(True)
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)
