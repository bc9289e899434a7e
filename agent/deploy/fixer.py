"""Repair requests during a plan run: the failure in context to the `deploy` model, one command back."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config
from termwise.agent.base.prompts import load_prompt
from termwise.agent.deploy.plan import Step
from termwise.agent.deploy.runner import (
    CommandFinished,
    CommandResult,
    CommandSent,
    RepairProposed,
    RunEvent,
    RunStatus,
    StepEnded,
)
from termwise.agent.llm.base import LlmClient, LlmError, Message
from termwise.agent.privacy.redact import redact
from termwise.agent.suggest.context import summarize_output
from termwise.agent.suggest.parser import ParsedSuggestion, SuggestionParser
from termwise.memory.snapshot import HistoryCompressor, StateSnapshot

log = logging.getLogger(__name__)

FIX_OUTPUT_LINES = 40  # of the failed command's output
HISTORY_BUDGET_TOKENS = 2_000  # beyond this the run so far is compressed into a snapshot
HISTORY_ENTRY_LINES = 6  # output lines kept per command in the history


@dataclass
class StepFixer:
    """The runner's `fixer`: asks for a corrected command; `observe` keeps the run's history.

    History is a list of short messages (what ran, how it ended). When it outgrows
    `budget_tokens`, the oldest part becomes a state snapshot (the memory package's),
    written by the model when it can, plainly otherwise.
    """

    client: LlmClient
    config: Config
    shell: str
    goal: str = ""
    budget_tokens: int = HISTORY_BUDGET_TOKENS
    cancel: CancelToken = field(default_factory=CancelToken)
    history: list[Message] = field(default_factory=list)
    snapshot: StateSnapshot | None = None
    problems: list[str] = field(default_factory=list)
    _pending: str = field(default="", init=False, repr=False)

    def __post_init__(self) -> None:
        self._compressor = HistoryCompressor(
            self.budget_tokens, summarize=self._summarize, instructions=load_prompt("snapshot")
        )

    # -- history ------------------------------------------------------------------------
    def observe(self, event: RunEvent) -> None:
        """Feed the runner's events (chain it into `on_event`)."""
        if isinstance(event, CommandSent):
            self._pending = f"step {event.step}: ran `{event.command}`"
        elif isinstance(event, CommandFinished) and self._pending:
            tail = summarize_output(event.output_tail, HISTORY_ENTRY_LINES)
            text = f"{self._pending} → exit {event.exit_code}"
            if tail and event.exit_code != 0:
                text += f"\n{tail}"
            self._add("user", text)
            self._pending = ""
        elif isinstance(event, RepairProposed):
            self._add("assistant", f"step {event.step}: repair `{event.command}`")
        elif isinstance(event, StepEnded):
            detail = f"{event.status}: {event.detail}" if event.detail else event.status
            self._add("user", f"step {event.step}: {detail}")
        elif isinstance(event, RunStatus) and event.step is not None:
            self._add("user", f"step {event.step}: {event.text}")

    def _add(self, role: str, content: str) -> None:
        self.history.append({"role": role, "content": self._redact(content)})
        self.snapshot, self.history = self._compressor.compress(self.history, self.snapshot)

    # -- the fixer callable ------------------------------------------------------------------
    def __call__(self, step: Step, result: CommandResult) -> str | None:
        system = load_prompt("deploy_fix", shell=self.shell)
        messages: list[Message] = [{"role": "system", "content": system}]
        if self.snapshot is not None:
            messages.extend(self.snapshot.as_messages())
        messages.extend(self.history)
        messages.append({"role": "user", "content": self._redact(self._request(step, result))})
        parser = SuggestionParser(self.shell, max_suggestions=1)
        stream = self.client.stream_chat(messages, task="deploy", cancel=self.cancel)
        try:
            for delta in stream:
                for item in parser.feed(delta.text):
                    if isinstance(item, ParsedSuggestion):
                        return item.suggestion.command  # the first one is the one tried
            for item in parser.finish():
                if isinstance(item, ParsedSuggestion):
                    return item.suggestion.command
        except LlmError as exc:
            self.problems.append(str(exc))
            log.info("no repair: %s", exc)
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # ends the HTTP stream once the first suggestion is in
        return None

    def _request(self, step: Step, result: CommandResult) -> str:
        lines = [f"Goal: {self.goal}"] if self.goal else []
        lines += [f"Step {step.number}: {step.title}"]
        if step.why:
            lines.append(f"Why: {step.why}")
        if step.commands:
            lines.append("Step commands: " + " ; ".join(f"`{c}`" for c in step.commands))
        if step.check:
            lines.append(f"Step check: `{step.check}`")
        lines += [
            f"Failed command: `{result.command}`",
            f"Exit code: {result.exit_code}",
            "Output (tail):",
            "```",
            summarize_output(result.output, FIX_OUTPUT_LINES) or "(no output)",
            "```",
        ]
        return "\n".join(lines)

    def _redact(self, text: str) -> str:
        if not self.config.privacy.redact:
            return text
        return redact(text, self.config.privacy.patterns).text

    def _summarize(self, prompt: str) -> str:
        messages: list[Message] = [{"role": "user", "content": self._redact(prompt)}]
        return self._redact(self.client.complete(messages, task="deploy"))


def chain(*callbacks: Callable[[RunEvent], None] | None) -> Callable[[RunEvent], None]:
    """One `on_event` callback calling several (None entries are skipped)."""
    live = [c for c in callbacks if c is not None]

    def call(event: RunEvent) -> None:
        for c in live:
            c(event)

    return call
