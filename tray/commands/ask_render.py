"""Terminal rendering of a suggestion turn: plain text as events stream in, or JSON lines."""

from __future__ import annotations

import json
from typing import Any, TextIO

from termwise.agent.base.events import (
    Error,
    Event,
    Finished,
    Question,
    Status,
    SuggestionReady,
    VerdictReady,
)
from termwise.agent.base.types import Verdict
from termwise.agent.llm.base import Failure
from termwise.agent.suggest.turn import NO_MODEL
from termwise.agent.suggest.wire import suggestion_json, verdict_json

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_UNAVAILABLE = 3


def event_json(event: Event) -> dict[str, Any]:
    """One event as a JSON-ready dict with an "event" field naming its type."""
    if isinstance(event, SuggestionReady):
        return {"event": "suggestion", "index": event.index, **suggestion_json(event.suggestion)}
    if isinstance(event, VerdictReady):
        return {"event": "verdict", "index": event.index, **(verdict_json(event.verdict) or {})}
    if isinstance(event, Question):
        return {"event": "question", "text": event.text}
    if isinstance(event, Status):
        return {"event": "status", "text": event.text}
    if isinstance(event, Error):
        return {"event": "error", "message": event.message, "retryable": event.retryable}
    return {"event": "finished", "cancelled": event.cancelled}


class TurnRenderer:
    """Writes events as they come and works out the command's exit code at the end."""

    def __init__(
        self, out: TextIO, err: TextIO, *, as_json: bool = False, offline: bool = False
    ) -> None:
        self.out = out
        self.err = err
        self.as_json = as_json
        self.offline = offline
        self.suggestions = 0
        self.questions = 0
        self.errors = 0
        self.no_model = False
        self.unreachable = False
        self.cancelled = False
        self._shown: dict[int, Verdict | None] = {}

    def note(self, text: str) -> None:
        """A remark about the run itself (no host, no context …), kept off stdout in text mode."""
        if self.as_json:
            self._json({"event": "status", "text": text})
        else:
            print(f"termwise: {text}", file=self.err, flush=True)

    def event(self, event: Event) -> None:
        if isinstance(event, SuggestionReady):
            self.suggestions += 1
        elif isinstance(event, Question):
            self.questions += 1
        elif isinstance(event, Error):
            self.errors += 1
            self.unreachable = self.unreachable or event.reason == Failure.UNREACHABLE.value
        elif isinstance(event, Status) and event.text == NO_MODEL:
            self.no_model = True
            if self.offline:
                return  # the user asked for offline; no need to advertise a model
        elif isinstance(event, Finished):
            self.cancelled = event.cancelled
        if self.as_json:
            self._json(event_json(event))
        else:
            self._text(event)

    def exit_code(self) -> int:
        if self.cancelled:
            return 130
        if self.suggestions or self.questions:
            return EXIT_OK
        if (self.no_model and not self.offline) or self.unreachable:
            return EXIT_UNAVAILABLE
        return EXIT_FAILURE

    # -- text ----------------------------------------------------------------------

    def _text(self, event: Event) -> None:
        if isinstance(event, SuggestionReady):
            s = event.suggestion
            self._shown[event.index] = s.verdict
            tag = f"{s.source}" + (f" · {_level(s.verdict)}" if s.verdict else "")
            self._print(f"{event.index + 1}. {s.command}    [{tag}]")
            if s.explanation:
                self._print(f"   {s.explanation}")
            if s.caveats:
                self._print(f"   caveat: {s.caveats}")
            if s.verdict and s.verdict.level != "safe" and s.verdict.reasons:
                self._print(f"   why {s.verdict.level}: {'; '.join(s.verdict.reasons)}")
        elif isinstance(event, VerdictReady):
            before = self._shown.get(event.index)
            if before == event.verdict:
                return  # already shown with its suggestion
            self._shown[event.index] = event.verdict
            line = f"   ↳ {event.index + 1}: {_level(event.verdict)}"
            if event.verdict.explanation:
                line += f" — {event.verdict.explanation}"
            self._print(line)
        elif isinstance(event, Question):
            self._print(f"? {event.text}")
        elif isinstance(event, Status):
            if event.text == NO_MODEL:
                print(
                    "termwise: no model configured — a model adds more suggestions "
                    "(`termwise config show`, or set TERMWISE_BASE_URL and TERMWISE_MODEL)",
                    file=self.err,
                    flush=True,
                )
            else:
                print(f"termwise: {event.text}", file=self.err, flush=True)
        elif isinstance(event, Error):
            hint = " (try again)" if event.retryable else ""
            print(f"termwise: error: {event.message}{hint}", file=self.err, flush=True)
        elif isinstance(event, Finished):
            if event.cancelled:
                print("termwise: cancelled", file=self.err, flush=True)
            elif not (self.suggestions or self.questions or self.errors):
                why = " from the offline rules" if self.offline else ""
                print(f"termwise: no suggestions{why}", file=self.err, flush=True)

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def _json(self, obj: dict[str, Any]) -> None:
        print(json.dumps(obj, ensure_ascii=False), file=self.out, flush=True)


def _level(v: Verdict | None) -> str:
    if v is None:
        return "unchecked"
    return v.level.upper() if v.level == "dangerous" else v.level
