"""One approval flow for every screen: what is offered for a risky command, and what each answer does.

The overlay's dialog, the deploy window, the `??` picker, `termwise deploy --run` and any
other prompt build an `ApprovalRequest` with `approval_request(command, shell, verdict)`,
show its heading, reasons and options, and hand the user's answer to `settle`. The rules
live here, so no screen can drift:

- The default is always Deny, and Deny denies this time only. Enter, Esc, a closed window,
  end of input and any unknown answer are that one-time deny.
- A permanent deny is its own explicit option ("Always deny").
- A `dangerous` command is shown as dangerous (never "This command is confirm.") and offers
  only Run once, Deny and Always deny: no "always allow", no "this session", no wildcard.
- A `confirm` command offers Run once, Allow this session, Always allow, Always allow a
  wildcard pattern (e.g. `git push *`), Deny and Always deny.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol

from termwise.agent.base.types import Verdict

Answer = Literal["once", "session", "always", "pattern", "deny", "never"]
DEFAULT_ANSWER: Answer = "deny"

HEADING_DANGEROUS = "This command is dangerous"
HEADING_CONFIRM = "This command needs your confirmation"

# What a pattern's leading words may look like: a program and a subcommand, no shell syntax.
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*\Z")


class Recorder(Protocol):
    """Where answers are remembered (an ApprovalStore)."""

    def record(self, command: str, shell: str, choice: str, pattern: str | None = None) -> None: ...


@dataclass(frozen=True)
class ApprovalOption:
    """One answer offered: its key, its label, the letter a terminal prompt takes for it."""

    answer: Answer
    label: str
    letter: str
    runs: bool


@dataclass(frozen=True)
class ApprovalRequest:
    """Everything a screen shows when it asks; `options` in display order, Deny among them."""

    command: str
    shell: str
    verdict: Verdict
    heading: str
    dangerous: bool
    reasons: tuple[str, ...]
    options: tuple[ApprovalOption, ...]
    pattern: str | None  # the wildcard offered ("git push *"), None when none is

    @property
    def default(self) -> Answer:
        return DEFAULT_ANSWER

    def option(self, answer: str) -> ApprovalOption | None:
        return next((o for o in self.options if o.answer == answer), None)


@dataclass(frozen=True)
class Settled:
    """What an answer did: whether the command may run now, and what was remembered."""

    answer: Answer
    runs: bool
    remembered: str  # "" (nothing), "session", "always", "always:<pattern>", "deny"


def suggested_pattern(command: str) -> str | None:
    """A wildcard for "commands like this one": the program and its subcommand, then `*`.

    `git push origin main` → `git push *`; None for one-word commands or shell syntax in the
    first words (a pattern must never look broader than the user can read at a glance).
    """
    words = command.split()
    if len(words) < 3:
        return None
    head = words[:2]
    if not all(_WORD.match(w) for w in head):
        return None
    return " ".join(head) + " *"


def approval_request(command: str, shell: str, verdict: Verdict) -> ApprovalRequest:
    """What to ask before running `command` (rated `verdict`) in `shell`."""
    dangerous = verdict.level == "dangerous"
    reasons = tuple(verdict.reasons) or ((verdict.explanation,) if verdict.explanation else ())
    once = ApprovalOption("once", "Run once", "y", True)
    deny = ApprovalOption("deny", "Deny", "n", False)
    never = ApprovalOption("never", "Always deny", "d", False)
    if dangerous:
        return ApprovalRequest(
            command, shell, verdict, HEADING_DANGEROUS, True, reasons, (once, deny, never), None
        )
    pattern = suggested_pattern(command)
    options = [
        once,
        ApprovalOption("session", "Allow this session", "s", True),
        ApprovalOption("always", "Always allow", "a", True),
    ]
    if pattern is not None:
        options.append(ApprovalOption("pattern", f"Always allow {pattern}", "p", True))
    options += [deny, never]
    return ApprovalRequest(
        command, shell, verdict, HEADING_CONFIRM, False, reasons, tuple(options), pattern
    )


def answer_from(request: ApprovalRequest, raw: object) -> Answer:
    """The answer a screen received, made safe: anything not offered (None, "cancel", Esc,
    EOF, a typo, "always" for a dangerous command) is the one-time deny."""
    if isinstance(raw, str):
        option = request.option(raw)
        if option is not None:
            return option.answer
    return DEFAULT_ANSWER


def answer_from_text(request: ApprovalRequest, text: str | None) -> Answer | None:
    """A terminal reply: a letter or a word of an offered option; "" or None (EOF) is Deny.

    None means "not understood": ask again.
    """
    if text is None:
        return DEFAULT_ANSWER
    reply = text.strip().lower()
    if not reply or "\x1b" in reply:  # Enter alone, or Esc (then Enter) on a terminal
        return DEFAULT_ANSWER
    for option in request.options:
        if reply in (option.letter, option.answer, option.label.lower()):
            return option.answer
    if reply in ("yes", "run", "o"):
        return "once"
    if reply in ("no", "q", "quit", "skip", "cancel"):
        return DEFAULT_ANSWER
    return None


def settle(store: Recorder | None, request: ApprovalRequest, raw: object) -> Settled:
    """Apply an answer: remember what it says to remember (when there is a store), and say
    whether the command runs."""
    answer = answer_from(request, raw)
    command, shell = request.command, request.shell
    remembered = ""
    if store is None:
        pass
    elif answer == "session":
        store.record(command, shell, "session")
        remembered = "session"
    elif answer == "always":
        store.record(command, shell, "always")
        remembered = "always"
    elif answer == "pattern" and request.pattern is not None:
        store.record(command, shell, "always", pattern=request.pattern)
        remembered = f"always:{request.pattern}"
    elif answer == "never":
        store.record(command, shell, "deny")
        remembered = "deny"
    option = request.option(answer)
    return Settled(answer, bool(option and option.runs), remembered)


def terminal_prompt(request: ApprovalRequest) -> str:
    """The one-line question for a terminal: every option with its letter, Deny the default."""
    parts = []
    for option in request.options:
        label = option.label
        if option.answer == DEFAULT_ANSWER:
            label += " (Enter)"
        parts.append(f"[{option.letter}] {label}")
    return "Run it? " + " · ".join(parts) + ": "
