"""Cutting JSON objects out of streamed model text, line by line, by brace matching.

Shared by the suggestion parser and the deploy step parser. Strings and escapes are
respected, so braces inside a command never confuse it. It only cuts text; decoding and
what an object means are up to the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

# Where an object may start: `{"` (a key follows) or a `{` that ends its line.
OBJECT_START = re.compile(r"\{\s*(?:\"|$)")


@dataclass(frozen=True)
class Broken:
    """Text collected for an object that can no longer be valid JSON."""

    text: str


Cut: TypeAlias = "str | Broken"  # a complete object's text, or the remains of a broken one


class ObjectCutter:
    """Feeds lines in; returns each JSON object's text the moment its closing brace arrives."""

    def __init__(self) -> None:
        self._obj: list[str] = []
        self.depth = 0
        self._in_str = False
        self._escape = False
        # The object began with `{"` or after other text on its line (NDJSON style), so a
        # line that starts a new object means this one was broken.
        self.oneline = False

    @property
    def text(self) -> str:
        """What was collected of the object still open."""
        return "".join(self._obj)

    def reset(self) -> None:
        self._obj = []
        self.depth = 0
        self._in_str = False
        self._escape = False
        self.oneline = False

    def scan(self, line: str) -> list[Cut]:
        """Brace-match through one line (without its newline)."""
        cuts: list[Cut] = []
        i = 0
        n = len(line)
        while i < n:
            if self.depth == 0:
                m = OBJECT_START.search(line, i)
                if m is None:
                    break
                i = m.start()
                self.oneline = m.end() - m.start() > 1 or bool(line[: m.start()].strip())
            ch = line[i]
            self._obj.append(ch)
            if self._in_str:
                if self._escape:
                    self._escape = False
                elif ch == "\\":
                    self._escape = True
                elif ch == '"':
                    self._in_str = False
            elif ch == '"':
                self._in_str = True
            elif ch in "{[":
                self.depth += 1
            elif ch in "}]":
                self.depth -= 1
                if self.depth == 0:
                    cuts.append(self.text)
                    self.reset()
            i += 1
        if self.depth > 0:
            self._obj.append("\n")
            if self._in_str:  # JSON strings cannot span lines: this object is broken
                cuts.append(Broken(self.text))
                self.reset()
        return cuts

    def feed_line(self, line: str) -> list[Cut]:
        """`scan`, but a new NDJSON-style object on a new line ends a broken open one first."""
        if self.depth > 0 and self.oneline and OBJECT_START.match(line.lstrip()):
            broken = Broken(self.text)
            self.reset()
            return [broken, *self.scan(line)]
        return self.scan(line)
