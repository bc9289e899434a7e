"""The journeys' loopback model: per-test answers keyed on the failed command a request is about."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from tests.support.llm_server import Reply, make_reply

SUGGEST_PROMPT = "You are Termwise, a terminal assistant."  # suggest.md's first sentence
SAFETY_PROMPT = "You review one"  # safety.md: the model's second look at a flagged command
EXPLANATION = "Scripted for a journey."
# The request's "Recent commands" list: `[3] $ journey_fail_a`; the last one is the subject.
_RECENT = re.compile(r"^\[\d+\] \$ (.*)$", re.MULTILINE)


class ModelScript:
    """Answers a suggest request with the commands registered for its last command.

    `when("journey_fail_a", "echo fix-a")` makes every suggest request whose newest block is
    `journey_fail_a` stream `echo fix-a` as one NDJSON line. Unknown requests, memory
    summaries and the like get an empty answer; the safety review always says "low", which
    can never lower a rules verdict (the product only lets the model raise one).
    """

    def __init__(self) -> None:
        self._answers: dict[str, tuple[tuple[str, str], ...]] = {}
        self._lock = threading.Lock()
        self.asked: list[str] = []  # the subject command of each suggest request, in order

    def when(self, failed_command: str, *commands: str | tuple[str, str]) -> None:
        """Register the answer; a command may come with its explanation as (command, text)."""
        with self._lock:
            self._answers[failed_command] = tuple(
                (c, EXPLANATION) if isinstance(c, str) else c for c in commands
            )

    def __call__(self, request: dict[str, Any]) -> Reply:
        messages = request.get("messages") or [{}]
        system = str(messages[0].get("content", ""))
        if system.startswith(SAFETY_PROMPT):
            return make_reply({"text": json.dumps({"risk": "low", "explanation": "scripted"})})
        if not system.startswith(SUGGEST_PROMPT):
            return make_reply({"text": ""})
        user = str(messages[-1].get("content", ""))
        recent = _RECENT.findall(user)
        subject = recent[-1].strip() if recent else ""
        with self._lock:
            self.asked.append(subject)
            commands = self._answers.get(subject, ())
        lines = "".join(
            json.dumps({"command": c, "explanation": text, "caveats": ""}) + "\n"
            for c, text in commands
        )
        return make_reply({"text": lines, "chunk_size": 16})
