"""Ctrl-C while `termwise ask` or a deploy plan streams from a stalled model: it stops at
once, closes the stream and exits 130, wherever in the process the signal lands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.llm_server import LlmServer
from tests.tray.commands.test_cli_deploy import model_env, project, write_config
from tests.tray.serve_support import TERMWISE

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals (SIGINT by pid)")

SUGGESTION = '{"command": "ls -la", "explanation": "list"}\n'
STEP = '{"step": 1, "title": "Build", "commands": ["make"]}\n'


def _main_thread(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)


def _another_thread(proc: subprocess.Popen[str]) -> None:
    """The Ctrl-C the main thread does not see: the kernel hands it to another thread,
    so the main thread's read of the stalled stream is never interrupted."""
    others = [int(t) for t in os.listdir(f"/proc/{proc.pid}/task") if int(t) != proc.pid]
    assert others, "no other thread to take the signal"
    os.kill(others[0], signal.SIGINT)


SENDERS = [
    pytest.param(_main_thread, id="main-thread"),
    pytest.param(
        _another_thread,
        id="another-thread",
        marks=pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc tasks"),
    ),
]


def _interrupt_after(kind: str, argv: list[str], env: dict[str, str], send: Callable) -> list[dict]:
    """Run `termwise ARGV`, send the interrupt once an event of `kind` is out; the events."""
    proc = subprocess.Popen(
        [*TERMWISE, *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        before = [json.loads(proc.stdout.readline())]
        while before[-1]["event"] != kind:
            before.append(json.loads(proc.stdout.readline()))
        send(proc)
        out, err = proc.communicate(timeout=15)  # the stall would last until the deadline
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    return before + [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.mark.parametrize("send", SENDERS)
def test_ctrl_c_stops_a_stalled_answer_to_ask(llm_server: LlmServer, send: Callable) -> None:
    write_config("")
    llm_server.reply(SUGGESTION + '{"command": "ls', chunk_size=len(SUGGESTION), stall_after=1)
    events = _interrupt_after(
        "suggestion", ["ask", "--json", "list files"], model_env(llm_server), send
    )
    assert llm_server.wait_disconnect(5), "the stream was left open"
    shown = [e for e in events if e["event"] == "suggestion"]
    assert [e["command"] for e in shown] == ["ls -la"]  # what came before the stall stays shown
    assert "finished" not in [e["event"] for e in events]


@pytest.mark.parametrize("send", SENDERS)
def test_ctrl_c_stops_a_stalled_deploy_plan(
    tmp_path: Path, llm_server: LlmServer, send: Callable
) -> None:
    write_config("")
    llm_server.reply(STEP + '{"step": 2, "ti', chunk_size=len(STEP), stall_after=1)
    argv = ["deploy", str(project(tmp_path)), "--json", "--shell", "bash"]
    events = _interrupt_after("step", argv, model_env(llm_server), send)
    assert llm_server.wait_disconnect(5), "the stream was left open"
    kinds = [e["event"] for e in events]
    assert kinds[0] == "repository" and "saved" not in kinds
    assert events[-1]["event"] == "note" and "interrupted" in events[-1]["text"]
