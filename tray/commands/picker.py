"""The terminal picker's state, keys and drawing: streamed suggestions as a numbered list."""

from __future__ import annotations

import codecs
import textwrap
from dataclasses import dataclass, field
from typing import Literal

from termwise.agent.base.events import (
    Error,
    Event,
    Finished,
    Question,
    Status,
    SuggestionReady,
    VerdictReady,
)
from termwise.agent.base.types import Suggestion, Verdict
from termwise.agent.suggest.turn import NO_MODEL

ESC = "\x1b"
HELP = "↑/↓ or 1-{n} choose · Enter type it · r run · c copy · e explain · q quit"
WAIT_HELP = "q quit · waiting for suggestions…"
# Lines of explanation shown per suggestion before `e` expands it.
SHORT_LINES = 2

ActionKind = Literal["type", "run", "copy", "quit"]


@dataclass(frozen=True)
class Key:
    """One key press: `name` is up, down, enter, esc, backspace, interrupt or char."""

    name: str
    char: str = ""


class KeyDecoder:
    """Turns terminal input (UTF-8 bytes, ANSI arrow sequences) into Keys.

    A lone ESC is ambiguous until the next read: `flush()` (called when no more input
    arrived in a short while) reports it as the Esc key.
    """

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""

    def feed(self, data: bytes) -> list[Key]:
        return self._parse(self._pending + self._utf8.decode(data))

    def flush(self) -> list[Key]:
        if self._pending == ESC:
            self._pending = ""
            return [Key("esc")]
        return self._parse(self._pending, final=True)

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def _parse(self, text: str, final: bool = False) -> list[Key]:
        keys: list[Key] = []
        self._pending = ""
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == ESC:
                rest = text[i + 1 :]
                if not rest and not final:
                    self._pending = ESC
                    break
                if rest[:1] in ("[", "O"):
                    end = _csi_end(rest)
                    if end < 0 and not final:
                        self._pending = text[i:]
                        break
                    if end < 0:
                        keys.append(Key("esc"))
                        i += 1
                        continue
                    keys.append(_csi_key(rest[: end + 1]))
                    i += 2 + end
                    continue
                keys.append(Key("esc"))
                i += 1
                continue
            keys.append(_plain_key(ch))
            i += 1
        return keys


def _csi_end(rest: str) -> int:
    """Index (in `rest`, which starts with [ or O) of the sequence's final byte, or -1."""
    for j in range(1, len(rest)):
        if "@" <= rest[j] <= "~":
            return j
    return -1


def _csi_key(seq: str) -> Key:
    final = seq[-1]
    names = {"A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end"}
    return Key(names.get(final, "unknown"), seq)


def _plain_key(ch: str) -> Key:
    if ch in ("\r", "\n"):
        return Key("enter")
    if ch in ("\x7f", "\b"):
        return Key("backspace")
    if ch == "\x03":
        return Key("interrupt")
    return Key("char", ch)


def windows_key(first: str, second: str = "") -> Key:
    """A key read with msvcrt.getwch: arrows come as a prefix ('\\xe0' or '\\x00') plus a code."""
    if first in ("\xe0", "\x00"):
        return Key({"H": "up", "P": "down", "K": "left", "M": "right"}.get(second, "unknown"))
    if first == ESC:
        return Key("esc")
    return _plain_key(first)


@dataclass(frozen=True)
class ExplainChunk:
    """Streamed text of the model's explanation of suggestion `index` (`done` at the end)."""

    index: int
    text: str = ""
    done: bool = False
    error: str = ""


@dataclass(frozen=True)
class Action:
    """What the user chose: the kind and the suggestion it applies to (-1 for quit)."""

    kind: ActionKind
    index: int = -1


@dataclass
class Segment:
    text: str
    style: str = ""  # SGR parameters, e.g. "1" (bold) or "31" (red)


Line = list[Segment]


@dataclass
class PickerState:
    """Everything the picker shows; fed with turn events and keys, never with I/O."""

    suggestions: list[Suggestion] = field(default_factory=list)
    selected: int = 0
    status: str = ""
    question: str = ""
    errors: list[str] = field(default_factory=list)
    finished: bool = False
    cancelled: bool = False
    no_model: bool = False
    expanded: set[int] = field(default_factory=set)
    notice: str = ""
    can_explain: bool = False  # a model is there to explain a command on `e`
    explained: dict[int, str] = field(default_factory=dict)
    explaining: set[int] = field(default_factory=set)
    explain_requests: list[int] = field(default_factory=list)

    # -- events --------------------------------------------------------------------------
    def apply(self, event: Event | ExplainChunk) -> None:
        if isinstance(event, ExplainChunk):
            self.explained[event.index] = self.explained.get(event.index, "") + event.text
            if event.error:
                self.explained[event.index] += f" (the model could not explain it: {event.error})"
            if event.done:
                self.explaining.discard(event.index)
        elif isinstance(event, SuggestionReady):
            while len(self.suggestions) <= event.index:
                self.suggestions.append(event.suggestion)
            self.suggestions[event.index] = event.suggestion
        elif isinstance(event, VerdictReady):
            if 0 <= event.index < len(self.suggestions):
                self.suggestions[event.index].verdict = event.verdict
        elif isinstance(event, Question):
            self.question = event.text
        elif isinstance(event, Status):
            if event.text == NO_MODEL:
                self.no_model = True
            else:
                self.status = event.text
        elif isinstance(event, Error):
            self.errors.append(event.message + (" (try again)" if event.retryable else ""))
        elif isinstance(event, Finished):
            self.finished = True
            self.cancelled = event.cancelled
            self.status = ""

    @property
    def waiting_for_answer(self) -> bool:
        """The turn ended with a clarifying question and nothing to pick."""
        return self.finished and bool(self.question) and not self.suggestions

    @property
    def nothing(self) -> bool:
        """The turn ended without suggestions or a question."""
        return self.finished and not self.suggestions and not self.question

    # -- keys ----------------------------------------------------------------------------
    def key(self, key: Key) -> Action | None:
        """Move the selection or return the chosen action."""
        self.notice = ""
        n = len(self.suggestions)
        if key.name in ("esc", "interrupt") or (key.name == "char" and key.char in "qQ"):
            return Action("quit")
        if n == 0:
            return None
        if key.name == "up" or (key.name == "char" and key.char == "k"):
            self.selected = (self.selected - 1) % n
        elif key.name == "down" or (key.name == "char" and key.char in "j\t"):
            self.selected = (self.selected + 1) % n
        elif key.name == "home":
            self.selected = 0
        elif key.name == "end":
            self.selected = n - 1
        elif key.name == "enter":
            return Action("type", self.selected)
        elif key.name == "char" and key.char.isdigit():
            wanted = int(key.char) - 1
            if 0 <= wanted < n:
                self.selected = wanted
            else:
                self.notice = f"no suggestion {key.char}"
        elif key.name == "char" and key.char in "rR":
            return Action("run", self.selected)
        elif key.name == "char" and key.char in "cCyY":
            return Action("copy", self.selected)
        elif key.name == "char" and key.char in "eE":
            self.expanded ^= {self.selected}
            wanted = self.selected in self.expanded
            if wanted and self.can_explain and self.selected not in self.explained:
                self.explained[self.selected] = ""
                self.explaining.add(self.selected)
                self.explain_requests.append(self.selected)
        return None

    # -- drawing ---------------------------------------------------------------------------
    def lines(self, width: int, height: int | None = None) -> list[Line]:
        """The picker as styled lines, each shorter than `width`, at most `height` of them."""
        width = max(20, width)
        body, first, foot = self._lines(width, compact=False)
        if height is not None and len(body) + len(foot) > height:
            body, first, foot = self._lines(width, compact=True)
            room = max(0, height - len(foot))
            if len(body) > room:
                # Scroll so that the chosen suggestion stays in view.
                start = max(0, min(first, len(body) - room))
                body = body[start : start + room]
            foot = foot[-height:] if height > 0 else []
        return body + foot

    def _lines(self, width: int, compact: bool) -> tuple[list[Line], int, list[Line]]:
        """Suggestion lines, where the chosen one starts among them, and the lines below."""
        body: list[Line] = []
        first = 0
        for i, s in enumerate(self.suggestions):
            if i == self.selected:
                first = len(body)
            body.extend(self._suggestion(i, s, width, compact and i != self.selected))
        out: list[Line] = []
        if self.question and not self.suggestions:
            out.extend([[Segment("? ", "1;36"), Segment(self.question, "1")]])
        for message in self.errors:
            out.append([Segment("error: ", "31"), Segment(message)])
        if self.no_model and not self.suggestions:
            out.append([Segment("no model configured — a model adds more suggestions", "2")])
        if self.status:
            out.append([Segment(self.status, "2")])
        elif self.nothing and not self.errors:
            out.append([Segment("cancelled" if self.cancelled else "no suggestions", "2")])
        if self.notice:
            out.append([Segment(self.notice, "33")])
        if self.suggestions:
            out.append([Segment(HELP.format(n=min(9, len(self.suggestions))), "2")])
        elif not self.finished:
            out.append([Segment(WAIT_HELP, "2")])
        return (
            [clip(line, width - 1) for line in body],
            first,
            [clip(line, width - 1) for line in out],
        )

    def _suggestion(self, i: int, s: Suggestion, width: int, compact: bool) -> list[Line]:
        chosen = i == self.selected
        mark = "›" if chosen else " "
        head: Line = [
            Segment(f"{mark} {i + 1}. ", "1" if chosen else ""),
            Segment(s.command, "1" if chosen else ""),
            Segment("  "),
            Segment(f"[{verdict_label(s.verdict)} · {s.source}]", verdict_style(s.verdict)),
        ]
        lines = [head]
        if compact:
            return lines
        indent = "     "
        wrap = max(10, width - len(indent) - 1)
        full = i in self.expanded
        text = textwrap.wrap(s.explanation, wrap) if s.explanation else []
        if not full and len(text) > SHORT_LINES:
            text = [*text[: SHORT_LINES - 1], text[SHORT_LINES - 1] + " …"]
        lines.extend([[Segment(indent + t)] for t in text])
        if s.caveats:
            caveat = textwrap.wrap("caveat: " + s.caveats, wrap)
            if not full:
                caveat = caveat[:1]
            lines.extend([[Segment(indent + t, "33")] for t in caveat])
        v = s.verdict
        if v is not None and v.level != "safe" and v.reasons:
            why = f"why {v.level}: " + "; ".join(v.reasons)
            lines.append([Segment(indent + why, verdict_style(v))])
        if full:
            if v is not None and v.explanation:
                for t in textwrap.wrap("risk: " + v.explanation, wrap):
                    lines.append([Segment(indent + t, verdict_style(v))])
            said = self.explained.get(i, "").strip()
            if said:
                for para in said.splitlines():
                    for t in textwrap.wrap(para, wrap) or [""]:
                        lines.append([Segment(indent + t, "36")])
            if i in self.explaining:
                lines.append([Segment(indent + "explaining…", "2")])
            elif not s.explanation and not said:
                lines.append([Segment(indent + "(no explanation was given)", "2")])
            if s.rule:
                lines.append([Segment(indent + f"from the rule {s.rule}", "2")])
        return lines


def verdict_label(v: Verdict | None) -> str:
    if v is None:
        return "unchecked"
    return v.level.upper() if v.level == "dangerous" else v.level


def verdict_style(v: Verdict | None) -> str:
    if v is None:
        return "2"
    return {"safe": "32", "confirm": "33", "dangerous": "1;31"}.get(v.level, "")


def clip(line: Line, width: int) -> Line:
    """The line cut to `width` characters (a cut line ends with …); control characters dropped."""
    out: Line = []
    room = width
    for seg in line:
        text = "".join(ch if ch.isprintable() else " " for ch in seg.text)
        if len(text) > room:
            out.append(Segment(text[: max(0, room - 1)] + "…", seg.style))
            return out
        out.append(Segment(text, seg.style))
        room -= len(text)
    return out


def plain_text(line: Line) -> str:
    return "".join(seg.text for seg in line)


def ansi_text(line: Line, colour: bool = True) -> str:
    if not colour:
        return plain_text(line)
    parts = []
    for seg in line:
        parts.append(f"\x1b[{seg.style}m{seg.text}\x1b[0m" if seg.style else seg.text)
    return "".join(parts)


class Screen:
    """Redraws the picker in place below the cursor: up over the last drawing, clear, draw."""

    def __init__(self, write: object, colour: bool = True) -> None:
        self._write = write
        self.colour = colour
        self.drawn = 0

    def draw(self, lines: list[Line]) -> None:
        parts = [self._erase()]
        parts.append("\r\n".join(ansi_text(line, self.colour) for line in lines))
        self.drawn = len(lines)
        self._emit("".join(parts))

    def clear(self) -> None:
        self._emit(self._erase())
        self.drawn = 0

    def _erase(self) -> str:
        if self.drawn == 0:
            return ""
        up = f"\x1b[{self.drawn - 1}A" if self.drawn > 1 else ""
        return "\r" + up + "\x1b[J"

    def _emit(self, text: str) -> None:
        if text:
            self._write(text)  # type: ignore[operator]
