"""A plan runner wired from the user's settings: the one recipe the CLI, the prompt word and the window share."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from termwise.agent.base.config_schema import Config
from termwise.agent.deploy.fixer import StepFixer, chain
from termwise.agent.deploy.plan import Plan, log_path_for
from termwise.agent.deploy.runner import Ask, PlanRunner, RunEvent, SessionPort
from termwise.agent.llm.base import LlmClient


def configured_runner(
    plan: Plan,
    port: SessionPort,
    *,
    config: Config,
    approvals_file: Path,
    client: LlmClient | None,
    ask: Ask,
    plan_file: Path | None,
    on_event: Callable[[RunEvent], None] | None = None,
    ask_safe: bool = False,
) -> PlanRunner:
    """Rules verdicts, stored approvals, model repairs (when a model is set), the config's
    limits, a run log beside the plan, and secrets redacted before they reach that log."""
    from termwise.agent.deploy.planner import default_classify
    from termwise.agent.privacy.redact import redact
    from termwise.agent.safety.approvals import ApprovalStore

    fixer = None
    if client is not None:
        fixer = StepFixer(client, config, plan.shell, goal=f"deploy {plan.name} ({plan.target})")
    return PlanRunner(
        plan,
        port,
        ask=ask,
        classify=default_classify,
        approvals=ApprovalStore(approvals_file),
        fixer=fixer,
        max_repairs=config.deploy.max_repairs,
        step_timeout=config.deploy.step_timeout,
        log_file=log_path_for(plan_file) if plan_file is not None else None,
        on_event=chain(on_event, fixer.observe if fixer is not None else None),
        ask_safe=ask_safe,
        scrub=lambda text: redact(text, config.privacy.patterns).text,
        cancel=fixer.cancel if fixer is not None else None,
    )
