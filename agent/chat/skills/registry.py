"""The skill whitelist: which skills are offered, running one safely, the JSON fallback."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from termwise.agent.chat.skills.base import Skill, SkillContext, SkillError
from termwise.agent.chat.skills.commands import COMMAND_SKILLS
from termwise.agent.chat.skills.files import FILE_SKILLS
from termwise.agent.chat.skills.online import ONLINE_SKILLS, email_enabled, weather_enabled

log = logging.getLogger(__name__)

ALL_SKILLS: dict[str, Skill] = {s.name: s for s in (*FILE_SKILLS, *COMMAND_SKILLS, *ONLINE_SKILLS)}


@dataclass(frozen=True)
class SkillResult:
    """What a skill call gave: `ok` False means `text` explains the refusal or failure."""

    name: str
    ok: bool
    text: str


def offered_skills(ctx: SkillContext) -> list[Skill]:
    """The whitelisted skills that are switched on for this config."""
    offered = []
    for skill in ALL_SKILLS.values():
        if skill.name == "weather" and not weather_enabled(ctx):
            continue
        if skill.name == "email" and not email_enabled(ctx):
            continue
        if skill.name == "summarize" and ctx.summarize is None:
            continue
        if skill.name in ("file_search", "file_read", "list_dir") and not any(
            f.strip() for f in ctx.config.skills.allowed_folders
        ):
            continue
        offered.append(skill)
    return offered


def run_skill(name: str, args: Any, ctx: SkillContext) -> SkillResult:
    """Run a skill by name; every refusal or failure comes back as text, never as an exception."""
    skill = ALL_SKILLS.get(name)
    if skill is None:
        known = ", ".join(ALL_SKILLS)
        return SkillResult(name, False, f"there is no skill named {name!r} (skills: {known})")
    if not isinstance(args, dict):
        return SkillResult(name, False, f"the arguments of {name} must be a JSON object")
    try:
        return SkillResult(name, True, skill.run(args, ctx))
    except SkillError as exc:
        return SkillResult(name, False, str(exc))
    except Exception as exc:  # a bug or an odd OS error must not end the chat
        log.warning("skill %s failed", name, exc_info=True)
        return SkillResult(name, False, f"{name} failed: {type(exc).__name__}: {exc}")


def parse_arguments(raw: str) -> Any:
    """Tool-call arguments as sent by the model; a SkillError-style text when not JSON."""
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SkillError(f"the arguments are not valid JSON ({exc.msg})") from exc


_FALLBACK_RE = re.compile(r"\{[^{}]*\"skill\"[^{}]*(?:\{[^{}]*\}[^{}]*)?\}", re.S)


def find_fallback_call(text: str) -> tuple[str, Any] | None:
    """A `{"skill": name, "args": {...}}` request written in a plain answer, if there is one."""
    for match in _FALLBACK_RE.finditer(text):
        try:
            data = json.loads(match.group(0))
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("skill"), str):
            return data["skill"], data.get("args", {})
    return None


def fallback_catalogue(skills: list[Skill]) -> str:
    """The skills described in text, for models without native tool calls."""
    lines = []
    for skill in skills:
        props = skill.parameters.get("properties", {})
        args = ", ".join(f'"{k}": {v.get("description", "")}' for k, v in props.items())
        lines.append(f"- {skill.name}: {skill.description} args: {{{args}}}")
    return "\n".join(lines)


__all__ = [
    "ALL_SKILLS",
    "SkillContext",
    "SkillError",
    "SkillResult",
    "fallback_catalogue",
    "find_fallback_call",
    "offered_skills",
    "parse_arguments",
    "run_skill",
]
