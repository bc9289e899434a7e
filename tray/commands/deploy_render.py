"""How `termwise deploy` shows a repository, a streamed plan and a run: plain text or JSON lines."""

from __future__ import annotations

import json
import threading
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from termwise.agent.deploy.plan import Step
    from termwise.agent.deploy.runner import RunEvent
    from termwise.agent.deploy.sources import RepoSnapshot
    from termwise.agent.safety.approval_flow import ApprovalRequest

_MARK = {"safe": " ", "confirm": "?", "dangerous": "!"}


class DeployRenderer:
    """Writes each thing as it happens; safe to call from the runner's worker thread."""

    def __init__(self, out: IO[str], err: IO[str], *, as_json: bool) -> None:
        self.out = out
        self.err = err
        self.as_json = as_json
        self._lock = threading.Lock()

    def _json(self, obj: dict[str, Any]) -> None:
        with self._lock:
            self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
            self.out.flush()

    def _text(self, text: str, *, err: bool = False) -> None:
        stream = self.err if err else self.out
        with self._lock:
            stream.write(text + "\n")
            stream.flush()

    def note(self, text: str) -> None:
        if self.as_json:
            self._json({"event": "note", "text": text})
        else:
            self._text(f"termwise: {text}", err=True)

    def repository(self, snap: RepoSnapshot) -> None:
        if self.as_json:
            self._json(
                {
                    "event": "repository",
                    "name": snap.name,
                    "origin": snap.origin,
                    "kind": snap.kind,
                    "readme": snap.readme_name if snap.readme is not None else None,
                    "files": list(snap.files),
                    "listing": snap.listing,
                    "notes": snap.notes,
                    "from_knowledge": snap.from_knowledge,
                }
            )
            return
        lines = [f"Repository: {snap.name} ({snap.origin}, {snap.kind})"]
        if snap.readme is not None:
            lines.append(f"  README: {snap.readme_name} ({len(snap.readme)} characters)")
        if snap.files:
            lines.append(f"  manifests: {', '.join(snap.files)}")
        if snap.listing:
            shown = ", ".join(snap.listing[:20])
            more = f" … and {len(snap.listing) - 20} more" if len(snap.listing) > 20 else ""
            lines.append(f"  files: {shown}{more}")
        lines += [f"  note: {n}" for n in snap.notes]
        self._text("\n".join(lines))

    def planning(self, shell: str) -> None:
        if not self.as_json:
            self._text(f"\nPlanning for {shell}…")

    def step(self, step: Step) -> None:
        if self.as_json:
            self._json(
                {
                    "event": "step",
                    "step": step.number,
                    "title": step.title,
                    "why": step.why,
                    "commands": [
                        {"command": c, "verdict": v.level, "reasons": list(v.reasons)}
                        for c, v in zip(step.commands, step.verdicts, strict=False)
                    ],
                    "check": step.check,
                    "notes": step.notes,
                }
            )
            return
        lines = ["", f"Step {step.number}: {step.title}"]
        if step.why:
            lines.append(f"  {step.why}")
        for command, verdict in zip(step.commands, step.verdicts, strict=False):
            tag = "" if verdict.level == "safe" else f"   [{verdict.level}]"
            lines.append(f"  {_MARK[verdict.level]} $ {command}{tag}")
        if step.check:
            lines.append(f"    check: {step.check}")
        if step.notes:
            lines.append(f"    notes: {step.notes}")
        self._text("\n".join(lines))

    def problem(self, message: str) -> None:
        if self.as_json:
            self._json({"event": "problem", "message": message})
        else:
            self._text(f"termwise: {message}", err=True)

    def saved(self, path: Path | None, steps: int) -> None:
        if self.as_json:
            self._json({"event": "saved", "path": str(path) if path else None, "steps": steps})
        elif path is not None:
            count = "1 step" if steps == 1 else f"{steps} steps"
            self._text(f"\nPlan ({count}) saved to {path}")

    # -- a run ----------------------------------------------------------------------------
    def run_event(self, event: RunEvent) -> None:
        from termwise.agent.deploy.runner import (
            CommandFinished,
            CommandSent,
            RepairProposed,
            RunFinished,
            RunStatus,
            StepEnded,
            StepStarted,
        )

        if isinstance(event, RunFinished):
            return  # `finished` writes the outcome with the log and session
        if self.as_json:
            self._json(run_event_json(event))
            return
        if isinstance(event, StepStarted):
            self._text(f"\n▶ Step {event.step}: {event.title}")
        elif isinstance(event, CommandSent):
            self._text(f"  {'check' if event.is_check else '$'} {event.command}")
        elif isinstance(event, CommandFinished):
            tail = "\n".join("    " + ln for ln in event.output_tail.splitlines()[-8:])
            if tail:
                self._text(tail)
            self._text(f"    → exit {event.exit_code}")
        elif isinstance(event, RepairProposed):
            self._text(f"  fix proposed: {event.command}")
        elif isinstance(event, StepEnded):
            detail = f"{event.status}: {event.detail}" if event.detail else event.status
            self._text(f"  [step {event.step}: {detail}]")
        elif isinstance(event, RunStatus):
            where = f"step {event.step}: " if event.step is not None else ""
            self._text(f"  [{where}{event.text}]")

    def finished(self, outcome: str, log: Path | None, session: str) -> None:
        if self.as_json:
            self._json(
                {
                    "event": "finished",
                    "outcome": outcome,
                    "log": str(log) if log else None,
                    "session": session,
                }
            )
        else:
            self._text(f"\nRun {outcome} (session {session}); log: {log}")

    def approval_prompt(self, request: ApprovalRequest) -> None:
        from termwise.agent.safety.approval_flow import terminal_prompt

        if self.as_json:
            self._json(
                {
                    "event": "approval",
                    "command": request.command,
                    "verdict": request.verdict.level,
                    "reasons": list(request.reasons),
                    "answers": [o.answer for o in request.options],
                    "default": request.default,
                }
            )
            return
        with self._lock:
            self.out.write(approval_text(request) + "\n  " + terminal_prompt(request))
            self.out.flush()


def approval_text(request: ApprovalRequest, colour: bool = False) -> str:
    """The heading, command and reasons of an approval question, for a terminal."""
    heading = request.heading
    if request.dangerous:
        heading = f"\x1b[1;31m⚠ {heading}\x1b[0m" if colour else f"⚠ {heading.upper()}"
    lines = [f"  {heading}: {request.command}"]
    lines += [f"    - {r}" for r in request.reasons]
    return "\n".join(lines)


def run_event_json(event: RunEvent) -> dict[str, Any]:
    """The `{"event": "run", "kind", "step", "text", ["exit_code"]}` line of a run event."""
    from termwise.agent.deploy.runner import (
        CommandFinished,
        CommandSent,
        RepairProposed,
        RunStatus,
        StepEnded,
        StepStarted,
    )

    obj: dict[str, Any] = {"event": "run"}
    if isinstance(event, StepStarted):
        obj.update(kind="step", step=event.step, text=event.title)
    elif isinstance(event, CommandSent):
        obj.update(kind="check" if event.is_check else "command", step=event.step)
        obj["text"] = event.command
    elif isinstance(event, CommandFinished):
        obj.update(kind="result", step=event.step, text=event.output_tail)
        obj["exit_code"] = event.exit_code
    elif isinstance(event, RepairProposed):
        obj.update(kind="repair", step=event.step, text=event.command)
    elif isinstance(event, StepEnded):
        text = f"{event.status}: {event.detail}" if event.detail else event.status
        obj.update(kind="status", step=event.step, text=text, status=event.status)
    elif isinstance(event, RunStatus):
        obj.update(kind="status", step=event.step, text=event.text)
    return obj
