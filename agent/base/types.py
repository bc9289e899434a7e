"""Plain types shared by the rules tier, safety, the suggestion turn and its renderers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from termwise.agent.base.verdict import Level as Level
from termwise.agent.base.verdict import Verdict as Verdict

Source = Literal["rules", "model"]
MAX_SUGGESTIONS = 5  # commands one turn shows at most (rules and model together)
# The environment variables the rules read: a process running them for another (the host,
# for `termwise fix`) is sent these and reads them instead of its own.
RULE_VARIABLES = ("PATH", "TERMWISE_PKG_MANAGER")


@dataclass
class Suggestion:
    """One proposed command."""

    command: str
    explanation: str = ""
    caveats: str = ""
    source: Source = "model"
    rule: str = ""  # name of the rule that produced it (rules tier only)
    verdict: Verdict | None = None


@dataclass(frozen=True)
class Block:
    """What the agent knows of one finished command (a session's command block, as text)."""

    command: str
    output: str
    exit_code: int | None = None
    cwd: str | None = None
    started: float | None = None
    ended: float | None = None


@dataclass
class SessionContext:
    """What a turn is about: the session's recent blocks and its surroundings."""

    blocks: list[Block] = field(default_factory=list)
    shell: str = "bash"
    cwd: str | None = None
    os_name: str = ""
    session_id: str | None = None
    screen_text: str = ""  # fallback when the shell has no integration marks
    clipboard_text: str = ""  # used when no session is active
    path: str | None = None  # the shell's own PATH, when its integration reported it


@dataclass(frozen=True)
class RunOutcome:
    """What became of "run this command" in a session: `ran`, or why not (`reason`)."""

    ran: bool
    reason: str = ""
