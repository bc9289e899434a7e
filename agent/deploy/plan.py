"""Deploy plans: steps as the model streams them, and their Markdown form on disk."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from termwise.agent.base.types import Verdict
from termwise.memory.lock import atomic_write


@dataclass
class Step:
    """One plan step: commands for the target shell and an optional check command."""

    number: int
    title: str
    why: str = ""
    commands: list[str] = field(default_factory=list)
    check: str | None = None
    notes: str = ""
    verdicts: list[Verdict] = field(default_factory=list)


@dataclass
class Plan:
    """A whole plan for one repository."""

    target: str
    name: str
    shell: str
    steps: list[Step] = field(default_factory=list)
    from_knowledge: bool = False
    notes: list[str] = field(default_factory=list)
    created: float = field(default_factory=time.time)
    workdir: str | None = None  # the folder the commands run in (None: wherever the session is)


def step_from_json(obj: Any, fallback_number: int) -> Step | None:
    """A step from one decoded JSON object of the `deploy` contract; None if it is not one."""
    if not isinstance(obj, dict):
        return None
    commands = obj.get("commands")
    if isinstance(commands, str):
        commands = [commands]
    if commands is None and isinstance(obj.get("command"), str):
        commands = [obj["command"]]
    if not isinstance(commands, list):
        return None
    commands = [c.strip() for c in commands if isinstance(c, str) and c.strip()]
    title = obj.get("title")
    if not commands and not title:
        return None
    number = obj.get("step")
    check = obj.get("check")
    return Step(
        number=number if isinstance(number, int) and number > 0 else fallback_number,
        title=str(title or commands[0]),
        why=str(obj.get("why") or ""),
        commands=commands,
        check=check.strip() if isinstance(check, str) and check.strip() else None,
        notes=str(obj.get("notes") or ""),
    )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:60] or "plan"


def plan_path(folder: Path, plan: Plan) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(plan.created))
    return folder / f"{stamp}-{_slug(plan.name)}.md"


def log_path_for(plan_file: Path) -> Path:
    """The run log lives next to its plan."""
    return plan_file.with_name(plan_file.stem + ".log.md")


def _fence(shell: str) -> str:
    return {"pwsh": "powershell", "powershell": "powershell", "cmd": "bat"}.get(shell, "bash")


def plan_markdown(plan: Plan) -> str:
    """The plan as Markdown a person can read and follow by hand."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(plan.created))
    out = [
        f"# Deploy plan: {plan.name}",
        "",
        f"- target: {plan.target}",
        f"- shell: {plan.shell}",
        f"- created: {when}",
    ]
    if plan.from_knowledge:
        out.append("- source: the model's own knowledge (no repository was read)")
    out.extend(f"- note: {n}" for n in plan.notes)
    for step in plan.steps:
        out += ["", f"## Step {step.number}: {step.title}", ""]
        if step.why:
            out += [step.why, ""]
        out.append(f"```{_fence(plan.shell)}")
        out.extend(step.commands)
        out.append("```")
        for cmd, verdict in zip(step.commands, step.verdicts, strict=False):
            if verdict.level != "safe":
                out.append(f"- {verdict.level}: `{cmd}` — {'; '.join(verdict.reasons)}")
        if step.check:
            out.append(f"- check: `{step.check}`")
        if step.notes:
            out.append(f"- notes: {step.notes}")
    return "\n".join(out) + "\n"


def save_plan(plan: Plan, folder: Path) -> Path:
    path = plan_path(folder, plan)
    atomic_write(path, plan_markdown(plan))
    return path
