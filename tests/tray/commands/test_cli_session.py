"""The session command line as a user runs it: real `termwise` subprocesses, real host, real shells."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.support.tools import params
from tests.support.wine_limits import wine_limit
from tests.tray.serve_support import (
    ServeProcess,
    commands,
    pid_alive,
    termwise,
    wait_until,
)

pytestmark = pytest.mark.usefixtures("plain_home")


SHELLS = params("bash", "zsh")
ALT_PROGRAM = "tput smcup; echo ALT-SCREEN-$((40 + 2)); sleep 0.2; tput rmcup"


@pytest.mark.parametrize("shell", SHELLS)
def test_context_json_reports_each_command(serve: ServeProcess, shell: str, tmp_path: Path) -> None:
    """`termwise context --json` lists the commands with exit codes, cwd, clean progress output, no alt-screen text."""
    info = serve.client.create(shell, str(tmp_path))
    sid = info["id"]
    typed = ["echo hi", "ls /nonexistent", "cd /tmp", "printf 'a\\rb\\rdone\\n'", ALT_PROGRAM]
    for command in typed:
        before = serve.client.context(sid, 1)
        after = before[-1]["index"] if before else -1
        sent = termwise("send", "--session", sid, "--enter", command)
        assert sent.returncode == 0, sent.stderr
        assert serve.client.wait_block(sid, after, 15) is not None, command
    result = termwise("context", "--json", "--blocks", "5", "--session", sid)
    assert result.returncode == 0, result.stderr
    blocks = json.loads(result.stdout)
    assert commands(blocks) == typed
    assert [b["exit_code"] for b in blocks] == [0, 2, 0, 0, 0]
    assert [b["cwd"] for b in blocks] == [str(tmp_path), str(tmp_path), "/tmp", "/tmp", "/tmp"]
    assert blocks[0]["output"] == "hi"
    assert "No such file or directory" in blocks[1]["output"]
    assert blocks[3]["output"] == "done"
    assert "ALT-SCREEN-42" not in result.stdout
    assert set(blocks[0]) == {"command", "exit_code", "cwd", "output", "started", "ended"}
    assert all(b["started"] <= b["ended"] for b in blocks)
    assert [b["started"] for b in blocks] == sorted(b["started"] for b in blocks)


@wine_limit("no-posix-tools")
def test_context_defaults_to_termwise_session_then_active(serve: ServeProcess) -> None:
    """Without --session, $TERMWISE_SESSION wins, then the active session."""
    first = serve.client.create("bash")["id"]
    second = serve.client.create("bash")["id"]
    serve.run_command(first, "echo in-first")
    serve.run_command(second, "echo in-second")  # `send` made the second one active
    plain = json.loads(termwise("context", "--json", "--blocks", "1").stdout)
    assert commands(plain) == ["echo in-second"]
    import os

    env = {**os.environ, "TERMWISE_SESSION": first}
    pinned = json.loads(termwise("context", "--json", "--blocks", "1", env=env).stdout)
    assert commands(pinned) == ["echo in-first"]
    text = termwise("context", "--blocks", "1", env=env).stdout
    assert "$ echo in-first" in text and "in-first" in text and "[exit 0 ·" in text


@wine_limit("no-posix-tools")
def test_send_enter_appears_as_the_next_block(serve: ServeProcess) -> None:
    """`termwise send --enter 'echo sent'` becomes the session's next block."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "echo first")
    result = termwise("send", "--enter", "echo sent")
    assert result.returncode == 0, result.stderr
    assert wait_until(lambda: commands(serve.client.context(sid, 1)) == ["echo sent"])
    block = serve.client.context(sid, 1)[-1]
    assert block["output"] == "sent" and block["exit_code"] == 0


@wine_limit("no-posix-tools")
def test_sessions_lists_running_sessions(serve: ServeProcess) -> None:
    """`termwise sessions` shows each session; `--json` gives machine-readable rows."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "echo listed")
    table = termwise("sessions")
    assert table.returncode == 0
    assert "bash" in table.stdout and "echo listed" in table.stdout and "running" in table.stdout
    rows = json.loads(termwise("sessions", "--json").stdout)
    assert [(r["id"], r["shell"], r["alive"]) for r in rows] == [(sid, "bash", True)]


@wine_limit("no-posix-tools")
def test_unknown_session_lists_running_ones(serve: ServeProcess) -> None:
    """An unknown session id says so and names the running sessions."""
    sid = serve.client.create("bash")["id"]
    for args in (["context", "--session", "99"], ["send", "--session", "99", "x"]):
        result = termwise(*args)
        assert result.returncode == 1
        assert f"no session '99'; running: {sid}" in result.stderr


def test_unknown_and_missing_shells_are_explained(serve: ServeProcess) -> None:
    """An unknown shell name lists the available shells; a missing binary is named."""
    unknown = termwise("shell", "--shell", "fish-9000")
    assert unknown.returncode != 0
    assert "fish-9000" in unknown.stderr and "bash" in unknown.stderr and "zsh" in unknown.stderr
    missing = termwise("shell", "--shell", "pwsh")
    assert missing.returncode != 0
    assert "pwsh" in missing.stderr and "not installed" in missing.stderr
    assert serve.client.sessions() == []


def test_commands_without_a_host_say_how_to_start_one() -> None:
    """With no host, context/sessions/send exit 3 and say how to start one."""
    for args in (["context"], ["context", "--json"], ["sessions"], ["send", "hello"]):
        result = termwise(*args)
        assert result.returncode == 3, args
        assert "termwise serve" in result.stderr
        assert "Traceback" not in result.stderr


@wine_limit("no-posix-tools")
def test_serve_logs_its_address_and_ends_sessions_on_sigterm(serve: ServeProcess) -> None:
    """`serve` says where it listens; SIGTERM ends its shells and removes the socket."""
    # It answers pings a moment before the line is out.
    assert wait_until(lambda: "listening on" in serve.stderr())
    address = serve.stderr().split("listening on ")[1].split(" ")[0]
    assert Path(address).exists()
    pid = serve.client.create("bash")["pid"]
    assert serve.stop(signal.SIGTERM) == 0
    assert wait_until(lambda: not pid_alive(pid))
    assert not Path(address).exists()


@wine_limit("no-posix-tools")
def test_serve_exits_cleanly_on_sigint(serve: ServeProcess) -> None:
    """Ctrl+C (SIGINT) stops the host with exit code 0 too."""
    pid = serve.client.create("zsh" if "zsh" in SHELLS else "bash")["pid"]
    assert serve.stop(signal.SIGINT) == 0
    assert wait_until(lambda: not pid_alive(pid))


@wine_limit("first-pipe-instance")
def test_second_serve_is_refused(serve: ServeProcess) -> None:
    """A second host for the same user says one is already running."""
    second = termwise("serve", timeout=30)
    assert second.returncode == 1
    assert "already listens" in second.stderr
    assert serve.client.ping() == serve.proc.pid


@wine_limit("no-posix-tools")
def test_context_as_sent(serve: ServeProcess) -> None:
    """`--as-sent` prints the prompt text the model would get, built from the blocks."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "ls /nonexistent-for-as-sent")
    result = termwise("context", "--as-sent", "--session", sid)
    assert result.returncode == 0, result.stderr
    assert "ls /nonexistent-for-as-sent" in result.stdout


@wine_limit("no-posix-tools")
def test_dead_session_is_reported_not_hidden(serve: ServeProcess) -> None:
    """After its shell exits, a session is listed as exited; send and attach say it has ended."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "echo last-words")
    serve.client.send(sid, "exit 4", enter=True)
    assert wait_until(lambda: not serve.client.sessions()[0]["alive"])
    assert "exited 4" in termwise("sessions").stdout
    sent = termwise("send", "--session", sid, "hello")
    assert sent.returncode == 1 and f"session {sid} has ended" in sent.stderr
    attached = termwise("attach", sid)
    assert attached.returncode == 1 and f"session {sid} has ended (exit code 4)" in attached.stderr
    kept = json.loads(termwise("context", "--json", "--session", sid).stdout)
    # What happened stays readable, down to the command that ended the shell.
    assert kept[-2]["output"] == "last-words"
    assert (kept[-1]["command"], kept[-1]["exit_code"]) == ("exit 4", 4)


def test_text_context_shows_times_and_falls_back_to_the_screen() -> None:
    """Plain `context` shows command, output, exit code, folder and times; without marks, the last screen."""
    from termwise.tray.commands.session import render_context
    from termwise.tray.ipc.client import ContextReply

    block = {"command": "make", "output": "done", "exit_code": 2, "cwd": "/src",
             "started": 1000.0, "ended": 1001.5, "index": 0}  # fmt: skip
    info = {"id": "3", "shell": "bash", "cwd": "/src"}
    text = render_context(
        ContextReply([block], session=info, has_marks=True, screen_text="", os_name="Linux")
    )
    assert "$ make\ndone\n[exit 2 · /src · " in text and "(1.50 s)]" in text
    bare = ContextReply([], session={**info, "shell": "wsl"}, has_marks=False,
                        screen_text="user@box:~$ ls\nfile.txt\n", os_name="Linux")  # fmt: skip
    assert "no command marks" in render_context(bare)
    assert "user@box:~$ ls\nfile.txt" in render_context(bare)


@pytest.mark.parametrize("shell", SHELLS)
def test_send_replaces_pending_text(serve: ServeProcess, shell: str) -> None:
    """With `echo PENDING-` half-typed, `send` types the command in its place and `send --enter`
    runs exactly the command: `termwise context` shows no appended text."""
    sid = serve.client.create(shell)["id"]
    serve.run_command(sid, "echo first")
    serve.client.send(sid, "echo PENDING-")
    typed = termwise("send", "--session", sid, "echo typed-$((6*7))")
    assert typed.returncode == 0, typed.stderr
    before = serve.client.context(sid, 1)[-1]["index"]
    pressed = termwise("send", "--raw", "--session", sid, "--enter", "")
    assert pressed.returncode == 0, pressed.stderr
    assert serve.client.wait_block(sid, before, 15) is not None
    serve.client.send(sid, "echo PENDING-")
    ran = termwise("send", "--session", sid, "--enter", "echo ran-exactly")
    assert ran.returncode == 0, ran.stderr
    assert wait_until(lambda: commands(serve.client.context(sid, 1)) == ["echo ran-exactly"])
    blocks = json.loads(termwise("context", "--json", "--session", sid).stdout)
    assert commands(blocks)[-3:] == ["echo first", "echo typed-$((6*7))", "echo ran-exactly"]
    assert [b["output"] for b in blocks[-2:]] == ["typed-42", "ran-exactly"]


@wine_limit("no-posix-tools")
def test_send_enter_refuses_what_it_cannot_run_exactly(serve: ServeProcess) -> None:
    """A multi-line command or one bash would rewrite (`!!`) is not run: exit 1 with the reason."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "echo first")
    two = termwise("send", "--session", sid, "--enter", "echo a\nrm -rf /tmp/nothing")
    assert two.returncode == 1 and "more than one line" in two.stderr
    bang = termwise("send", "--session", sid, "--enter", "echo !!")
    assert bang.returncode == 1 and "history expansion" in bang.stderr
    info = json.loads(termwise("sessions", "--json").stdout)
    assert info[0]["can_run_exact"] is True
    serve.run_command(sid, "echo after")
    assert commands(serve.client.context(sid, 5))[-2:] == ["echo first", "echo after"]
