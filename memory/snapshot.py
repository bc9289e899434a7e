"""Structured state snapshots: long runs compress old history into one and resume from it.

A snapshot holds the overall goal, key knowledge, the file-system state, recent actions
and the current plan ([DONE] / [IN PROGRESS] / [TODO]). It is Markdown, so a model can
write it and a person can read it; parsing is lenient about headings and bullets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from termwise.memory.lock import atomic_write

Message = dict[str, str]  # {"role": ..., "content": ...}
Summarize = Callable[[str], str]
PLAN_STATES = ("DONE", "IN PROGRESS", "TODO")
_SECTIONS = {
    "goal": "Overall goal",
    "knowledge": "Key knowledge",
    "files": "File-system state",
    "recent_actions": "Recent actions",
    "plan": "Current plan",
}
_HEADING_WORDS = (
    ("goal", ("goal", "目标")),
    ("knowledge", ("knowledge", "知识")),
    ("files", ("file", "文件")),
    ("recent_actions", ("action", "操作")),
    ("plan", ("plan", "计划")),
)
_PLAN_RE = re.compile(r"^\s*(?:[-*]|\d+[.)])?\s*\[(DONE|IN PROGRESS|TODO)\]\s*(.+)$", re.I)
_BULLET_RE = re.compile(r"^\s*(?:[-*]|\d+[.)])\s+(.*)$")
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class PlanItem:
    status: str  # one of PLAN_STATES
    text: str


@dataclass(frozen=True)
class StateSnapshot:
    """What a resumed run needs to carry on."""

    goal: str = ""
    knowledge: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    recent_actions: tuple[str, ...] = ()
    plan: tuple[PlanItem, ...] = ()

    def render(self) -> str:
        out = ["# State snapshot", "", f"## {_SECTIONS['goal']}", self.goal or "(unknown)"]
        for name in ("knowledge", "files", "recent_actions"):
            out += ["", f"## {_SECTIONS[name]}"]
            out += [f"- {item}" for item in getattr(self, name)] or ["- (none)"]
        out += ["", f"## {_SECTIONS['plan']}"]
        out += [f"{i}. [{p.status}] {p.text}" for i, p in enumerate(self.plan, 1)] or ["(none)"]
        return "\n".join(out) + "\n"

    @classmethod
    def parse(cls, text: str) -> StateSnapshot:
        """Read a snapshot from Markdown (a model's answer or a saved file)."""
        buckets: dict[str, list[str]] = {name: [] for name in _SECTIONS}
        current: str | None = None
        for raw in text.replace("\r\n", "\n").split("\n"):
            line = raw.strip()
            if line.startswith("#"):
                title = line.lstrip("#").strip().lower()
                current = next(
                    (n for n, words in _HEADING_WORDS if any(w in title for w in words)), None
                )
                continue
            if current is not None and line and line not in ("- (none)", "(none)", "(unknown)"):
                buckets[current].append(line)
        plan = []
        for line in buckets["plan"]:
            match = _PLAN_RE.match(line)
            if match:
                plan.append(PlanItem(match.group(1).upper(), match.group(2).strip()))
            elif (bullet := _BULLET_RE.match(line)) is not None:
                plan.append(PlanItem("TODO", bullet.group(1).strip()))
        return cls(
            goal=" ".join(_unbullet(x) for x in buckets["goal"]).strip(),
            knowledge=tuple(_unbullet(x) for x in buckets["knowledge"]),
            files=tuple(_unbullet(x) for x in buckets["files"]),
            recent_actions=tuple(_unbullet(x) for x in buckets["recent_actions"]),
            plan=tuple(plan),
        )

    def keeping(self, previous: StateSnapshot | None) -> StateSnapshot:
        """This snapshot, with the previous goal and plan where this one lost them."""
        if previous is None:
            return self
        return replace(self, goal=self.goal or previous.goal, plan=self.plan or previous.plan)

    def save(self, path: Path) -> None:
        atomic_write(path, self.render())

    @classmethod
    def load(cls, path: Path) -> StateSnapshot:
        return cls.parse(path.read_text(encoding="utf-8"))

    def as_messages(self) -> list[Message]:
        """Messages that seed a resumed run."""
        return [
            {
                "role": "system",
                "content": "Work so far, compressed into a state snapshot. Continue from it.\n\n"
                + self.render(),
            }
        ]


def _unbullet(line: str) -> str:
    match = _BULLET_RE.match(line)
    return match.group(1).strip() if match else line.strip()


def estimate_tokens(text: str) -> int:
    """A rough token count: about 4 characters each, one per CJK character."""
    cjk = len(_CJK_RE.findall(text))
    return cjk + (len(text) - cjk) // 4 + 1


def history_tokens(messages: Sequence[Message]) -> int:
    return sum(estimate_tokens(m.get("content") or "") + 4 for m in messages)


@dataclass
class HistoryCompressor:
    """Turns old history into a snapshot when the history outgrows its budget."""

    budget_tokens: int
    summarize: Summarize | None = None
    # What the model is asked to write; the agent supplies it (memory holds no prompts).
    instructions: str = ""
    keep_recent: int = 4  # messages kept verbatim after compression
    failures: list[str] = field(default_factory=list)

    def over_budget(self, messages: Sequence[Message], snapshot: StateSnapshot | None) -> bool:
        extra = estimate_tokens(snapshot.render()) if snapshot is not None else 0
        return history_tokens(messages) + extra > self.budget_tokens

    def compress(
        self, messages: Sequence[Message], snapshot: StateSnapshot | None = None
    ) -> tuple[StateSnapshot | None, list[Message]]:
        """(snapshot, remaining messages); unchanged while within budget."""
        if not self.over_budget(messages, snapshot) or len(messages) <= self.keep_recent:
            return snapshot, list(messages)
        cut = len(messages) - self.keep_recent
        old, recent = list(messages[:cut]), list(messages[cut:])
        new = None
        if self.summarize is not None:
            try:
                new = StateSnapshot.parse(self.summarize(self._prompt(old, snapshot)))
            except Exception as exc:  # the run goes on with a plain snapshot
                self.failures.append(f"{type(exc).__name__}: {exc}")
        if new is None or not (new.goal or new.plan or new.knowledge):
            new = _plain_snapshot(old, snapshot)
        return new.keeping(snapshot), recent

    def _prompt(self, old: Sequence[Message], snapshot: StateSnapshot | None) -> str:
        parts = [self.instructions] if self.instructions else []
        if snapshot is not None:
            parts.append("Previous snapshot:\n" + snapshot.render())
        transcript = "\n\n".join(f"{m.get('role', '?')}: {m.get('content', '')}" for m in old)
        parts.append("Conversation:\n" + transcript)
        return "\n\n".join(parts)


def _plain_snapshot(old: Sequence[Message], previous: StateSnapshot | None) -> StateSnapshot:
    """A snapshot built without a model: the first request as goal, the last turns as actions."""
    first_user = next((m.get("content", "") for m in old if m.get("role") == "user"), "")
    actions = tuple(
        f"{m.get('role')}: {_shorten(m.get('content', ''))}" for m in old[-6:] if m.get("content")
    )
    base = previous or StateSnapshot()
    return replace(
        base,
        goal=base.goal or _shorten(first_user, 300),
        recent_actions=(base.recent_actions + actions)[-8:],
    )


def _shorten(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
