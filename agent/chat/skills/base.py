"""What a skill is, what it gets to work with, and the error it raises for the user."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from termwise.agent.base.config_schema import Config
from termwise.agent.base.errors import AgentError

Confirm = Callable[[str], bool]  # shows the question to the user; True means go ahead


class SkillError(AgentError):
    """A skill refused or failed; the message goes to the model and the user as is."""


@dataclass
class SkillContext:
    """What skills may touch: config, the user's yes/no, a summariser, the working folder."""

    config: Config
    confirm: Confirm = lambda question: False
    summarize: Callable[[str], str] | None = None  # None: no model, the skill is off
    cwd: Path = field(default_factory=Path.cwd)
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Skill:
    """One callable tool: its name, a description and JSON-schema parameters for the model."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Callable[[dict[str, Any], SkillContext], str]

    def tool_spec(self) -> dict[str, Any]:
        """The OpenAI `tools` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def params(required: tuple[str, ...] = (), **props: tuple[str, str]) -> dict[str, Any]:
    """A JSON schema object from name=(type, description) pairs."""
    return {
        "type": "object",
        "properties": {name: {"type": t, "description": d} for name, (t, d) in props.items()},
        "required": list(required),
    }


def arg_str(args: Mapping[str, Any], name: str, default: str | None = None) -> str:
    value = args.get(name, default)
    if value is None:
        raise SkillError(f"missing argument {name!r}")
    if not isinstance(value, (str, int, float)):
        raise SkillError(f"argument {name!r} should be text")
    return str(value)


def cap(text: str, limit: int) -> str:
    """Text cut to about `limit` characters, saying so when it was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… (cut: {len(text) - limit} more characters)"
