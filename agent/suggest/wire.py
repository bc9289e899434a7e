"""Suggestions as JSON, both ways: for `--json` output and for the host's instant tier.

The host answers a `context` request that asks for `rules` with the rules tier already
run and judged, so `termwise fix` need not import and compile the rules itself (most of
its start-up); any field it cannot read makes the client run the rules on its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any, cast

from termwise.agent.base.types import (
    RULE_VARIABLES,
    Block,
    Level,
    SessionContext,
    Source,
    Suggestion,
    Verdict,
)

CONTEXT_BLOCKS = 5  # blocks a request carries (the overlay shows only the last)

_LEVELS = ("safe", "confirm", "dangerous")
_SOURCES = ("rules", "model")


def verdict_json(v: Verdict | None) -> dict[str, Any] | None:
    if v is None:
        return None
    return {"level": v.level, "reasons": list(v.reasons), "explanation": v.explanation}


def suggestion_json(s: Suggestion) -> dict[str, Any]:
    return {
        "command": s.command,
        "explanation": s.explanation,
        "caveats": s.caveats,
        "source": s.source,
        "rule": s.rule,
        "verdict": verdict_json(s.verdict),
    }


def verdict_from_json(data: object) -> Verdict:
    if not isinstance(data, Mapping) or data.get("level") not in _LEVELS:
        raise ValueError("not a verdict")
    reasons = data.get("reasons") or []
    if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
        raise ValueError("verdict reasons must be strings")
    return Verdict(cast(Level, data["level"]), tuple(reasons), _text(data, "explanation"))


def suggestion_from_json(data: object) -> Suggestion:
    """A judged suggestion back from `suggestion_json`; ValueError for anything else."""
    if not isinstance(data, Mapping) or not isinstance(data.get("command"), str):
        raise ValueError("not a suggestion")
    source = data.get("source")
    if source not in _SOURCES:
        raise ValueError("unknown suggestion source")
    return Suggestion(
        command=data["command"],
        explanation=_text(data, "explanation"),
        caveats=_text(data, "caveats"),
        source=cast(Source, source),
        rule=_text(data, "rule"),
        verdict=verdict_from_json(data.get("verdict")),
    )


def rules_from_json(items: object) -> list[Suggestion] | None:
    """The host's instant tier; None when it sent none or anything unreadable."""
    if not isinstance(items, list):
        return None
    try:
        found = [suggestion_from_json(item) for item in items]
    except ValueError:
        return None
    return found if all(s.source == "rules" for s in found) else None


def rules_environment() -> dict[str, str]:
    """What of this process's environment the rules read, for a host to run them with."""
    return {k: os.environ[k] for k in RULE_VARIABLES if k in os.environ}


def instant_json(ctx: SessionContext, variables: Mapping[str, str]) -> list[dict[str, Any]]:
    """The rules tier for a fix of `ctx`'s last failure, each with its verdict, as JSON,
    run as the process whose `rules_environment()` is `variables` would run it."""
    from termwise.agent.rules.env import environment
    from termwise.agent.suggest.turn import rules_suggestions, verdict_for

    shell = ctx.shell or "bash"
    found = []
    with environment(variables):
        for s in rules_suggestions(ctx):
            s.verdict = verdict_for(s.command, shell)
            found.append(suggestion_json(s))
    return found


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def session_context(
    blocks: Iterable[Block],
    *,
    shell: str,
    cwd: str | None,
    session_id: str | None,
    os_name: str = "",
    has_marks: bool = True,
    screen_text: str = "",
    path: str | None = None,
) -> SessionContext:
    """A session as a turn sees it; the last screenful counts only when the shell has no marks."""
    return SessionContext(
        blocks=list(blocks),
        shell=shell or "bash",
        cwd=cwd,
        os_name=os_name,
        session_id=session_id,
        screen_text="" if has_marks else screen_text,
        path=path,
    )


def block_from_json(data: Mapping[str, object]) -> Block:
    """A block as the host's `context` reply carries it (see `termwise context --json`)."""
    return Block(
        command=str(data.get("command") or ""),
        output=str(data.get("output") or ""),
        exit_code=_int_or_none(data.get("exit_code")),
        cwd=_str_or_none(data.get("cwd")),
        started=_float_or_none(data.get("started")),
        ended=_float_or_none(data.get("ended")),
    )


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float_or_none(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None
