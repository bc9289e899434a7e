"""Incremental parser of model answers: NDJSON, JSON objects and arrays, fenced JSON or shell.

Feed text as it streams. JSON is cut out by brace matching (strings and escapes
respected) as the characters arrive, so a suggestion is ready the moment its closing
brace does, in NDJSON and inside the `{"suggestions": [...]}` object a schema-constrained
answer is. Lines that are not JSON (prose, fences, shell blocks) are looked at once they
are complete. Nothing here raises on bad model output: problems come out as `Problem`
items, commands that cannot be real command lines as `Dropped`, and parsing carries on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from termwise.agent.base.types import MAX_SUGGESTIONS, Suggestion
from termwise.agent.suggest.json_stream import Broken, Element, ObjectCutter
from termwise.agent.suggest.plausible import implausible

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
_SHELL_LANGS = {
    "bash", "sh", "shell", "zsh", "console", "shell-session", "terminal", "fish",
    "powershell", "pwsh", "ps", "ps1", "posh", "cmd", "bat", "batch", "dos",
}  # fmt: skip
_JSON_LANGS = {"json", "jsonl", "ndjson", "json5", "javascript", "js"}
_PROMPT = re.compile(r"^\s*(?:\$|#|>|PS [^>]*>|PS>|[A-Za-z]:\\[^>]*>)\s+")


@dataclass(frozen=True)
class ParsedSuggestion:
    suggestion: Suggestion


@dataclass(frozen=True)
class ParsedQuestion:
    text: str


@dataclass(frozen=True)
class Problem:
    message: str


@dataclass(frozen=True)
class Dropped:
    """A suggested command that cannot be a real command line for the shell; not shown."""

    command: str
    reason: str


Item = ParsedSuggestion | ParsedQuestion | Problem | Dropped


class SuggestionParser:
    """Turns streamed model text into suggestions, a question, or problems (never raises)."""

    def __init__(
        self,
        shell: str = "bash",
        max_suggestions: int = MAX_SUGGESTIONS,
        *,
        check_commands: bool = True,
    ) -> None:
        self.shell = shell
        self.max_suggestions = max_suggestions
        self.check_commands = check_commands
        self.count = 0
        self.question: str | None = None
        self._line: list[str] = []  # the pieces of the line not yet complete
        self._mode = ""  # this line: "" undecided, "json" scanned as it comes, "line" at its end
        self._fed = 0  # characters of this line already given to the cutter
        self._fence: str | None = None  # the fence marker while inside a fenced block
        self._fence_kind = ""  # "json" | "shell" | "guess" | "" (undecided until its first line)
        self._fence_lines: list[str] = []
        self._cut = ObjectCutter(elements=True)  # the JSON object being collected
        self._early = 0  # suggestions taken from the open object's elements already
        self._json_seen = False
        self._ignored = 0
        self._pending = ""  # an unlabelled fenced block, used when the answer has no JSON
        self._dropped: set[str] = set()

    @property
    def full(self) -> bool:
        """All the suggestions wanted are in: the rest of the answer need not be read."""
        return self.count >= self.max_suggestions

    # -- feeding -------------------------------------------------------------------

    def feed(self, text: str) -> list[Item]:
        """Add streamed text; returns what it completed."""
        items: list[Item] = []
        pieces = text.split("\n")
        for k, piece in enumerate(pieces):
            if k:
                line = "".join(self._line)
                self._line = []
                items.extend(self._end_line(line.rstrip("\r")))
            if piece:
                self._line.append(piece)
                items.extend(self._partial(piece))
        return items

    def finish(self) -> list[Item]:
        """The answer ended: parse the last partial line and report anything left open."""
        items: list[Item] = []
        if self._line:
            line = "".join(self._line)
            self._line = []
            items.extend(self._end_line(line))
        if self._cut.depth > 0:
            snippet = self._cut.text.strip()
            items.append(Problem(f"the answer ended inside a JSON object: {_short(snippet)}"))
            self._cut.reset()
        if self._fence is not None:
            items.extend(self._close_fence())
        if self._pending and not self._json_seen and self.count == 0:
            items.extend(self._suggest(self._pending, "", ""))
        self._pending = ""
        if self._ignored:
            items.append(
                Problem(f"ignored {self._ignored} suggestion(s) beyond {self.max_suggestions}")
            )
            self._ignored = 0
        return items

    # -- the line being written ----------------------------------------------------

    def _partial(self, piece: str) -> list[Item]:
        """Scan JSON as it arrives; other lines wait for their end."""
        if self._mode == "json":
            self._fed += len(piece)
            return self._cuts(self._cut.chunk(piece))
        if self._mode == "line" or not piece.strip():
            return []
        so_far = "".join(self._line)
        mode, items = self._decide(so_far)
        self._mode = mode
        if mode == "json":
            self._fed = len(so_far)
            items.extend(self._cuts(self._cut.chunk(so_far)))
        return items

    def _decide(self, so_far: str) -> tuple[str, list[Item]]:
        """Whether the line begun as `so_far` is JSON to scan now ("json"), or waits ("line")."""
        head = so_far.lstrip()
        if self._fence is not None:
            if self._fence_kind in ("shell", "guess") or head[0] in "`~":
                return "line", []
            if self._fence_kind == "":
                if head[0] not in "{[":
                    return "line", []
                self._fence_kind = "json"
        elif head[0] in "`~":
            return "line", []
        if self._cut.depth == 0:
            return ("json" if head[0] in "{[" else "line"), []
        if head[0] == "{":
            rest = head[1:].lstrip()
            if not rest:
                return "", []  # `{` alone so far: the next character decides
            if self._cut.breaks_open_object(head):
                # A new NDJSON line while the last one is still open: that one was broken.
                return "json", [self._broken(self._cut.broken())]
        return "json", []

    def _end_line(self, line: str) -> list[Item]:
        mode, self._mode = self._mode, ""
        if mode == "json":
            rest, self._fed = line[self._fed :], 0
            return [*self._cuts(self._cut.chunk(rest)), *self._cuts(self._cut.end_line())]
        return self._whole_line(line)

    # -- whole lines ---------------------------------------------------------------

    def _whole_line(self, line: str) -> list[Item]:
        if self._fence is not None and self._cut.depth == 0:
            m = _FENCE.match(line)
            if m and m.group(1)[0] == self._fence[0] and not m.group(2):
                return self._close_fence()
            if self._fence_kind == "":
                if not line.strip():
                    return []
                # Unlabelled: JSON if it starts like JSON, else shell text (decided at the end).
                self._fence_kind = "json" if line.lstrip()[:1] in "{[" else "guess"
            if self._fence_kind in ("shell", "guess"):
                self._fence_lines.append(line)
                return []
            return self._scan(line)
        if self._cut.depth > 0:
            # A broken NDJSON line must not swallow the next good one, nor a closing fence.
            fence = _FENCE.match(line)
            if fence and not fence.group(2) and line.strip() == fence.group(1):
                problem = self._broken(self._cut.broken())
                return [problem, *self._whole_line(line)]
            if self._cut.breaks_open_object(line):
                problem = self._broken(self._cut.broken())
                return [problem, *self._scan(line)]
            return self._scan(line)
        m = _FENCE.match(line)
        if m:
            lang = m.group(2).lower()
            self._fence = m.group(1)
            self._fence_lines = []
            self._fence_kind = (
                "json" if lang in _JSON_LANGS else "shell" if lang in _SHELL_LANGS else ""
            )
            return []
        return self._scan(line)

    def _scan(self, line: str) -> list[Item]:
        """Brace-match through a whole line, emitting each JSON object that closes on it."""
        return self._cuts(self._cut.scan(line))

    def _cuts(self, cuts: list[Broken | Element | str]) -> list[Item]:
        items: list[Item] = []
        for cut in cuts:
            if isinstance(cut, Broken):
                items.append(self._broken(cut))
            elif isinstance(cut, Element):
                items.extend(self._element(cut.text))
            else:
                items.extend(self._object(cut))
                self._early = 0
        return items

    def _broken(self, cut: Broken) -> Problem:
        self._early = 0
        if cut.reason == "malformed":
            return Problem(f"malformed JSON from the model: {_short(cut.text)}")
        return Problem(f"skipped a JSON object from the model that is {cut.reason}")

    # -- objects -------------------------------------------------------------------

    def _load(self, text: str) -> tuple[object, str]:
        """The decoded value, or None and why not (never raises)."""
        try:
            return json.loads(text), ""
        except RecursionError:  # the cutter bounds depth; this is the last line of defence
            return None, "nested too deeply"
        except ValueError:
            return None, "malformed"

    def _element(self, text: str) -> list[Item]:
        """An object inside the open object's array: a suggestion before the whole is in."""
        value, _ = self._load(text)
        if not isinstance(value, dict) or not isinstance(value.get("command"), (str, list)):
            return []  # not a suggestion; the whole object is looked at when it closes
        items = self._value(value, text)
        if items:
            self._early += 1
        return items

    def _object(self, text: str) -> list[Item]:
        value, why = self._load(text)
        if why == "malformed":
            return [Problem(f"malformed JSON from the model: {_short(text)}")]
        if why:
            return [Problem(f"skipped a JSON object from the model that is {why}")]
        return self._value(value, text, skip_objects=self._early > 0)

    def _value(self, value: object, text: str, *, skip_objects: bool = False) -> list[Item]:
        if not isinstance(value, dict):
            return []
        command = value.get("command")
        if isinstance(command, list):
            command = " && ".join(str(c) for c in command if c)
        if isinstance(command, str) and command.strip():
            self._json_seen = True
            return self._suggest(
                command.strip(), _text(value.get("explanation")), _text(value.get("caveats"))
            )
        items: list[Item] = []
        nested = value.get("suggestions")
        if not isinstance(nested, list):
            nested = value.get("commands")
        if isinstance(nested, list):
            self._json_seen = True
            for entry in nested:
                if isinstance(entry, str):
                    entry = {"command": entry}
                elif skip_objects:
                    continue  # taken already, as it closed
                items.extend(self._value(entry, text))
        offered = skip_objects or any(isinstance(i, ParsedSuggestion) for i in items)
        question = value.get("question")
        if isinstance(question, str) and question.strip() and not offered:
            self._json_seen = True
            if self.question is None:
                self.question = question.strip()
                items.append(ParsedQuestion(self.question))
            return items
        if not isinstance(nested, list) and not items:
            return [Problem(f"ignored a JSON object without a command: {_short(text)}")]
        return items

    def _suggest(self, command: str, explanation: str, caveats: str) -> list[Item]:
        if self.check_commands:
            reason = implausible(command, self.shell)
            if reason:
                if command in self._dropped:
                    return []  # said once is enough
                self._dropped.add(command)
                return [Dropped(command, reason)]
        if self.count >= self.max_suggestions:
            self._ignored += 1
            return []
        self.count += 1
        return [ParsedSuggestion(Suggestion(command, explanation, caveats, source="model"))]

    def _close_fence(self) -> list[Item]:
        kind, lines = self._fence_kind, self._fence_lines
        self._fence, self._fence_kind, self._fence_lines = None, "", []
        if kind not in ("shell", "guess"):
            return []
        first = next((ln.strip() for ln in lines if ln.strip()), "")
        if first.startswith('{"'):  # NDJSON in a block labelled as shell
            items: list[Item] = []
            for ln in lines:
                items.extend(self._scan(ln))
            return items
        if self._json_seen:
            return []  # a shell block beside JSON suggestions is an illustration
        commands = [_PROMPT.sub("", ln).strip() for ln in lines]
        commands = [c for c in commands if c and not c.startswith(("#", "REM ", "::"))]
        if not commands:
            return []
        joiner = "; " if self.shell in ("pwsh", "powershell") else " && "
        if kind == "guess":
            # An unlabelled block may quote output; it counts only if no JSON comes at all.
            self._pending = self._pending or joiner.join(commands)
            return []
        return self._suggest(joiner.join(commands), "", "")


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value if v)
    return str(value).strip()


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text[: n * 4].split())
    return text if len(text) <= n else text[: n - 1] + "…"


def parse_all(text: str, shell: str = "bash") -> list[Item]:
    """Parse a whole answer at once (same rules as streaming)."""
    parser = SuggestionParser(shell)
    return [*parser.feed(text), *parser.finish()]
