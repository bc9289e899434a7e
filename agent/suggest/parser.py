"""Incremental parser of model answers: NDJSON, JSON arrays, fenced JSON or shell, prose around.

Feed text as it streams; each complete line is looked at once. JSON objects are cut out
of the text by brace matching (strings and escapes respected), so a suggestion is ready
the moment the line that closes it ends. Nothing here raises on bad model output:
problems come out as `Problem` items and parsing carries on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from termwise.agent.base.types import Suggestion
from termwise.agent.suggest.json_stream import OBJECT_START, Broken, ObjectCutter

MAX_SUGGESTIONS = 5

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


Item = ParsedSuggestion | ParsedQuestion | Problem


class SuggestionParser:
    """Turns streamed model text into suggestions, a question, or problems (never raises)."""

    def __init__(self, shell: str = "bash", max_suggestions: int = MAX_SUGGESTIONS) -> None:
        self.shell = shell
        self.max_suggestions = max_suggestions
        self.count = 0
        self.question: str | None = None
        self._buf = ""
        self._fence: str | None = None  # the fence marker while inside a fenced block
        self._fence_kind = ""  # "json" | "shell" | "" (undecided until its first line)
        self._fence_lines: list[str] = []
        self._cut = ObjectCutter()  # the JSON object being collected
        self._json_seen = False
        self._ignored = 0
        self._pending = ""  # an unlabelled fenced block, used when the answer has no JSON

    # -- feeding -------------------------------------------------------------------

    def feed(self, text: str) -> list[Item]:
        """Add streamed text; returns what the lines it completed contained."""
        self._buf += text
        items: list[Item] = []
        while True:
            nl = self._buf.find("\n")
            if nl < 0:
                break
            line, self._buf = self._buf[:nl], self._buf[nl + 1 :]
            items.extend(self._line(line.rstrip("\r")))
        return items

    def finish(self) -> list[Item]:
        """The answer ended: parse the last partial line and report anything left open."""
        items: list[Item] = []
        if self._buf:
            line, self._buf = self._buf, ""
            items.extend(self._line(line))
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

    # -- lines ---------------------------------------------------------------------

    def _line(self, line: str) -> list[Item]:
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
                problem = Problem(f"malformed JSON from the model: {_short(self._cut.text)}")
                self._cut.reset()
                return [problem, *self._line(line)]
            if self._cut.oneline and OBJECT_START.match(line.lstrip()):
                problem = Problem(f"malformed JSON line from the model: {_short(self._cut.text)}")
                self._cut.reset()
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
        """Brace-match through `line`, emitting each JSON object that closes on it."""
        items: list[Item] = []
        for cut in self._cut.scan(line):
            if isinstance(cut, Broken):
                items.append(Problem(f"malformed JSON line from the model: {_short(cut.text)}"))
            else:
                items.extend(self._object(cut))
        return items

    # -- objects -------------------------------------------------------------------

    def _object(self, text: str) -> list[Item]:
        try:
            value = json.loads(text)
        except ValueError:
            return [Problem(f"malformed JSON from the model: {_short(text)}")]
        return self._value(value, text)

    def _value(self, value: object, text: str) -> list[Item]:
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
        question = value.get("question")
        if isinstance(question, str) and question.strip():
            self._json_seen = True
            if self.question is None:
                self.question = question.strip()
                return [ParsedQuestion(self.question)]
            return []
        nested = value.get("suggestions") or value.get("commands")
        if isinstance(nested, list):
            items: list[Item] = []
            for entry in nested:
                if isinstance(entry, str):
                    entry = {"command": entry}
                items.extend(self._value(entry, text))
            return items
        return [Problem(f"ignored a JSON object without a command: {_short(text)}")]

    def _suggest(self, command: str, explanation: str, caveats: str) -> list[Item]:
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
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def parse_all(text: str, shell: str = "bash") -> list[Item]:
    """Parse a whole answer at once (same rules as streaming)."""
    parser = SuggestionParser(shell)
    return [*parser.feed(text), *parser.finish()]
