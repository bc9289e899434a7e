"""Memory through the loopback model server: session summaries, profile rewrite, redaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from termwise.agent.base.config_schema import Config
from termwise.agent.base.types import Block
from termwise.agent.chat.memory_link import MemoryLink
from termwise.agent.llm.factory import make_client
from termwise.memory.store import MemoryStore
from termwise.memory.tiers import PROFILE_KEY

from tests.support.llm_server import LlmServer, Reply


def _link(tmp_path: Path, llm_server: LlmServer, every: int = 3) -> MemoryLink:
    config = Config()
    config.memory.summary_every = every
    config.llm.probe_ollama = False
    env = {
        "TERMWISE_BASE_URL": llm_server.base_url,
        "TERMWISE_MODEL": "test",
        "TERMWISE_API_KEY": "x",
    }
    client = make_client(config, env)
    assert client is not None
    return MemoryLink(MemoryStore(tmp_path / "memory"), client, config)


def _system(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"])


def _route(body: dict[str, Any]) -> Reply:
    if "diary" in _system(body):
        return Reply(text="- set up a Rust project with cargo\n- the first build failed")
    return Reply(text="- works in Rust with cargo\n- prefers zsh")


def test_summary_every_n_commands_and_profile_at_session_end(
    tmp_path: Path, llm_server: LlmServer
) -> None:
    """Every N commands the memory model summarises the session; at its end the profile is rewritten."""
    llm_server.responder = _route
    link = _link(tmp_path, llm_server)
    link.store.upsert("pref:shell", "profile", "uses zsh")
    for cmd, code in (("cargo new app", 0), ("cd app", 0), ("cargo build", 101)):
        link.on_block("1", Block(cmd, "", code, "/home/u"))
    assert link.flush(30)
    [summary_request] = llm_server.requests
    assert summary_request["model"] == "test"
    sent = summary_request["messages"][1]["content"]
    assert "[exit 101] cargo build" in sent and "[exit 0] cargo new app" in sent
    [episode] = [e for e in link.store.entries() if e.type == "episode"]
    assert episode.content.startswith("- set up a Rust project")

    link.on_session_end("1")
    assert link.flush(30)
    profile_request = llm_server.requests[-1]
    assert "long-term profile" in _system(profile_request)
    assert "pref:shell" in profile_request["messages"][1]["content"]
    assert "set up a Rust project" in profile_request["messages"][1]["content"]
    assert link.store.get(PROFILE_KEY).content == "- works in Rust with cargo\n- prefers zsh"
    link.close()


def test_secrets_in_commands_never_reach_the_model(tmp_path: Path, llm_server: LlmServer) -> None:
    """A token typed in a command is redacted before the summary request leaves the machine."""
    llm_server.responder = _route
    link = _link(tmp_path, llm_server, every=2)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    link.on_block("1", Block(f"export GITHUB_TOKEN={token}", "", 0))
    link.on_block("1", Block("gh repo list", "", 0))
    assert link.flush(30)
    body = str(llm_server.requests[0])
    assert token not in body and "gh repo list" in body
    files = "".join(p.read_text("utf-8") for p in (tmp_path / "memory").rglob("*.md"))
    assert token not in files
    link.close()


def test_model_failure_keeps_working_and_commands(tmp_path: Path, llm_server: LlmServer) -> None:
    """A model error during a summary is logged, the caller never sees it, nothing is lost."""
    llm_server.reply(status=400, error_message="bad request")
    llm_server.reply(text="- recovered summary")
    link = _link(tmp_path, llm_server, every=1)
    link.on_block("1", Block("make", "", 2))
    assert link.flush(30)
    assert link.tiers.worker.failures
    link.on_block("1", Block("make test", "", 0))
    assert link.flush(30)
    last = llm_server.requests[-1]["messages"][1]["content"]
    assert "] make\n" in last + "\n" and "make test" in last
    assert [e.content for e in link.store.entries()] == ["- recovered summary"]
    link.close()


def test_snippets_and_remember(tmp_path: Path, llm_server: LlmServer) -> None:
    """The agent's memory callable returns prompt lines; statements are remembered, secrets not."""
    link = _link(tmp_path, llm_server)
    link.remember(
        "I like short answers. 我正在做一个用 sk-proj-abcdefghijklmnopqrstuvwx12345 的机器人"
    )
    assert [e.key for e in link.store.entries()] == ["pref:short_answers"]
    assert link.snippets("short answers please", 3)[0].startswith("pref:short_answers (profile")
    link.close()


def test_offline_link_still_remembers(tmp_path: Path) -> None:
    """With no model the link writes plain summaries and never tries a profile rewrite."""
    config = Config()
    config.memory.summary_every = 2
    link = MemoryLink(MemoryStore(tmp_path), None, config)
    link.on_block("1", Block("git pull", "", 0))
    link.on_block("1", Block("git push", "", 1))
    link.on_session_end("1")
    assert link.flush(10)
    assert [e.content for e in link.store.entries()] == ["Ran 2 commands (1 failed): git ×2."]
    link.close()
