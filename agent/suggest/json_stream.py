"""Cutting JSON objects out of streamed model text by brace matching, bounded and linear.

Shared by the suggestion parser and the deploy step parser. Strings and escapes are
respected, so braces inside a command never confuse it. It only cuts text; decoding and
what an object means are up to the caller.

Text arrives as pieces of the current line (`chunk`) and line ends (`end_line`), so an
object can be handed over the moment its closing brace arrives, even in the middle of a
long line. With `elements=True` the objects inside an array directly under the top
object (`{"suggestions": [{…}, {…}]}`, the shape schema-constrained answers take) are
also handed over one by one as each closes, before the whole object is complete.

Hostile input stays cheap: nesting deeper than `MAX_DEPTH` or an object longer than
`MAX_OBJECT_CHARS` is still followed to its end (so what comes after it parses), but its
text is no longer kept and it comes out as `Broken` with the reason. Nothing here
recurses, so no nesting depth can raise `RecursionError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

# Where an object may start: `{"` (a key follows) or a `{` that ends its line.
OBJECT_START = re.compile(r"\{\s*(?:\"|$)")
MAX_DEPTH = 32  # answers nest 3-4 levels; deeper is garbage or an attack
MAX_OBJECT_CHARS = 200_000  # a suggestion or step is a few hundred characters

_BRACE_SPACE = re.compile(r"\{\s*")
_STRUCTURE = re.compile(r'["{}\[\]]')  # what matters outside strings
_IN_STRING = re.compile(r'["\\]')  # what matters inside a string


@dataclass(frozen=True)
class Broken:
    """Text collected for an object that can no longer be used; `reason` says why."""

    text: str
    reason: str = "malformed"  # "malformed" | "too deeply nested" | "too long"


@dataclass(frozen=True)
class Element:
    """An object inside the top object's array, complete before the top object is."""

    text: str


Cut: TypeAlias = "str | Broken | Element"  # a whole object's text, a broken one, or an element


class ObjectCutter:
    """Feeds line pieces in; returns each JSON object's text the moment its closing brace arrives."""

    def __init__(
        self,
        *,
        elements: bool = False,
        max_depth: int = MAX_DEPTH,
        max_chars: int = MAX_OBJECT_CHARS,
    ) -> None:
        self.elements = elements
        self.max_depth = max_depth
        self.max_chars = max_chars
        self._held = ""  # a `{` (and blanks) at depth 0 whose next character decides
        self._line_text = False  # non-blank text came before on this line
        self.reset()

    def reset(self) -> None:
        """Forget the open object (the line state stays)."""
        self._parts: list[str] = []
        self._size = 0
        self.depth = 0
        self._in_str = False
        self._escape = False
        self._kinds = ""  # container characters of levels 1-3 ("{[{" for an element)
        self._elem: list[str] | None = None  # the open element's text pieces
        self._overflow = ""  # why the open object's text is no longer kept
        self._last = ""  # the last non-blank character collected
        # The object began with `{"` or after other text on its line (NDJSON style), so a
        # line that starts a new object means this one was broken.
        self.oneline = False

    @property
    def text(self) -> str:
        """What was collected of the object still open."""
        return "".join(self._parts)

    # -- feeding -------------------------------------------------------------------

    def chunk(self, piece: str) -> list[Cut]:
        """Scan the next piece of the current line (no newline inside)."""
        if self._held:
            piece, self._held = self._held + piece, ""
        cuts: list[Cut] = []
        i, n = 0, len(piece)
        while i < n:
            if self.depth == 0:
                i = self._find_start(piece, i)
                if i < 0:
                    return cuts
            i = self._scan_object(piece, i, cuts)
        return cuts

    def end_line(self) -> list[Cut]:
        """The current line ended."""
        cuts: list[Cut] = []
        if self._held:  # `{` then only blanks to the end of the line: an object starts
            held, self._held = self._held, ""
            self.oneline = self._line_text or len(held) > 1
            self._scan_object(held, 0, cuts)
        self._line_text = False
        if self.depth > 0:
            self._keep("\n", 0, 1)
            if self._in_str:  # JSON strings cannot span lines: this object is broken
                cuts.append(Broken(self.text))
                self.reset()
        return cuts

    def scan(self, line: str) -> list[Cut]:
        """Brace-match through one whole line (without its newline)."""
        return [*self.chunk(line), *self.end_line()]

    def breaks_open_object(self, line_start: str) -> bool:
        """Whether a line starting `{"` means the open NDJSON-style object was left broken.

        Not when the object can take a value here, after `{`, `[`, `:` or `,` (a
        pretty-printed `{"suggestions": [` has its elements on the next lines).
        """
        if self.depth == 0 or not self.oneline or not OBJECT_START.match(line_start.lstrip()):
            return False
        return self._last not in ("{", "[", ":", ",")

    def feed_line(self, line: str) -> list[Cut]:
        """`scan`, but a new NDJSON-style object on a new line ends a broken open one first."""
        if self.breaks_open_object(line):
            broken = self.broken()
            return [broken, *self.scan(line)]
        return self.scan(line)

    def broken(self) -> Broken:
        """Give up the open object (the caller saw it cannot go on); returns its remains."""
        cut = Broken(self.text, self._overflow or "malformed")
        self.reset()
        return cut

    # -- internals -----------------------------------------------------------------

    def _find_start(self, piece: str, i: int) -> int:
        """Index of the next object start in `piece` from `i`, or -1 (maybe holding a tail)."""
        while True:
            m = _BRACE_SPACE.search(piece, i)
            if m is None:
                self._line_text = self._line_text or bool(piece[i:].strip())
                return -1
            start, after = m.start(), m.end()
            if after == len(piece):  # undecided until more of the line arrives
                self._line_text = self._line_text or bool(piece[i:start].strip())
                self._held = "{ " if after - start > 1 else "{"  # the blanks' count is moot
                return -1
            if piece[after] == '"':
                self.oneline = True  # `{"` starts an object on this very line
                return start
            self._line_text = True  # a `{` that starts nothing is text on this line
            i = start + 1

    def _keep(self, piece: str, start: int, end: int) -> None:
        """Collect piece[start:end] into the open object (and element), within the bounds."""
        if start >= end:
            return
        if not self._overflow:
            part = piece[start:end]
            tail = part.rstrip()
            if tail:
                self._last = tail[-1]
            self._size += len(part)
            if self._size > self.max_chars:
                self._overflow = "too long"
                self._elem = None
            else:
                self._parts.append(part)
                if self._elem is not None:
                    self._elem.append(part)

    def _scan_object(self, piece: str, i: int, cuts: list[Cut]) -> int:
        """Scan from `i` (inside or at the start of an object); returns where to go on."""
        start = i
        n = len(piece)
        while i < n:
            if self._in_str:
                if self._escape:  # a backslash ended the last piece
                    self._escape = False
                    i += 1
                    continue
                m = _IN_STRING.search(piece, i)
                if m is None:
                    i = n
                    break
                i = m.start()
                if piece[i] == "\\":
                    # The escaped character is skipped with the backslash.
                    i += 2
                    if i > n:
                        self._escape = True
                        i = n
                    continue
                else:
                    self._in_str = False
                i += 1
                continue
            m = _STRUCTURE.search(piece, i)
            if m is None:
                i = n
                break
            i = m.start()
            ch = piece[i]
            if ch == '"':
                self._in_str = True
            elif ch in "{[":
                self.depth += 1
                if self.depth <= 3:
                    self._kinds = self._kinds[: self.depth - 1] + ch
                    if self.elements and self.depth == 3 and self._kinds == "{[{":
                        self._keep(piece, start, i)
                        start = i
                        self._elem = [] if not self._overflow else None
                if self.depth > self.max_depth and not self._overflow:
                    self._keep(piece, start, i)
                    start = i
                    self._overflow = "too deeply nested"
                    self._elem = None
            else:  # } or ]
                self.depth -= 1
                if self.depth == 2 and self._elem is not None:
                    self._keep(piece, start, i + 1)
                    start = i + 1
                    cuts.append(Element("".join(self._elem)))
                    self._elem = None
                if self.depth == 0:
                    self._keep(piece, start, i + 1)
                    if self._overflow:
                        cuts.append(Broken(self.text, self._overflow))
                    else:
                        cuts.append(self.text)
                    self.reset()
                    self._line_text = True
                    return i + 1
            i += 1
        self._keep(piece, start, i)
        return i
