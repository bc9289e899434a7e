"""The shared flows send what each screen relies on: the request content is asserted at the model."""

from __future__ import annotations

from pathlib import Path

from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.agent.deploy.planner import PlanFinished, StepReady
from termwise.agent.deploy.planning import plan_repository, read_target
from termwise.agent.llm.base import LlmClient
from termwise.agent.llm.factory import make_client
from termwise.agent.suggest.flows import (
    FIX_REQUEST,
    block_from_json,
    explain,
    follow_up,
    session_context,
)
from termwise.agent.suggest.turn import SuggestTurn

from tests.support.llm_server import LlmServer

ENV_INFO = {"os": "Linux", "os_version": "Debian 12", "tools": {}}
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _client(server: LlmServer, config: Config) -> LlmClient:
    config.llm.max_retries = 0
    env = {"TERMWISE_BASE_URL": server.base_url, "TERMWISE_MODEL": "test", "TERMWISE_API_KEY": "x"}
    client = make_client(config, env)
    assert client is not None
    return client


def _user(server: LlmServer, n: int = -1) -> str:
    return "\n".join(
        str(m["content"]) for m in server.requests[n]["messages"] if m["role"] == "user"
    )


def test_follow_up_keeps_the_request_and_adds_the_question_and_answer() -> None:
    """Every round keeps what was asked first; an empty request means the failure's fix."""
    once = follow_up("deploy the site", "Which server?", "staging")
    assert once.startswith("deploy the site") and "Which server?" in once and "staging" in once
    twice = follow_up(once, "Which port?", "8080")
    assert twice.startswith("deploy the site") and "staging" in twice and "8080" in twice
    assert follow_up("", "Which file?", "a.txt").startswith(FIX_REQUEST)


def test_a_follow_up_turn_sends_the_original_request_to_the_model(llm_server: LlmServer) -> None:
    """The turn built from follow_up carries request, question and answer in its user message."""
    config = Config()
    llm_server.reply('{"command": "rsync -a build/ staging:/srv/www/"}\n')
    turn = SuggestTurn(_client(llm_server, config), config, env_info=ENV_INFO)
    request = follow_up("copy the build folder to the web server", "Which server?", "staging")
    list(turn.run(request, session_context([], shell="bash", cwd="/src", session_id="1")))
    sent = _user(llm_server, 0)  # the suggest request (a safety review may follow)
    assert "copy the build folder to the web server" in sent
    assert "Which server?" in sent and "staging" in sent


def test_explain_sends_the_shell_and_the_redacted_command(llm_server: LlmServer) -> None:
    """The explain prompt names the shell; a secret in the command never reaches the model."""
    config = Config()
    llm_server.reply("curl sends an authenticated request.", chunk_size=5)
    command = f'curl -H "Authorization: token {TOKEN}" https://api.github.com/user'
    text = "".join(explain(_client(llm_server, config), config, command, "zsh"))
    assert text == "curl sends an authenticated request."
    messages = llm_server.requests[-1]["messages"]
    assert "zsh" in messages[0]["content"]
    assert "api.github.com/user" in messages[-1]["content"]
    assert TOKEN not in str(messages)


def test_session_context_drops_the_screen_when_marks_exist() -> None:
    """Blocks from the host's JSON keep their fields; the screen counts only without marks."""
    block = block_from_json(
        {"command": "ls", "output": "a\n", "exit_code": 0, "cwd": "/x", "started": 1, "ended": 2.5}
    )
    assert (block.command, block.exit_code, block.cwd, block.ended) == ("ls", 0, "/x", 2.5)
    marked = session_context([block], shell="", cwd="/x", session_id="3", screen_text="$ ls")
    assert marked.shell == "bash" and marked.screen_text == ""
    bare = session_context(
        [], shell="cmd", cwd=None, session_id="3", has_marks=False, screen_text="C:\\>"
    )
    assert bare.screen_text == "C:\\>"
    odd = block_from_json({"command": "x", "exit_code": "1", "cwd": 5, "started": True})
    assert odd.exit_code is None and odd.cwd is None and odd.started is None


def test_deploy_planning_reads_the_folder_and_saves_the_plan(
    llm_server: LlmServer, tmp_path: Path
) -> None:
    """The shared planner sends the README and manifests and saves the streamed steps."""
    project = tmp_path / "shop"
    project.mkdir()
    (project / "README.md").write_text("# Shop\nRun `make serve-shop` to start.\n")
    (project / "Makefile").write_text("serve-shop:\n\tpython -m http.server\n")
    config = Config()
    llm_server.reply(
        '{"step": 1, "title": "Serve", "why": "start it", "commands": ["make serve-shop"],'
        ' "check": null, "notes": ""}\n'
    )
    paths = resolve_paths().ensure()
    snap = read_target(str(project), config)
    events = list(
        plan_repository(snap, "bash", config, _client(llm_server, config), paths, env_info=ENV_INFO)
    )
    steps = [e.step for e in events if isinstance(e, StepReady)]
    assert [s.commands for s in steps] == [["make serve-shop"]]
    finished = events[-1]
    assert isinstance(finished, PlanFinished) and finished.path is not None
    assert finished.path.is_file() and finished.path.parent == paths.deploy_dir
    sent = _user(llm_server)
    assert "make serve-shop" in sent and "Makefile" in sent
