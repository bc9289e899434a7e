"""The `deploy` word's plan hand-over to the detached runner, and its offer outside a session."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from termwise.agent.base.paths import resolve_paths
from termwise.agent.base.types import Verdict
from termwise.agent.deploy.plan import Plan, Step
from termwise.tray.commands.deploy_word import offer, plan_commands, plan_from_json, plan_to_json


def _plan() -> Plan:
    return Plan(
        target="https://github.com/o/r",
        name="r",
        shell="bash",
        steps=[
            Step(
                1,
                "install",
                "deps",
                ["pip install -r requirements.txt"],
                "python -V",
                "",
                [Verdict("confirm", ("installs packages",), "network")],
            ),
            Step(2, "run", commands=["make run"]),
        ],
    )


def test_plan_survives_the_trip_through_json() -> None:
    """The plan the detached runner reads back equals the one that was streamed, verdicts included."""
    plan = _plan()
    again = plan_from_json(json.loads(json.dumps(plan_to_json(plan))))
    assert again == plan


def test_plan_commands_lists_commands_and_checks_in_order() -> None:
    """Copying a plan copies every command and check in running order."""
    assert plan_commands(_plan()) == ["pip install -r requirements.txt", "python -V", "make run"]


def test_offer_outside_a_session_asks_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without TERMWISE_SESSION there is no session to run in: no question, nothing started."""
    monkeypatch.delenv("TERMWISE_SESSION", raising=False)
    asked: list[str] = []
    out = io.StringIO()
    code = offer(_plan(), tmp_path / "p.md", paths=resolve_paths(), out=out, read_line=asked.append)
    assert code == 0 and asked == [] and out.getvalue() == ""


def test_offer_refused_risky_command_starts_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`r`, then no to a command that needs confirmation: the plan is not started."""
    monkeypatch.setenv("TERMWISE_SESSION", "7")
    answers = iter(["r", "n"])
    out = io.StringIO()
    code = offer(
        _plan(),
        tmp_path / "p.md",
        paths=resolve_paths(),
        out=out,
        read_line=lambda _: next(answers),
    )
    assert code == 1
    assert "pip install -r requirements.txt" in out.getvalue()
    assert "termwise: not run" in out.getvalue()
    assert not list(resolve_paths().runtime_dir.glob("deploy-job-*"))
