"""Plan steps from model objects, their Markdown form, and loop detection."""

from __future__ import annotations

from pathlib import Path

from termwise.agent.base.types import Verdict
from termwise.agent.deploy.loop import LoopDetector
from termwise.agent.deploy.plan import (
    Plan,
    Step,
    log_path_for,
    plan_markdown,
    save_plan,
    step_from_json,
)


def test_step_from_contract_object():
    step = step_from_json(
        {
            "step": 2,
            "title": "Install",
            "why": "deps",
            "commands": ["npm ci"],
            "check": "npm ls",
            "notes": "",
        },
        1,
    )
    assert step == Step(number=2, title="Install", why="deps", commands=["npm ci"], check="npm ls")


def test_lenient_step_shapes():
    """Models write a single command string, a `command` key or no number; all still work."""
    assert step_from_json({"title": "Run", "commands": "npm start"}, 3).commands == ["npm start"]
    assert step_from_json({"command": "make"}, 4) == Step(number=4, title="make", commands=["make"])
    assert step_from_json({"title": "x", "commands": 5}, 1) is None
    assert step_from_json(["npm ci"], 1) is None
    assert step_from_json({"check": None, "commands": ["  "], "title": ""}, 1) is None


def test_markdown_names_risky_commands_and_checks(tmp_path: Path):
    plan = Plan(target="acme/webapp", name="webapp", shell="bash")
    plan.steps.append(
        Step(
            1,
            "Clean",
            commands=["rm -rf node_modules", "npm ci"],
            check="npm ls",
            verdicts=[Verdict("dangerous", ("rm-recursive-force: deletes",)), Verdict("confirm")],
        )
    )
    text = plan_markdown(plan)
    assert "## Step 1: Clean" in text and "```bash\nrm -rf node_modules\nnpm ci\n```" in text
    assert "- dangerous: `rm -rf node_modules` — rm-recursive-force: deletes" in text
    assert "- check: `npm ls`" in text
    path = save_plan(plan, tmp_path / "deploy")
    assert path.read_text() == text and path.suffix == ".md"
    assert log_path_for(path).name.endswith(".log.md")


def test_knowledge_plans_are_labelled():
    plan = Plan(target="ollama", name="ollama", shell="pwsh", from_knowledge=True)
    text = plan_markdown(plan)
    assert "model's own knowledge" in text


def test_same_failing_command_three_times_is_a_loop():
    loop = LoopDetector()
    assert loop.observe("npm ci", "E1", 1) is None
    assert loop.observe("npm  ci", "E2", 1) is None
    reason = loop.observe("npm ci", "E3", 1)
    assert reason is not None and "failed 3 times" in reason


def test_same_output_three_times_is_a_loop():
    loop = LoopDetector()
    out = "error: cannot find module 'x'\n"
    assert loop.observe("a", out, 1) is None
    assert loop.observe("b", out, 2) is None
    reason = loop.observe("c", out + "  ", 1)
    assert reason is not None and "same failure output" in reason


def test_successes_never_count():
    loop = LoopDetector()
    for _ in range(5):
        assert loop.observe("make", "ok", 0) is None


def test_stopping_a_run_hangs_up_its_repair_request():
    """Stop (Ctrl+C in the CLI, Stop in the window) cancels the token a repair request streams under."""
    from termwise.agent.base.cancel import CancelToken
    from termwise.agent.deploy.runner import PlanRunner

    token = CancelToken()
    plan = Plan(target="x", name="x", shell="bash", steps=[Step(1, "t", commands=["true"])])
    runner = PlanRunner(
        plan, session=None, ask=lambda c, v: "deny", classify=lambda c, s: Verdict("safe"),  # type: ignore[arg-type]
        cancel=token,
    )  # fmt: skip
    runner.stop()
    assert token.cancelled and runner.stopping
