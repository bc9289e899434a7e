"""Planning through the real openai SDK against the loopback model: GitHub API, git URL, folder."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.agent.deploy.planner import PlanFinished, Planner, PlanProblem, StepReady
from termwise.agent.deploy.sources import SourceError, fetch_repository
from termwise.agent.llm.base import LlmClient
from termwise.agent.llm.factory import make_client

from tests.support.github_server import FakeGitHub
from tests.support.llm_server import LlmServer
from tests.support.wine_limits import wine_limit

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PLAN = (
    "Here is the plan.\n"
    '{"step": 1, "title": "Use Node 20", "why": ".nvmrc says 20", "commands": ["node --version"], '
    '"check": "node --version", "notes": ""}\n'
    '{"step": 2, "title": "Install", "why": "package.json", "commands": ["npm ci"], '
    '"check": "npm ls", "notes": "needs network"}\n'
    '{"step": 3, "title": "Clean old build", "why": "stale files", '
    '"commands": ["rm -rf ./build-output"], "check": null, "notes": ""}\n'
)
ENV = {"os": "Linux", "os_version": "Debian 12", "shell": "bash", "tools": {"git": "2.39.5"}}


def fixture_repo(root: Path) -> Path:
    repo = root / "webapp"
    repo.mkdir()
    (repo / "README.md").write_text(
        f"# webapp\n\nRun `npm ci` then `npm start`.\nDeploy token: {SECRET}\n"
    )
    (repo / "package.json").write_text(json.dumps({"name": "webapp", "engines": {"node": "20"}}))
    (repo / ".nvmrc").write_text("20\n")
    (repo / "src").mkdir()
    (repo / "src" / "index.js").write_text("console.log('hi')\n")
    return repo


@pytest.fixture
def github(tmp_path: Path) -> Iterator[FakeGitHub]:
    fake = FakeGitHub().start()
    fake.repos["acme/webapp"] = fixture_repo(tmp_path)
    yield fake
    fake.stop()


@pytest.fixture
def client(llm_server: LlmServer) -> LlmClient:
    env = {
        "TERMWISE_BASE_URL": llm_server.base_url,
        "TERMWISE_MODEL": "test",
        "TERMWISE_API_KEY": "x",
    }
    made = make_client(Config(), env)
    assert made is not None
    return made


def planner(client: LlmClient, **kwargs: object) -> Planner:
    return Planner(client, Config(), env_info=ENV, deploy_dir=resolve_paths().deploy_dir, **kwargs)  # type: ignore[arg-type]


def test_github_repo_becomes_streamed_steps_with_verdicts(
    github: FakeGitHub, client: LlmClient, llm_server: LlmServer
) -> None:
    """README and manifests from the API reach the model; steps stream in with verdicts; saved."""
    llm_server.reply(PLAN, chunk_size=7)
    snap = fetch_repository("https://github.com/acme/webapp", github_api=github.api)
    memories = ["The user prefers pnpm over npm."]
    events = list(planner(client, memory=lambda q, n: memories).run(snap, "bash"))
    steps = [e.step for e in events if isinstance(e, StepReady)]
    assert [s.title for s in steps] == ["Use Node 20", "Install", "Clean old build"]
    assert [v.level for v in steps[2].verdicts] == ["dangerous"]
    assert steps[1].verdicts[0].level == "confirm"
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.path is not None
    text = finished.path.read_text()
    assert "## Step 3: Clean old build" in text and "- dangerous: `rm -rf ./build-output`" in text
    assert finished.path.parent == resolve_paths().deploy_dir
    request = llm_server.requests[-1]
    assert request["model"] == "test" and request["stream"] is True
    user = request["messages"][1]["content"]
    assert "npm start" in user and '"engines"' in user and "File .nvmrc" in user
    assert "Debian 12" in user and "prefers pnpm" in user and "src/" in user
    assert SECRET not in user and "[REDACTED:github-token]" in user
    assert "bash" in request["messages"][0]["content"]


def test_rate_limited_api_stops_before_the_model(github: FakeGitHub, llm_server: LlmServer) -> None:
    """A 403 rate-limit answer is a clear error and no model request is made."""
    github.rate_limited = True
    with pytest.raises(SourceError, match="rate limit"):
        fetch_repository("acme/webapp", github_api=github.api)
    assert llm_server.requests == []


@wine_limit("no-posix-tools")
def test_git_url_clone_is_planned(tmp_path: Path, client: LlmClient, llm_server: LlmServer) -> None:
    """A repository cloned through a file:// URL is read and planned."""
    repo = fixture_repo(tmp_path)
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    llm_server.reply(f"```json\n[{PLAN.splitlines()[2].strip()}]\n```\n")
    snap = fetch_repository(f"file://{repo}")
    events = list(planner(client).run(snap, "zsh"))
    assert [e.step.title for e in events if isinstance(e, StepReady)] == ["Install"]
    assert "package.json" in llm_server.requests[-1]["messages"][1]["content"]


def test_local_folder_and_a_broken_stream(
    tmp_path: Path, client: LlmClient, llm_server: LlmServer
) -> None:
    """A local folder is planned; a stream cut mid-answer keeps the steps that arrived and says so."""
    llm_server.reply(PLAN, chunk_size=10, cut_after=20)
    snap = fetch_repository(str(fixture_repo(tmp_path)))
    events = list(planner(client).run(snap, "bash"))
    steps = [e.step for e in events if isinstance(e, StepReady)]
    assert steps and steps[0].title == "Use Node 20" and len(steps) < 3
    assert any(isinstance(e, PlanProblem) for e in events)
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.path is not None
    assert "may be incomplete" in finished.path.read_text()


def test_bare_name_is_planned_from_knowledge(client: LlmClient, llm_server: LlmServer) -> None:
    """A bare project name asks the model to plan from its own knowledge, and the plan says so."""
    llm_server.reply('{"title": "Get it", "commands": ["git clone https://example.org/x.git"]}\n')
    events = list(planner(client).run(fetch_repository("nextcloud"), "bash"))
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.plan.from_knowledge
    assert "plan from what you know" in llm_server.requests[-1]["messages"][1]["content"]
    assert finished.path is not None and "model's own knowledge" in finished.path.read_text()


def test_an_answer_without_steps_saves_nothing(
    tmp_path: Path, client: LlmClient, llm_server: LlmServer
) -> None:
    """Prose without steps is reported and no empty plan file is written."""
    llm_server.reply("Sorry, I cannot help with that.")
    events = list(planner(client).run(fetch_repository(str(fixture_repo(tmp_path))), "bash"))
    assert [e.message for e in events if isinstance(e, PlanProblem)] == [
        "the model's answer held no plan steps"
    ]
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.path is None


def test_stopping_early_closes_the_model_stream(
    tmp_path: Path, client: LlmClient, llm_server: LlmServer
) -> None:
    """Closing the event stream after the first step (Ctrl+C, Stop) hangs up on the model."""
    llm_server.reply(PLAN + PLAN + PLAN, chunk_size=20, chunk_delay=0.05)
    events = planner(client).run(fetch_repository(str(fixture_repo(tmp_path))), "bash")
    first = next(e for e in events if isinstance(e, StepReady))
    assert first.step.title == "Use Node 20"
    events.close()
    assert llm_server.wait_disconnect(5)
    assert list(resolve_paths().deploy_dir.glob("*.md")) == []
