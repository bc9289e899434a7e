"""Turns a repository snapshot into a plan: prompt, streamed steps with verdicts, saved Markdown."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config
from termwise.agent.base.prompts import load_prompt
from termwise.agent.base.types import Verdict
from termwise.agent.deploy.plan import Plan, Step, save_plan
from termwise.agent.deploy.sources import RepoSnapshot
from termwise.agent.deploy.step_parser import StepParser, StepProblem
from termwise.agent.llm.base import LlmClient, LlmError, Message
from termwise.agent.llm.schemas import DEPLOY
from termwise.agent.privacy.redact import redact
from termwise.agent.suggest.context import data_note, estimate_tokens, fence

log = logging.getLogger(__name__)

PROMPT_BUDGET_TOKENS = 12_000  # README and manifests are cut to fit; the answer needs room too
MEMORY_SNIPPETS = 4
MemoryLookup = Callable[[str, int], list[str]]
Classify = Callable[[str, str], Verdict]


@dataclass(frozen=True)
class StepReady:
    """A step arrived (with a verdict per command); `plan` already holds it."""

    step: Step


@dataclass(frozen=True)
class PlanProblem:
    """Something went wrong on the way; what was planned so far is kept."""

    message: str


@dataclass(frozen=True)
class PlanFinished:
    """The answer ended; `path` is where the plan was saved (None when it has no steps)."""

    plan: Plan
    path: Path | None
    cancelled: bool = False


PlanEvent = StepReady | PlanProblem | PlanFinished


def default_classify(command: str, shell: str) -> Verdict:
    """The rules verdict; `confirm` when the safety check itself fails."""
    try:
        from termwise.agent.safety import classify

        return classify(command, shell)
    except Exception:  # one odd command must not cost the whole plan
        log.exception("safety classify failed for a plan command")
        return Verdict("confirm", ("safety check failed",))


@dataclass
class PlanPrompt:
    """The messages for the `deploy` task and the secret kinds redaction replaced."""

    messages: list[Message]
    redacted: list[str] = field(default_factory=list)


def _section(title: str, body: str) -> str:
    return f"## {title}\n{body.strip()}\n"


def _cut_to(text: str, tokens: int) -> str:
    if estimate_tokens(text) <= tokens:
        return text
    keep = max(0, tokens * 4)
    return text[:keep] + f"\n… [cut to fit the prompt: {len(text) - keep} more characters]"


def build_plan_prompt(
    snap: RepoSnapshot,
    shell: str,
    config: Config,
    *,
    env_text: str = "",
    memories: list[str] | None = None,
    budget: int = PROMPT_BUDGET_TOKENS,
    workdir: str | None = None,
) -> PlanPrompt:
    """System and user messages for planning `snap` in `shell`, redacted and within budget.

    `workdir`: the folder the commands will run in (a local project's own folder)."""
    system = load_prompt("deploy", shell=shell)
    head = [f"# Project: {snap.name}", f"Source: {snap.origin} ({snap.kind})", ""]
    if snap.from_knowledge:
        head.append(
            "Nothing of the repository was read: plan from what you know of this project, "
            "start with getting its code, and say in the notes what you are unsure of."
        )
    parts = ["\n".join(head), data_note("Files read from the repository")]
    parts.append(_section("Target shell", shell))
    if workdir:
        parts.append(
            _section(
                "Working folder",
                f"Every command runs in {workdir} (the project's folder); "
                "write paths relative to it and do not clone or cd elsewhere first.",
            )
        )
    if env_text:
        parts.append(_section("This machine", env_text))
    if snap.notes:
        parts.append(_section("Notes", "\n".join(f"- {n}" for n in snap.notes)))
    if snap.listing:
        parts.append(_section("Files at the repository root", ", ".join(snap.listing)))
    if memories:
        parts.append(_section("What we know about the user", "\n".join(f"- {m}" for m in memories)))
    fixed = "\n".join(parts)
    left = budget - estimate_tokens(system) - estimate_tokens(fixed)
    # Manifests are short and precise; the README takes what is left.
    manifests = []
    for name, text in snap.files.items():
        share = max(200, left // (2 * max(1, len(snap.files))))
        body = _cut_to(text, share)
        left -= estimate_tokens(body) + 10
        manifests.append(_section(f"File {name}", fence(body.rstrip())))
    if snap.readme:
        readme = _cut_to(snap.readme, max(200, left))
        manifests.insert(0, _section(f"README ({snap.readme_name or 'README'})", fence(readme)))
    user = "\n".join([fixed, *manifests])
    found: list[str] = []
    if config.privacy.redact:
        result = redact(user, config.privacy.patterns)
        user, found = result.text, list(result.found)
    return PlanPrompt(
        [{"role": "system", "content": system}, {"role": "user", "content": user}], found
    )


class Planner:
    """Streams a plan for a repository from the `deploy` task model."""

    def __init__(
        self,
        client: LlmClient,
        config: Config,
        *,
        memory: MemoryLookup | None = None,
        env_info: Mapping[str, Any] | None = None,
        classify: Classify = default_classify,
        deploy_dir: Path | None = None,
    ) -> None:
        self.client = client
        self.config = config
        self.memory = memory
        self.env_info = env_info  # None: probe the machine (cached)
        self.classify = classify
        self.deploy_dir = deploy_dir

    def prompt(self, snap: RepoSnapshot, shell: str, workdir: str | None = None) -> PlanPrompt:
        from termwise.agent.suggest.probe import describe_environment, probe_environment

        info = self.env_info if self.env_info is not None else probe_environment()
        env_text = describe_environment(info)
        if info.get("shell") and info.get("shell") != shell:
            env_text += f"\nThe user's login shell is {info['shell']}; the plan runs in {shell}."
        memories: list[str] = []
        if self.memory is not None:
            query = " ".join([snap.name, "install deploy", *snap.files])
            try:
                memories = list(self.memory(query, MEMORY_SNIPPETS))
            except Exception as exc:  # memory is a bonus
                log.warning("memory lookup failed: %s", exc)
        return build_plan_prompt(
            snap, shell, self.config, env_text=env_text, memories=memories, workdir=workdir
        )

    def run(
        self,
        snap: RepoSnapshot,
        shell: str,
        cancel: CancelToken | None = None,
        workdir: str | None = None,
    ) -> Iterator[PlanEvent]:
        """Yield each step as its line completes, problems on the way, then PlanFinished.

        With `workdir` the model is told the commands run there, and the plan keeps it."""
        cancel = cancel or CancelToken()
        plan = Plan(
            target=snap.origin,
            name=snap.name,
            shell=shell,
            from_knowledge=snap.from_knowledge,
            notes=list(snap.notes),
            workdir=workdir,
        )
        parser = StepParser()
        prompt = self.prompt(snap, shell, workdir)
        if prompt.redacted:
            plan.notes.append(
                "secrets were replaced before asking the model: " + ", ".join(prompt.redacted)
            )
        broke = False
        # The schema lets grammar-constrained local servers keep a weak model to the plan's
        # shape; the parser takes the `{"steps": [...]}` it gives step by step.
        stream = self.client.stream_chat(
            prompt.messages, task="deploy", cancel=cancel, schema=DEPLOY
        )
        try:
            for delta in stream:
                yield from self._items(parser.feed(delta.text), plan, shell)
                if cancel.cancelled:
                    break
        except LlmError as exc:
            broke = True
            yield PlanProblem(str(exc))
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # ends the HTTP stream when the caller stops early
        if not cancel.cancelled:
            items = parser.finish()
            if broke:  # "no steps" was already said by the error
                items = [i for i in items if not isinstance(i, StepProblem) or plan.steps]
            yield from self._items(items, plan, shell)
        if broke and plan.steps:
            plan.notes.append("the model's answer broke off; the plan may be incomplete")
        path = None
        if plan.steps and self.deploy_dir is not None:
            path = save_plan(plan, self.deploy_dir)
        yield PlanFinished(plan, path, cancelled=cancel.cancelled)

    def _items(
        self, items: list[Step | StepProblem], plan: Plan, shell: str
    ) -> Iterator[PlanEvent]:
        for item in items:
            if isinstance(item, StepProblem):
                yield PlanProblem(item.message)
                continue
            item.verdicts = [self.classify(c, shell) for c in item.commands]
            plan.steps.append(item)
            yield StepReady(item)
