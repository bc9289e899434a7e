"""JSON schemas of the answers we ask for, in the two dialects providers take them.

`strict` is OpenAI's structured-output dialect (every key required, no size limits);
`bounded` adds item and length limits, which grammar-constrained local servers
(llama.cpp, Ollama, LM Studio) turn into a grammar: a weak model then cannot ramble
past them. Both describe one JSON object, so a constrained suggestion answer is
`{"suggestions": [{…}, …]}` rather than NDJSON; the parser takes either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_COMMAND_CHARS = 200
MAX_TEXT_CHARS = 120


@dataclass(frozen=True)
class AnswerSchema:
    """One answer shape: its name and its schema in each dialect."""

    name: str
    strict: dict[str, Any]
    bounded: dict[str, Any]

    def response_format(self, *, strict: bool) -> dict[str, Any]:
        """The `response_format` request field for this schema."""
        spec: dict[str, Any] = {
            "name": self.name,
            "schema": self.strict if strict else self.bounded,
        }
        if strict:
            spec["strict"] = True
        return {"type": "json_schema", "json_schema": spec}


def _string(limit: int | None, *, min_length: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string"}
    if limit is not None:
        out["maxLength"] = limit
        if min_length:
            out["minLength"] = min_length
    return out


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def _suggest(bounded: bool) -> dict[str, Any]:
    text = MAX_TEXT_CHARS if bounded else None
    item = _object(
        {
            "command": _string(MAX_COMMAND_CHARS if bounded else None, min_length=1),
            "explanation": _string(text),
            "caveats": _string(text),
        },
        ["command", "explanation", "caveats"],
    )
    suggestions: dict[str, Any] = {"type": "array", "items": item}
    if bounded:  # a weak model must give at least one, and cannot go on forever
        suggestions |= {"minItems": 1, "maxItems": 5}
    props = {"suggestions": suggestions, "question": _string(text)}
    # Suggestions first: the parser shows each as it closes, the question comes last.
    return _object(props, ["suggestions"] if bounded else ["suggestions", "question"])


def _safety(bounded: bool) -> dict[str, Any]:
    return _object(
        {
            "risk": {"type": "string", "enum": ["low", "medium", "high"]},
            "explanation": _string(MAX_TEXT_CHARS if bounded else None),
        },
        ["risk", "explanation"],
    )


MAX_PLAN_STEPS = 12  # what the deploy prompt asks for at most
MAX_STEP_COMMANDS = 6


def _deploy(bounded: bool) -> dict[str, Any]:
    text = MAX_TEXT_CHARS if bounded else None
    commands: dict[str, Any] = {
        "type": "array",
        "items": _string(MAX_COMMAND_CHARS if bounded else None, min_length=1),
    }
    if bounded:
        commands |= {"minItems": 1, "maxItems": MAX_STEP_COMMANDS}
    step = _object(
        {
            "title": _string(text, min_length=1),
            "why": _string(text),
            "commands": commands,
            "check": _string(MAX_COMMAND_CHARS if bounded else None),
            "notes": _string(text),
        },
        ["title", "why", "commands", "check", "notes"],
    )
    steps: dict[str, Any] = {"type": "array", "items": step}
    if bounded:
        steps |= {"minItems": 1, "maxItems": MAX_PLAN_STEPS}
    return _object({"steps": steps}, ["steps"])


SUGGEST = AnswerSchema("suggestions", _suggest(False), _suggest(True))
DEPLOY = AnswerSchema("deploy_plan", _deploy(False), _deploy(True))
SAFETY = AnswerSchema("risk_review", _safety(False), _safety(True))
