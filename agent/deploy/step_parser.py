"""Incremental, lenient parser of a streamed `deploy` answer into plan steps.

The answer should be one JSON object per line; a JSON array, JSON in a fenced block, a
`{"steps": [...]}` wrapper and prose around them are accepted too. Objects are cut out
by `termwise.agent.suggest.json_stream`, so a step is ready the moment the line that
closes it ends. An answer with no JSON at all but fenced shell blocks (small local
models do that) gets one step per block, titled by the prose line above it. Bad output
never raises: it comes out as `StepProblem` items.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TypeAlias

from termwise.agent.deploy.plan import Step, step_from_json
from termwise.agent.suggest.json_stream import OBJECT_START, Broken, Element, ObjectCutter

MAX_STEPS = 20  # the prompt asks for at most 12; beyond this the model is rambling
_FENCE_ONLY = re.compile(r"^\s*(`{3,}|~{3,})\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)\s*$")
_SHELL_LANGS = {
    "", "bash", "sh", "shell", "zsh", "console", "shell-session", "terminal",
    "powershell", "pwsh", "ps", "ps1", "cmd", "bat", "batch",
}  # fmt: skip
_PROMPT = re.compile(r"^\s*(?:\$|>|PS [^>]*>|PS>|[A-Za-z]:\\[^>]*>)\s+")
_TITLE_NOISE = re.compile(r"^[\s#*_>-]*(?:(?:step\s*)?\d+\s*[.):-]?\s*)?", re.IGNORECASE)


@dataclass(frozen=True)
class StepProblem:
    """Something in the answer that could not become a step."""

    message: str


StepItem: TypeAlias = "Step | StepProblem"


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text[: n * 4].split())
    return text if len(text) <= n else text[: n - 1] + "…"


class StepParser:
    """Feed streamed text; each complete line yields the steps (or problems) it closed."""

    def __init__(self, max_steps: int = MAX_STEPS) -> None:
        self.max_steps = max_steps
        self.steps: list[Step] = []
        self._buf = ""
        # Elements: the steps inside a schema-constrained `{"steps": [...]}` come out as
        # each closes, not all at once when the wrapper does.
        self._cut = ObjectCutter(elements=True)
        self._early = 0  # steps taken from the open wrapper's elements already
        self._ignored = 0
        self._fence: str | None = None  # the marker of the fenced block we are in
        self._fence_shell = False
        self._fence_lines: list[str] = []
        self._fence_title = ""
        self._prose = ""  # the last prose line: a shell block's title
        self._blocks: list[tuple[str, list[str]]] = []

    def feed(self, text: str) -> list[StepItem]:
        self._buf += text
        items: list[StepItem] = []
        while True:
            nl = self._buf.find("\n")
            if nl < 0:
                return items
            line, self._buf = self._buf[:nl], self._buf[nl + 1 :]
            items.extend(self._line(line.rstrip("\r")))

    def finish(self) -> list[StepItem]:
        """The answer ended: parse the last partial line and report what was left open."""
        items: list[StepItem] = []
        if self._buf:
            line, self._buf = self._buf, ""
            items.extend(self._line(line))
        if self._cut.depth > 0:
            items.append(
                StepProblem(f"the answer ended inside a step: {_short(self._cut.text.strip())}")
            )
            self._cut.reset()
        if not self.steps and self._blocks:
            items.append(
                StepProblem(
                    "the model wrote shell blocks instead of JSON steps; each became a step"
                )
            )
            for title, commands in self._blocks:
                items.extend(self._value({"title": title, "commands": commands}, title))
        if self._ignored:
            items.append(StepProblem(f"ignored {self._ignored} step(s) beyond {self.max_steps}"))
            self._ignored = 0
        if not self.steps:
            items.append(StepProblem("the model's answer held no plan steps"))
        return items

    def _line(self, line: str) -> list[StepItem]:
        if self._cut.depth > 0 and _FENCE_ONLY.match(line):
            # A closing fence cannot be inside JSON: the open object was broken.
            broken = self._cut.text
            self._cut.reset()
            return [StepProblem(f"malformed JSON from the model: {_short(broken)}")]
        if self._cut.depth == 0 and self._fences(line):
            return []
        items: list[StepItem] = []
        for cut in self._cut.feed_line(line):
            if isinstance(cut, Element):
                items.extend(self._element(cut.text))
                continue
            early, self._early = self._early, 0
            if isinstance(cut, Broken) and cut.reason != "malformed":
                items.append(StepProblem(f"skipped a step from the model that is {cut.reason}"))
            elif isinstance(cut, Broken):
                items.append(StepProblem(f"malformed JSON line from the model: {_short(cut.text)}"))
            else:
                items.extend(self._object(cut, skip_taken=early > 0))
        return items

    def _element(self, text: str) -> list[StepItem]:
        """An object in the open wrapper's array: a step before the whole answer is in."""
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return []  # judged with the whole object when it closes
        if step_from_json(value, 1) is None:
            return []
        items = self._value(value, text)
        self._early += 1
        return items

    def _fences(self, line: str) -> bool:
        """Track fenced blocks and prose; True when the line was only a fence marker."""
        m = _FENCE.match(line)
        if self._fence is None:
            if m:
                self._fence, self._fence_lines = m.group(1), []
                self._fence_shell = m.group(2).lower() in _SHELL_LANGS
                self._fence_title = self._prose
                return True
            if line.strip() and not OBJECT_START.search(line):
                self._prose = line
            return False
        if m and not m.group(2) and m.group(1)[0] == self._fence[0]:
            self._close_fence()
            return True
        if self._fence_shell:
            self._fence_lines.append(line)
        return False

    def _close_fence(self) -> None:
        lines = [_PROMPT.sub("", ln).strip() for ln in self._fence_lines]
        commands = [c for c in lines if c and not c.startswith(("#", "REM ", "::"))]
        if self._fence_shell and commands and commands[0][:1] not in "{[":
            title = _TITLE_NOISE.sub("", self._fence_title).strip().strip("*_:").strip()
            self._blocks.append((title or commands[0], commands))
        self._fence, self._fence_lines = None, []

    def _object(self, text: str, *, skip_taken: bool = False) -> list[StepItem]:
        try:
            value = json.loads(text)
        except RecursionError:  # the cutter bounds depth; this is the last line of defence
            return [StepProblem("skipped a step from the model that is too deeply nested")]
        except ValueError:
            return [StepProblem(f"malformed JSON from the model: {_short(text)}")]
        if isinstance(value, dict) and isinstance(value.get("steps"), list):
            items: list[StepItem] = []
            for entry in value["steps"]:
                if skip_taken and isinstance(entry, dict):
                    continue  # taken as it closed
                items.extend(self._value(entry, _short(str(entry)[:400])))
            return items
        return self._value(value, text)

    def _value(self, value: object, text: str) -> list[StepItem]:
        step = step_from_json(value, len(self.steps) + 1)
        if step is None:
            return [StepProblem(f"ignored a JSON object that is not a step: {_short(text)}")]
        if len(self.steps) >= self.max_steps:
            self._ignored += 1
            return []
        # Numbered by arrival: models skip or repeat numbers, the plan must not.
        step.number = len(self.steps) + 1
        self.steps.append(step)
        return [step]


def parse_steps(text: str) -> list[StepItem]:
    """Parse a whole answer at once (same rules as streaming)."""
    parser = StepParser()
    return [*parser.feed(text), *parser.finish()]
