"""Typed events a suggestion turn yields; renderers (overlay, CLI) only look at these."""

from __future__ import annotations

from dataclasses import dataclass

from termwise.agent.base.types import Suggestion, Verdict


@dataclass(frozen=True)
class SuggestionReady:
    """A suggestion to show; `index` is its position in the list (0-based)."""

    index: int
    suggestion: Suggestion


@dataclass(frozen=True)
class VerdictReady:
    """A (possibly refined) safety verdict for suggestion `index`."""

    index: int
    verdict: Verdict


@dataclass(frozen=True)
class Question:
    """The model needs one clarifying answer before it can suggest anything."""

    text: str


@dataclass(frozen=True)
class Status:
    """Progress worth showing (e.g. "waiting for model…", "no model configured")."""

    text: str


@dataclass(frozen=True)
class Error:
    """Something went wrong; what was already yielded stays valid."""

    message: str
    retryable: bool = True
    reason: str = ""  # why, when known: an `llm.base.Failure` value, or "bad_answer"


@dataclass(frozen=True)
class Finished:
    """The turn is over (after an error too)."""

    cancelled: bool = False


Event = SuggestionReady | VerdictReady | Question | Status | Error | Finished
