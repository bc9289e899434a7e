"""Chat turns in-process against the loopback server: JSON skill fallback, snapshots, verbose output."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from termwise.agent.base.config_schema import Config
from termwise.agent.chat.memory_link import MemoryLink
from termwise.agent.chat.session import ChatSession
from termwise.agent.llm.factory import make_client
from termwise.memory.store import MemoryStore
from termwise.tray.commands.chat_repl import ChatRepl, build_session

from tests.support.llm_server import LlmServer, Reply, ToolCall


def _session(tmp_path: Path, llm_server: LlmServer, **memory: Any) -> tuple[ChatSession, Config]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "a.txt").write_text("alpha\n", encoding="utf-8", newline="\n")  # 6 bytes everywhere
    config = Config()
    config.skills.allowed_folders = [str(work)]
    config.llm.probe_ollama = False
    for key, value in memory.items():
        setattr(config.memory, key, value)
    env = {
        "TERMWISE_BASE_URL": llm_server.base_url,
        "TERMWISE_MODEL": "test",
        "TERMWISE_API_KEY": "x",
    }
    client = make_client(config, env)
    assert client is not None
    link = MemoryLink(MemoryStore(tmp_path / "memory"), client, config)
    session = build_session(client, config, link, cwd=work, confirm=lambda q: False, env={})
    return session, config


def _run(session: ChatSession, lines: list[str], verbose: bool = False) -> str:
    out = io.StringIO()
    feed = iter(lines)

    def read(prompt: str) -> str:
        out.write(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    repl = ChatRepl(session, read=read, out=out, verbose=verbose)
    session.skills.confirm = repl.confirm
    assert repl.run() == 0
    return out.getvalue()


def test_model_without_tools_uses_the_json_fallback(tmp_path: Path, llm_server: LlmServer) -> None:
    """When the model refuses tools, skills are described in text and a JSON call still runs."""

    def respond(body: dict[str, Any]) -> Reply | None:
        if body.get("tools"):
            return Reply(status=400, error_message="this model does not support tools")
        return None

    llm_server.responder = respond
    llm_server.reply(text='{"skill": "list_dir", "args": {}}')
    llm_server.reply(text="There is one file, a.txt.")
    session, _ = _session(tmp_path, llm_server)
    shown = _run(session, ["what files are here?"])
    assert "→ list_dir {}" in shown and "There is one file, a.txt." in shown
    assert '{"skill"' not in shown.split("→ list_dir")[0]  # the raw JSON is not printed
    system = llm_server.requests[1]["messages"][0]["content"]
    assert '{"skill": "<name>", "args": {...}}' in system and "- list_dir:" in system
    last = llm_server.requests[-1]["messages"][-1]["content"]
    assert last.startswith("Result of skill list_dir:") and "a.txt  (6 bytes)" in last
    assert session.native_tools is False


def test_long_chat_is_compressed_into_a_snapshot(tmp_path: Path, llm_server: LlmServer) -> None:
    """Over the prompt budget, old turns become a state snapshot that the next request carries."""

    def respond(body: dict[str, Any]) -> Reply | None:
        if "state snapshot" in body["messages"][0]["content"] and not body.get("stream"):
            return Reply(
                text="## Overall goal\nShip v2\n## Current plan\n1. [TODO] tag the release"
            )
        return Reply(text="ok " + "y" * 400)

    llm_server.responder = respond
    session, config = _session(tmp_path, llm_server)
    config.llm.max_prompt_tokens = 400
    _run(session, [f"question {i} " + "z" * 300 for i in range(4)])
    assert session.snapshot is not None and session.snapshot.goal == "Ship v2"
    assert len(session.history) == 4
    _run(session, ["and now?"])
    sent = [r for r in llm_server.requests if r.get("stream")][-1]["messages"]
    assert sent[-1]["content"] == "and now?"
    assert "[TODO] tag the release" in sent[1]["content"]


def test_verbose_shows_prompts_and_tool_results(tmp_path: Path, llm_server: LlmServer) -> None:
    """--verbose prints each prompt sent and each skill's result."""
    llm_server.reply(tool_calls=[ToolCall("file_read", json.dumps({"path": "a.txt"}))])
    llm_server.reply(text="It says alpha.")
    session, _ = _session(tmp_path, llm_server)
    shown = _run(session, ["read a.txt"], verbose=True)
    assert shown.count("--- prompt ---") == 2
    assert "[user] read a.txt" in shown and "[tools] file_search, file_read" in shown
    assert "    alpha" in shown and "It says alpha." in shown


def test_email_asks_in_the_terminal_and_a_no_sends_nothing(
    tmp_path: Path, llm_server: LlmServer
) -> None:
    """The email skill shows the message and waits for y/N; "n" keeps it unsent."""
    args = {"to": "boss@example.test", "subject": "done", "body": "shipped"}
    llm_server.reply(tool_calls=[ToolCall("email", json.dumps(args))])
    llm_server.reply(text="Okay, not sent.")
    session, config = _session(tmp_path, llm_server)
    config.skills.email.host, config.skills.email.sender = "127.0.0.1", "me@example.test"
    shown = _run(session, ["mail my boss", "n"])
    assert "To: boss@example.test" in shown and "Go ahead? [y/N]" in shown
    tool = next(m for m in llm_server.requests[1]["messages"] if m["role"] == "tool")
    assert "declined" in tool["content"]


def test_model_errors_are_shown_and_the_chat_goes_on(tmp_path: Path, llm_server: LlmServer) -> None:
    """A failing model call prints a message; the next question works."""
    llm_server.reply(status=401, error_message="bad key")
    llm_server.reply(text="Back again.")
    session, _ = _session(tmp_path, llm_server)
    shown = _run(session, ["first", "second"])
    assert "termwise: " in shown and "Back again." in shown


def test_statements_in_chat_are_remembered(tmp_path: Path, llm_server: LlmServer) -> None:
    """ "I like …" typed in chat is written to memory and the user is told."""
    llm_server.reply(text="Noted.")
    session, _ = _session(tmp_path, llm_server)
    shown = _run(session, ["I like tabs over spaces."])
    assert "(remembered: pref:tabs_over_spaces)" in shown


def test_only_the_last_n_exchanges_are_sent(tmp_path: Path, llm_server: LlmServer) -> None:
    """With memory.chat_turns = 1 a question carries just the previous exchange."""
    for text in ("one", "two", "three"):
        llm_server.reply(text=f"answer {text}")
    session, _ = _session(tmp_path, llm_server, chat_turns=1)
    _run(session, ["q1", "q2", "q3"])
    contents = [m["content"] for m in llm_server.requests[2]["messages"][1:]]
    assert contents == ["q2", "answer two", "q3"]


def test_bad_tool_arguments_and_endless_tool_calls(tmp_path: Path, llm_server: LlmServer) -> None:
    """Arguments that are not JSON reach the model as an error; a model that never stops is cut off."""
    llm_server.reply(tool_calls=[ToolCall("list_dir", "{not json")])
    llm_server.reply(text="Sorry.")
    session, _ = _session(tmp_path, llm_server)
    shown = _run(session, ["list"])
    assert "✗ list_dir: the arguments are not valid JSON" in shown
    tool = next(m for m in llm_server.requests[1]["messages"] if m["role"] == "tool")
    assert tool["content"].startswith("ERROR: the arguments are not valid JSON")

    llm_server.responder = lambda body: Reply(tool_calls=[ToolCall("list_dir", "{}")])
    shown = _run(session, ["loop forever"])
    assert "(stopped: too many skill calls in one answer)" in shown


def test_slash_commands_help_model_switch_and_unknown(
    tmp_path: Path, llm_server: LlmServer
) -> None:
    """/help lists the commands, /model NAME switches the chat model, unknown ones are named."""
    llm_server.reply(text="hi")
    session, _ = _session(tmp_path, llm_server)
    shown = _run(session, ["/help", "/model test-small", "/frobnicate", "hello"])
    assert "/reset   forget this conversation's history" in shown
    assert f"now using test-small at {llm_server.base_url}" in shown
    assert "unknown command /frobnicate; try /help" in shown
    assert llm_server.requests[-1]["model"] == "test-small"
