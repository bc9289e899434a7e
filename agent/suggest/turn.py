"""One suggestion turn: instant rules, streamed model suggestions, verdicts, as typed events."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.events import (
    Error,
    Event,
    Finished,
    Question,
    Status,
    SuggestionReady,
    VerdictReady,
)
from termwise.agent.base.types import MAX_SUGGESTIONS, SessionContext, Suggestion, Verdict

if TYPE_CHECKING:
    from termwise.agent.base.config_schema import Config
    from termwise.agent.llm.base import LlmClient

# The rules, the safety engine, redaction, prompts and the model's parser are imported
# where they are used: `termwise fix` whose rules the host ran needs none of them.
log = logging.getLogger(__name__)

NO_MODEL = "no model configured — a model adds more; Settings…"
MAX_RULE_SUGGESTIONS_WITH_MODEL = 3
MAX_SAFETY_REVIEWS = 3
_SEVERITY = {"safe": 0, "confirm": 1, "dangerous": 2}
_RISK_LEVEL = {"low": "safe", "medium": "confirm", "high": "dangerous"}
MemoryLookup = Callable[[str, int], list[str]]


def rules_suggestions(ctx: SessionContext) -> list[Suggestion]:
    """The instant tier for the block a fix is about; empty for a success or an unknown block."""
    from termwise.agent.rules import suggest_fixes
    from termwise.agent.rules.env import shell_path
    from termwise.agent.suggest.context import target_block

    block = target_block(ctx)
    # An unknown exit code (cmd.exe reports none, no-marks fallback) still gets the rules.
    if block is None or block.exit_code == 0:
        return []
    try:
        with shell_path(ctx.path):
            return list(
                suggest_fixes(
                    block.command,
                    block.output,
                    block.exit_code,
                    ctx.shell,
                    cwd=block.cwd or ctx.cwd,
                )
            )
    except Exception:  # a broken rule must not cost the user the model's answer
        log.exception("rules tier failed")
        return []


def verdict_for(command: str, shell: str) -> Verdict:
    """The rules verdict; `confirm` when a rule fails on this command (logged)."""
    from termwise.agent.safety import classify

    try:
        return classify(command, shell)
    except Exception:
        log.exception("safety classify failed for a suggestion")
        return Verdict("confirm", ("safety check failed",))


def merge_review(verdict: Verdict, answer: str) -> Verdict:
    """Fold a safety-model answer into a rules verdict: it may raise the level, never lower it."""
    review = _first_json_object(answer)
    if review is None:
        return verdict
    risk = str(review.get("risk", "")).strip().lower()
    explanation = str(review.get("explanation", "") or "").strip()
    level = verdict.level
    model_level = _RISK_LEVEL.get(risk)
    reasons = verdict.reasons
    if model_level is not None and _SEVERITY[model_level] > _SEVERITY[level]:
        level = model_level  # type: ignore[assignment]
        reasons = (*reasons, f"model review: {risk} risk")
    return Verdict(level, reasons, explanation or verdict.explanation)


def _first_json_object(text: str) -> dict[str, Any] | None:
    for m in re.finditer(r"\{", text):
        try:
            value, _ = json.JSONDecoder().raw_decode(text, m.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


class _Offers:
    """Numbers the suggestions of one turn, drops repeats and gives each its rules verdict."""

    def __init__(self, shell: str, shown: list[Suggestion]) -> None:
        self.shell = shell
        self.shown = shown
        self._seen: set[str] = set()

    def __call__(self, s: Suggestion) -> Iterator[Event]:
        key = " ".join(s.command.split())
        if key in self._seen or len(self.shown) >= MAX_SUGGESTIONS:
            return
        self._seen.add(key)
        if s.verdict is None or s.source != "rules":
            s.verdict = verdict_for(s.command, self.shell)
        self.shown.append(s)
        yield SuggestionReady(len(self.shown) - 1, s)
        yield VerdictReady(len(self.shown) - 1, s.verdict)


class SuggestTurn:
    """Runs one request against a session context; renderers only see the events."""

    def __init__(
        self,
        client: LlmClient | None,
        config: Config,
        memory: MemoryLookup | None = None,
        *,
        env_info: Mapping[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.config = config
        self.memory = memory
        self.env_info = env_info  # None: probe the machine (cached)
        self._given: tuple[SessionContext, list[Suggestion]] | None = None

    def use_rules(self, context: SessionContext, found: list[Suggestion]) -> None:
        """Take the rules tier for `context` as already found and judged (by the host),
        instead of running the rules here; any other context still runs them."""
        self._given = (context, found)

    def run(
        self, question: str, context: SessionContext, cancel: CancelToken | None = None
    ) -> Iterator[Event]:
        """Yield events; an empty question means "fix the last failed command"."""
        cancel = cancel or CancelToken()
        shell = context.shell or "bash"
        shown: list[Suggestion] = []
        offer = _Offers(shell, shown)
        yield from self._instant(question, context, offer)
        if self.client is None:
            yield Status(NO_MODEL)
            yield Finished(cancelled=cancel.cancelled)
            return
        if cancel.cancelled:
            yield Finished(cancelled=True)
            return
        from termwise.agent.llm.base import REPETITION, LlmError
        from termwise.agent.llm.schemas import SUGGEST
        from termwise.agent.suggest.context import build_prompt
        from termwise.agent.suggest.parser import ParsedQuestion, SuggestionParser

        yield Status("asking the model…")
        asked = False
        try:
            prompt = build_prompt(
                context, self.config, question, memory=self.memory, env_info=self.env_info
            )
            parser = SuggestionParser(shell)
            stream = self.client.stream_chat(
                prompt.messages, task="suggest", cancel=cancel, schema=SUGGEST
            )
            try:
                for delta in stream:
                    for item in parser.feed(delta.text):
                        yield from self._item(item, offer, shell)
                        asked = asked or isinstance(item, ParsedQuestion)
                    if delta.finish_reason == REPETITION:
                        yield Status("the model began repeating itself; stopped reading")
                    if cancel.cancelled or parser.full or len(shown) >= MAX_SUGGESTIONS:
                        break  # five are in: the rest of the answer is not needed
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()  # hangs up at once instead of when the generator is collected
            if not cancel.cancelled:
                for item in parser.finish():
                    yield from self._item(item, offer, shell)
                    asked = asked or isinstance(item, ParsedQuestion)
        except LlmError as exc:
            yield Error(str(exc), retryable=exc.retryable, reason=exc.reason.value)
        except Exception as exc:  # the turn must end with Finished whatever broke
            log.exception("suggestion turn failed")
            yield Error(f"the suggestion turn failed: {exc}", retryable=True)
        if cancel.cancelled:
            yield Finished(cancelled=True)
            return
        yield from self._review(shown, shell, cancel)
        if not shown and not asked:
            yield Status("no suggestions for this one")
        yield Finished(cancelled=cancel.cancelled)

    def instant(self, question: str, context: SessionContext) -> list[Event]:
        """The events `run` starts with that need no model (milliseconds, offline).

        A screen may render these in its first frame, before `run` streams the rest; `run`
        yields the same suggestions at the same indexes again.
        """
        return list(self._instant(question, context, _Offers(context.shell or "bash", [])))

    def _instant(self, question: str, context: SessionContext, offer: _Offers) -> Iterator[Event]:
        if question.strip():
            return
        limit = MAX_RULE_SUGGESTIONS_WITH_MODEL if self.client else MAX_SUGGESTIONS
        if self._given is not None and self._given[0] is context:
            found = [replace(s) for s in self._given[1]]  # offers are changed as they go
        else:
            found = rules_suggestions(context)
        for s in found[:limit]:
            yield from offer(s)

    def _item(
        self, item: object, offer: Callable[[Suggestion], Iterator[Event]], shell: str
    ) -> Iterator[Event]:
        from termwise.agent.suggest.parser import (
            Dropped,
            ParsedQuestion,
            ParsedSuggestion,
            Problem,
        )

        if isinstance(item, ParsedSuggestion):
            yield from offer(item.suggestion)
        elif isinstance(item, ParsedQuestion):
            yield Question(item.text)
        elif isinstance(item, Dropped):
            command = " ".join(item.command.split())
            command = command if len(command) <= 80 else command[:79] + "…"
            yield Status(
                f"dropped a suggestion that is not a {shell} command ({item.reason}): {command}"
            )
        elif isinstance(item, Problem):
            yield Error(item.message, retryable=True, reason="bad_answer")

    def _review(self, shown: list[Suggestion], shell: str, cancel: CancelToken) -> Iterator[Event]:
        """Second step: the safety model explains flagged commands (and may raise, never lower)."""
        from termwise.agent.base.prompts import load_prompt
        from termwise.agent.llm.base import LlmError
        from termwise.agent.llm.schemas import SAFETY
        from termwise.agent.privacy.redact import redact

        assert self.client is not None
        flagged = [(i, s) for i, s in enumerate(shown) if s.verdict and s.verdict.level != "safe"][
            :MAX_SAFETY_REVIEWS
        ]
        for index, s in flagged:
            if cancel.cancelled:
                return
            verdict = s.verdict or Verdict("confirm")
            system = load_prompt(
                "safety",
                shell=shell,
                level=verdict.level,
                reasons="; ".join(verdict.reasons) or "no reason given",
            )
            command = s.command
            if self.config.privacy.redact:
                command = redact(command, self.config.privacy.patterns).text
            messages = [
                {"role": "system", "content": system},
                {"role": "user", "content": command},
            ]
            try:
                # Streamed so that a cancel (Esc in the overlay) also ends a slow review.
                answer = "".join(
                    d.text
                    for d in self.client.stream_chat(
                        messages, task="safety", cancel=cancel, schema=SAFETY
                    )
                )
            except LlmError as exc:
                log.info("safety review skipped: %s", exc)
                return  # the rules verdict stands; one failure is enough to stop asking
            if cancel.cancelled:
                return
            merged = merge_review(verdict, answer)
            if merged != verdict:
                s.verdict = merged
                yield VerdictReady(index, merged)
