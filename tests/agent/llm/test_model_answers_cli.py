"""Faulty model servers as a user meets them: real `termwise ask` / `fix` subprocesses.

Each test scripts the loopback server (real HTTP, real SSE, the real `openai` SDK in the
subprocess) with one fault and checks what the user sees: the message, the exit code,
that nothing hangs and that no traceback leaks.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.support.llm_server import LlmServer
from tests.tray.commands.test_cli_agent import model_env, offline_env
from tests.tray.serve_support import ServeProcess, serve_fixture, termwise

GOOD = '{"command": "ls -la", "explanation": "list everything"}\n'


def _config(text: str) -> None:
    path = Path(termwise("config", "path", env=offline_env()).stdout.strip())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("llm:\n  probe_ollama: false\n" + text, encoding="utf-8")


def _clean(result: object) -> None:
    assert "Traceback" not in result.stderr, result.stderr  # type: ignore[attr-defined]


def test_ask_is_not_held_forever_by_keepalive_comments(llm_server: LlmServer) -> None:
    """A server that only sends SSE keep-alives: `ask` gives up at the deadline and says so."""
    _config("  answer_deadline: 3\n")
    llm_server.reply("", stall_after=0, keepalive=0.2)
    result = termwise("ask", "list files", env=model_env(llm_server), timeout=30)
    _clean(result)
    assert result.returncode == 1
    assert "within 3 s (the answer deadline" in result.stderr
    assert llm_server.keepalives_sent >= 5


def test_suggestions_appear_one_by_one_inside_one_json_object(llm_server: LlmServer) -> None:
    """A schema-shaped answer that stalls after its first element still shows that element."""
    _config("  answer_deadline: 3\n")
    head = '{"suggestions": [{"command": "du -ah . | sort -rh | head -5", "explanation": "x"}, '
    llm_server.reply(head + '{"command": "ls', chunk_size=7, stall_after=12, keepalive=0.2)
    result = termwise("ask", "largest files", env=model_env(llm_server), timeout=30)
    _clean(result)
    assert result.stdout.startswith("1. du -ah . | sort -rh | head -5"), result.stdout
    assert "answer deadline" in result.stderr
    assert "response_format" in llm_server.requests[0]


def test_ask_names_an_html_answer_and_its_url(llm_server: LlmServer) -> None:
    """A captive portal's 200 page: the message says HTML page and gives the address."""
    _config("")
    llm_server.reply(body="<html><head><title>Hotel Wi-Fi</title></head></html>")
    result = termwise("ask", "list files", env=model_env(llm_server))
    _clean(result)
    assert result.returncode == 1
    assert f"{llm_server.base_url}/chat/completions answered HTTP 200 with an HTML page" in (
        result.stderr
    )
    assert "Hotel Wi-Fi" in result.stderr


def test_ask_fails_at_once_on_a_retry_after_beyond_the_deadline(llm_server: LlmServer) -> None:
    """429 with Retry-After: 3600 is one request and a message with the wait, not a long sleep."""
    _config("")
    llm_server.reply(status=429, headers={"Retry-After": "3600"}, error_message="quota")
    result = termwise("ask", "list files", env=model_env(llm_server))
    _clean(result)
    assert result.returncode == 1
    assert "asks to wait 60 min (3600 s)" in result.stderr
    assert "beyond the 60 s answer deadline" in result.stderr
    assert len(llm_server.requests) == 1


def test_deeply_nested_json_in_the_answer_is_a_message_and_the_rest_is_kept(
    llm_server: LlmServer,
) -> None:
    """100,000 nested brackets in a suggestion: a clear note, and the next suggestion shows."""
    _config("")
    rng = random.Random(12)  # uneven blanks: pure "[[[[" would be cut as a loop first
    opened = "".join("[" + " " * rng.randrange(3) for _ in range(100_000))
    closed = "".join("]" + " " * rng.randrange(3) for _ in range(100_000))
    nested = '{"command": "x", "explanation": ' + opened + closed + "}\n"
    llm_server.reply(nested + GOOD, chunk_size=4096)
    result = termwise("ask", "list files", env=model_env(llm_server))
    _clean(result)
    assert result.returncode == 0
    assert result.stdout.startswith("1. ls -la")
    assert "too deeply nested" in result.stderr


def test_ask_stops_reading_once_five_suggestions_are_in(llm_server: LlmServer) -> None:
    """After five suggestions `ask` hangs up, even though the server would go on (and stall)."""
    _config("")
    lines = "".join(f'{{"command": "echo {i}"}}\n' for i in range(5))
    text = lines + '{"command": "echo 6"}\n' * 50
    pieces = len(text) // 8
    llm_server.reply(text, chunk_size=8, stall_after=pieces - 10)
    result = termwise("ask", "--json", "count", env=model_env(llm_server), timeout=30)
    _clean(result)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    shown = [e["command"] for e in events if e["event"] == "suggestion"]
    assert shown == [f"echo {i}" for i in range(5)]
    assert result.returncode == 0
    assert llm_server.wait_disconnect(5)


def test_a_looping_model_is_cut_off_with_a_note(llm_server: LlmServer) -> None:
    """A model repeating `bash && linux-2.11.1 && …` is hung up on; the suggestion before stays."""
    _config("")
    loop = '{"command": "bash && linux-2.11.1 && ' + "bash && linux-2.11.1 && " * 20_000
    llm_server.reply(GOOD + loop, chunk_size=16)
    result = termwise("ask", "list files", env=model_env(llm_server))
    _clean(result)
    assert result.stdout.startswith("1. ls -la")
    assert "the model began repeating itself; stopped reading" in result.stderr
    assert llm_server.wait_disconnect(5)


def test_implausible_commands_are_dropped_with_a_note(llm_server: LlmServer) -> None:
    """`grep -i "*.json"`, an unclosed quote and a sentence are not offered; each is noted."""
    _config("")
    llm_server.reply(
        '{"command": "ls | grep -i \\"*.json\\""}\n'
        '{"command": "echo \\"unfinished"}\n'
        '{"command": "List the five largest files in this folder"}\n'
        '{"command": "find . -name \\"*.json\\""}\n'
    )
    result = termwise("ask", "list json files", env=model_env(llm_server))
    _clean(result)
    assert result.stdout.splitlines()[0].startswith('1. find . -name "*.json"')
    assert "2." not in result.stdout
    assert result.stderr.count("dropped a suggestion") == 3
    assert "not a file glob (*.json)" in result.stderr
    assert "unclosed double quote" in result.stderr


@pytest.fixture
def serve(termwise_home: Path):  # type: ignore[no-untyped-def]
    yield from serve_fixture(termwise_home)


@pytest.mark.requires("bash")
def test_fix_is_not_held_forever_by_keepalive_comments(
    serve: ServeProcess, llm_server: LlmServer, tmp_path: Path
) -> None:
    """`fix` against a keep-alive-only server: the rules' fixes stay, the wait ends at the deadline."""
    _config("  answer_deadline: 3\n")
    sid = serve.client.create("bash", str(tmp_path))["id"]
    block = serve.run_command(sid, "cd /no/such/folder")
    assert block["exit_code"] != 0
    llm_server.reply("", stall_after=0, keepalive=0.2)
    result = termwise("fix", env=model_env(llm_server, TERMWISE_SESSION=sid), timeout=30)
    _clean(result)
    assert "within 3 s (the answer deadline" in result.stderr
    assert llm_server.keepalives_sent >= 5
