"""A safety verdict, apart from the other shared types so `termwise check` imports only this."""

from __future__ import annotations

from typing import Literal, NamedTuple

Level = Literal["safe", "confirm", "dangerous"]


class Verdict(NamedTuple):
    """A safety verdict: `safe`, `confirm` or `dangerous`, with reasons naming the rule."""

    level: Level
    reasons: tuple[str, ...] = ()
    explanation: str = ""  # optional model-written risk explanation (never changes level)
