"""Repair requests: the failure in context, the first suggestion back, long histories compressed."""

from __future__ import annotations

from typing import Any

from termwise.agent.base.config_schema import Config
from termwise.agent.deploy.fixer import StepFixer
from termwise.agent.deploy.plan import Step
from termwise.agent.deploy.runner import CommandFinished, CommandResult, CommandSent
from termwise.agent.llm.factory import make_client

from tests.support.llm_server import LlmServer

SNAPSHOT = (
    "## Overall goal\nDeploy webapp\n## Key knowledge\n- node 20 is installed\n"
    "## File-system state\n- node_modules/\n## Recent actions\n- npm ci ok\n"
    "## Current plan\n1. [DONE] install\n2. [IN PROGRESS] build\n"
)


def fixer(llm_server: LlmServer, **kwargs: Any) -> StepFixer:
    env = {
        "TERMWISE_BASE_URL": llm_server.base_url,
        "TERMWISE_MODEL": "test",
        "TERMWISE_API_KEY": "x",
    }
    client = make_client(Config(), env)
    assert client is not None
    return StepFixer(client, Config(), "bash", goal="deploy webapp", **kwargs)


def test_first_suggestion_is_the_fix_and_secrets_stay_home(llm_server: LlmServer) -> None:
    """The request names step, command, exit code and redacted output; the first command comes back."""
    llm_server.reply(
        'Try this:\n{"command": "npm run build -- --legacy", "explanation": "x"}\n'
        '{"command": "rm -rf node_modules"}\n'
    )
    fix = fixer(llm_server)
    secret = "AKIA" + "ABCDEFGHIJKLMNOP"
    result = CommandResult("npm run build", f"key {secret}\nError: build failed\n", 2)
    step = Step(3, "Build", why="bundle", commands=["npm run build"], check="test -d dist")
    assert fix(step, result) == "npm run build -- --legacy"
    body = llm_server.requests[-1]
    assert body["messages"][0]["role"] == "system" and "bash" in body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    assert "Step 3: Build" in user and "Failed command: `npm run build`" in user
    assert "Exit code: 2" in user and "Error: build failed" in user and "test -d dist" in user
    assert secret not in user


def test_no_suggestion_means_no_fix(llm_server: LlmServer) -> None:
    """An answer without a command gives None (the runner then stops the step)."""
    llm_server.reply("I don't know.")
    assert fixer(llm_server)(Step(1, "x", commands=["x"]), CommandResult("x", "", 1)) is None


def test_model_error_is_kept_and_gives_no_fix(llm_server: LlmServer) -> None:
    """A refused request (401) gives None and the error is kept for the user."""
    llm_server.reply(status=401, error_message="bad key")
    fix = fixer(llm_server)
    assert fix(Step(1, "x", commands=["x"]), CommandResult("x", "", 1)) is None
    assert fix.problems


def test_long_history_is_compressed_into_a_state_snapshot(llm_server: LlmServer) -> None:
    """Past the budget, old history becomes a model-written snapshot that leads the repair request."""

    def respond(body: dict[str, Any]) -> str:
        if body["messages"][0]["role"] == "user":  # the compression request
            return SNAPSHOT
        return '{"command": "npm run build"}\n'

    llm_server.responder = respond
    fix = fixer(llm_server, budget_tokens=300)
    for i in range(30):
        fix.observe(CommandSent(1, f"echo step-{i} " + "x" * 40))
        fix.observe(CommandFinished(1, "ok", 0))
    assert fix.snapshot is not None and fix.snapshot.goal == "Deploy webapp"
    assert len(fix.history) < 30
    assert fix(Step(2, "Build", commands=["npm run build"]), CommandResult("npm run build", "E", 1))
    messages = llm_server.requests[-1]["messages"]
    assert (
        "State snapshot" in messages[1]["content"]
        and "[IN PROGRESS] build" in messages[1]["content"]
    )
    assert "echo step-0 " not in str(messages)
