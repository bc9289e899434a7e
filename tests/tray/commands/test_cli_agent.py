"""The agent command line as a user runs it: real `termwise` subprocesses, loopback model, real host."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.llm_server import LlmServer, Reply
from tests.tray.serve_support import ServeProcess, serve_fixture, termwise

LINES = (
    '{"command": "git push -u origin main", "explanation": "sets the upstream"}\n'
    '{"command": "git status", "explanation": "see the state"}\n'
)


def model_env(server: LlmServer, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "TERMWISE_BASE_URL": server.base_url,
        "TERMWISE_MODEL": "test",
        "TERMWISE_API_KEY": "x",
        **extra,
    }


def offline_env(**extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("TERMWISE_") or k == "TERMWISE_HOME"
    }
    return {**env, **extra}


def no_ollama() -> None:
    """Keep the subprocess from using a local Ollama that may happen to run on this machine."""
    path = Path(termwise("config", "path", env=offline_env()).stdout.strip())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("llm:\n  probe_ollama: false\n", encoding="utf-8")


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


def _safety(body: dict) -> Reply | None:
    if "Static rules already flagged" in body["messages"][0]["content"]:
        return Reply(text='{"risk": "medium", "explanation": "publishes commits"}')
    return None


def test_ask_without_a_host_streams_model_suggestions(llm_server: LlmServer) -> None:
    """`ask` with no host answers without context, says so, and prints each suggestion with its verdict."""
    llm_server.responder = _safety
    llm_server.reply(LINES, chunk_size=4)
    result = termwise("ask", "how do I publish my branch?", env=model_env(llm_server))
    assert result.returncode == 0, result.stderr
    assert "without session context" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1. git push -u origin main    [model · confirm]")
    assert any(line.startswith("2. git status    [model · safe]") for line in lines)
    assert "publishes commits" in result.stdout  # the safety model's explanation
    assert "how do I publish my branch?" in llm_server.requests[0]["messages"][1]["content"]


def test_ask_json_prints_event_lines(llm_server: LlmServer) -> None:
    """`ask --json` writes one JSON event per line, suggestions with their verdicts, then finished."""
    llm_server.responder = _safety
    llm_server.reply('{"command": "ls -la", "explanation": "list"}\n')
    result = termwise("ask", "--json", "list files", env=model_env(llm_server))
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[-1] == "finished" and "suggestion" in kinds
    suggestion = next(e for e in events if e["event"] == "suggestion")
    assert suggestion["command"] == "ls -la" and suggestion["verdict"]["level"] == "safe"
    assert suggestion["source"] == "model"


def test_ask_model_failure_is_one_line(llm_server: LlmServer) -> None:
    """A failing model gives a one-line error and exit code 1, no traceback."""
    for _ in range(5):
        llm_server.reply(status=500, error_message="overloaded", headers={"Retry-After": "0"})
    result = termwise("ask", "anything", env=model_env(llm_server))
    assert result.returncode == 1
    assert "HTTP 500" in result.stderr and "Traceback" not in result.stderr


def test_ask_without_any_model_exits_3() -> None:
    """With no model configured and none answering, ask says how to set one up (exit 3)."""
    no_ollama()
    result = termwise("ask", "what now?", env=offline_env())
    assert result.returncode == 3
    assert "no model configured" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.requires("bash", "git")
def test_fix_uses_the_sessions_last_failure(
    serve: ServeProcess, llm_server: LlmServer, tmp_path: Path
) -> None:
    """`fix` reads the failed block from the host: rules offline, then rules plus model."""
    sid = serve.client.create("bash", str(tmp_path))["id"]
    block = serve.run_command(sid, "git psuh")
    assert block["exit_code"] == 1
    offline = termwise("fix", "--offline", "--session", sid, env=offline_env())
    assert offline.returncode == 0, offline.stderr
    assert offline.stdout.splitlines()[0].startswith("1. git push    [rules")
    llm_server.responder = _safety
    llm_server.reply(LINES)
    online = termwise("fix", env=model_env(llm_server, TERMWISE_SESSION=sid))
    assert online.returncode == 0, online.stderr
    out = online.stdout.splitlines()
    assert out[0].startswith("1. git push    [rules")
    assert any(line.startswith("2. git push -u origin main") for line in out)
    sent = llm_server.requests[0]["messages"][1]["content"]
    assert "$ git psuh" in sent and "not a git command" in sent and "Shell: bash" in sent


def test_fix_without_a_host_exits_3() -> None:
    """`fix` needs a session; with no host it says how to start one (exit 3)."""
    result = termwise("fix", "--offline", env=offline_env())
    assert result.returncode == 3
    assert "termwise serve" in result.stderr and "Traceback" not in result.stderr


def test_fix_jsonl_batch_keeps_going_after_bad_lines() -> None:
    """`fix --jsonl` answers each input line with rules suggestions, bad lines with an error."""
    lines = [
        {
            "script": "git psuh",
            "output": "git: 'psuh' is not a git command. See 'git --help'.\n\nThe most similar command is\n\tpush\n",
            "exit_code": 1,
            "shell": "bash",
        },
        "not json at all",
        {"script": 42},
        {
            "script": "python app.py",
            "output": "ModuleNotFoundError: No module named 'cv2'",
            "exit_code": 1,
        },
    ]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    result = termwise("fix", "--jsonl", input=stdin, env=offline_env())
    assert result.returncode == 0, result.stderr
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == 4
    assert out[0]["suggestions"][0] == {
        "command": "git push",
        "explanation": out[0]["suggestions"][0]["explanation"],
        "source": "rules",
    }
    assert "error" in out[1] and "error" in out[2]
    assert any("opencv-python" in s["command"] for s in out[3]["suggestions"])


def test_check_verdicts_and_exit_codes() -> None:
    """`check` prints the verdict with reasons; its exit code says safe, confirm or dangerous."""
    safe = termwise("check", "--", "ls", "-la", env=offline_env())
    assert safe.returncode == 0 and safe.stdout.startswith("safe: ls -la")
    danger = termwise("check", "--", "sudo rm -rf /", env=offline_env())
    assert danger.returncode == 11 and danger.stdout.startswith("dangerous:")
    assert "rm" in danger.stdout
    batch = termwise(
        "check",
        "--jsonl",
        input='{"command": "Remove-Item -Recurse -Force C:\\\\", "shell": "pwsh"}\n{"oops": 1}\n{"command": "git status"}\n',
        env=offline_env(),
    )
    out = [json.loads(line) for line in batch.stdout.splitlines()]
    assert out[0]["verdict"] == "dangerous" and out[0]["reasons"]
    assert "error" in out[1]
    assert out[2] == {"verdict": "safe", "reasons": out[2]["reasons"]}
    empty = termwise("check", env=offline_env())
    assert empty.returncode == 2 and "needs a command" in empty.stderr


def test_check_reads_the_platform_shell_by_default() -> None:
    """Without --shell, `check` reads the platform's shell: PowerShell on Windows, else bash."""
    wipe = termwise("check", "--", "Remove-Item -Recurse C:\\", env=offline_env())
    rm = termwise("check", "--", "rm -rf /", env=offline_env())
    if sys.platform == "win32":
        assert wipe.returncode == 11, wipe.stdout  # read as PowerShell: a drive wiped
    else:
        assert rm.returncode == 11, rm.stdout
    default = "powershell" if sys.platform == "win32" else "bash"
    assert f"(default: {default})" in termwise("check", "--help", env=offline_env()).stdout


def test_check_json_for_one_command() -> None:
    """`check --json -- CMD` prints one {"verdict", "reasons"} object and keeps the exit code;
    `--json` is never read as an abbreviation of `--jsonl` (which would print nothing)."""
    result = termwise("check", "--json", "--", "rm -rf /", env=offline_env())
    assert result.returncode == 11, result.stderr
    out = json.loads(result.stdout)
    assert out["verdict"] == "dangerous" and out["reasons"]
    assert set(out) == {"verdict", "reasons"}
    safe = termwise("check", "--json", "--", "ls", env=offline_env())
    assert safe.returncode == 0 and json.loads(safe.stdout)["verdict"] == "safe"


def test_check_jsonl_with_a_command_is_a_usage_error() -> None:
    """A command given with `--jsonl` would be ignored in batch mode: it is refused (exit 2)."""
    result = termwise("check", "--jsonl", "--", "rm -rf /", input="", env=offline_env())
    assert result.returncode == 2 and result.stdout == ""
    assert "--jsonl" in result.stderr


def test_no_option_prefix_is_accepted() -> None:
    """argparse abbreviations are off everywhere: `--js` or `--sess` is an error, not a guess."""
    prefix = termwise("check", "--js", "--", "ls", env=offline_env())
    assert prefix.returncode == 2 and "unrecognized arguments" in prefix.stderr
    nested = termwise("mem", "search", "--js", "x", env=offline_env())
    assert nested.returncode == 2


def test_redact_jsonl() -> None:
    """`redact --jsonl` returns each text as it would be sent and the kinds it replaced."""
    stdin = (
        json.dumps({"text": "token ghp_0123456789abcdefghijABCDEFGHIJklmnop and password=hunter2"})
        + "\n[]\n"
    )
    result = termwise("redact", "--jsonl", input=stdin, env=offline_env())
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert out[0] == {
        "text": "token [REDACTED:github-token] and password=[REDACTED:password]",
        "found": ["github-token", "password"],
    }
    assert "error" in out[1]


def test_config_set_key_show_and_path(termwise_home: Path) -> None:
    """set-key stores the key in the keyring (never the config file); show masks it."""
    env = offline_env(PYTHON_KEYRING_BACKEND="tests.support.file_keyring.FileKeyring")
    path = termwise("config", "path", env=env).stdout.strip()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("providers:\n  - name: ds\n    preset: deepseek\n", encoding="utf-8")
    stored = termwise(
        "config", "set-key", "ds", input="sk-0123456789abcdef0123456789abcdef\n", env=env
    )
    assert stored.returncode == 0, stored.stderr
    assert "sk-0123456789abcdef" not in Path(path).read_text()
    shown = termwise("config", "show", env=env)
    assert shown.returncode == 0, shown.stderr
    assert "sk-…cdef (keyring)" in shown.stdout
    assert "0123456789abcdef0123" not in shown.stdout
    assert "suggest: ds / deepseek-chat (temperature 0.7" in shown.stdout
    unknown = termwise("config", "set-key", "nope", input="k\n", env=env)
    assert unknown.returncode == 1 and "unknown provider 'nope'" in unknown.stderr


def test_set_key_without_a_keyring_is_a_clear_message() -> None:
    """With no keyring backend, set-key explains to use the environment variable instead."""
    env = offline_env(PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    result = termwise("config", "set-key", "openai", input="sk-abc\n", env=env)
    assert result.returncode == 1
    assert "OPENAI_API_KEY" in result.stderr and "Traceback" not in result.stderr


def test_ask_with_an_unreachable_model_exits_3() -> None:
    """A model endpoint that refuses connections is 'unavailable' (exit 3) with one line."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **offline_env(),
        "TERMWISE_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "TERMWISE_MODEL": "m",
    }
    result = termwise("ask", "hello", env=env)
    assert result.returncode == 3, result.stderr
    assert "cannot reach" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT, which Windows cannot send")
def test_ctrl_c_during_ask_closes_the_model_stream(llm_server: LlmServer) -> None:
    """Ctrl+C while the model streams ends `ask` with 130 and the server sees the stream closed."""
    import signal
    import subprocess

    from tests.tray.serve_support import TERMWISE

    llm_server.reply(LINES, chunk_size=4, stall_after=20)
    proc = subprocess.Popen(
        [*TERMWISE, "ask", "push"],
        env=model_env(llm_server),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = proc.stdout.readline() if proc.stdout else ""  # the first suggestion arrived
        assert first.startswith("1. git push -u origin main")
        assert not llm_server.wait_disconnect(0.1)
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 130
    assert llm_server.wait_disconnect(5)


@pytest.mark.requires("bash")
def test_fix_offline_with_nothing_to_fix_says_so(serve: ServeProcess, tmp_path: Path) -> None:
    """When the rules know nothing about the last block, fix says so and exits 1."""
    sid = serve.client.create("bash", str(tmp_path))["id"]
    serve.run_command(sid, "echo all good")
    result = termwise("fix", "--offline", "--session", sid, env=offline_env())
    assert result.returncode == 1
    assert result.stdout == "" and "no suggestions from the offline rules" in result.stderr


def test_set_key_stores_the_github_token_the_deploy_reader_uses(termwise_home: Path) -> None:
    """`config set-key github` keeps the token in the keyring, where `termwise deploy` finds it."""
    env = offline_env(PYTHON_KEYRING_BACKEND="tests.support.file_keyring.FileKeyring")
    stored = termwise("config", "set-key", "github", input="ghp_" + "a" * 36 + "\n", env=env)
    assert stored.returncode == 0, stored.stderr
    probe = "from termwise.agent.deploy.sources import github_token; print(github_token({}))"
    import subprocess
    import sys

    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    assert found.stdout.strip() == "ghp_" + "a" * 36, found.stderr


def test_a_reader_that_stops_early_ends_check_quietly() -> None:
    """`termwise check --jsonl … | head -1` once ended in a BrokenPipeError traceback."""
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-m", "termwise.tray.commands.cli", "check", "--jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    line = (json.dumps({"command": "ls -la", "shell": "bash"}) + "\n").encode()

    def feed() -> None:
        try:
            for _ in range(50_000):
                proc.stdin.write(line)  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        except (BrokenPipeError, ValueError):
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    first = json.loads(proc.stdout.readline())
    assert first["verdict"] == "safe"
    proc.stdout.close()  # the reader goes away, as `head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err
    writer.join(10)
