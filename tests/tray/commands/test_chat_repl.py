"""`termwise chat` in a real PTY against the loopback model server."""

from __future__ import annotations

import json
import os
import select
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from termwise.agent.base.config import write_config
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.memory.store import MemoryStore

from tests.support.llm_server import LlmServer, ToolCall

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX PTY")


class Term:
    """A process in a PTY whose output we wait on, with deadlines rather than sleeps."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        # Imported here: ptyprocess is installed on POSIX only, and collecting this file
        # must work on Windows too (where the module's skip applies).
        from ptyprocess import PtyProcess

        self.proc = PtyProcess.spawn(argv, cwd=str(cwd), env=env, dimensions=(40, 200))
        self.output = ""
        self.mark = 0

    def expect(self, text: str, timeout: float = 20.0) -> str:
        """Wait until `text` appears after the last match; returns the output in between."""
        deadline = time.monotonic() + timeout
        while True:
            at = self.output.find(text, self.mark)
            if at != -1:
                seen = self.output[self.mark : at + len(text)]
                self.mark = at + len(text)
                return seen
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no {text!r} within {timeout}s; got:\n{self.output[self.mark :]}"
                )
            self.pump(min(left, 0.5))

    def pump(self, wait: float) -> bool:
        ready, _, _ = select.select([self.proc.fd], [], [], wait)
        if not ready:
            return False
        try:
            data = self.proc.read(65536)
        except EOFError:
            return False
        self.output += data.decode("utf-8", errors="replace").replace("\r\n", "\n")
        return True

    def send(self, line: str) -> None:
        self.proc.write((line + "\r").encode())

    def close(self) -> None:
        if self.proc.isalive():
            self.proc.terminate(force=True)


@pytest.fixture
def chat_env(tmp_path: Path, termwise_home: Path, llm_server: LlmServer) -> dict[str, Any]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the deploy key is on the blue USB stick\n", encoding="utf-8")
    config = Config()
    config.skills.allowed_folders = [str(work)]
    config.llm.probe_ollama = False
    paths = resolve_paths()
    paths.ensure()
    write_config(config, paths.config_file)
    MemoryStore(paths.memory_dir).upsert(
        "pref:answer_style", "profile", "prefers short answers with examples"
    )
    env = {
        **os.environ,
        "TERMWISE_BASE_URL": llm_server.base_url,
        "TERMWISE_MODEL": "test",
        "TERMWISE_API_KEY": "x",
        "TERM": "dumb",
    }
    return {"work": work, "env": env}


def _tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def test_chat_repl_end_to_end(chat_env: dict[str, Any], llm_server: LlmServer) -> None:
    """Streaming answers, a tool call round-trip, a refused path, /mem, /reset, /model and /exit."""
    term = Term(
        [sys.executable, "-m", "termwise.tray.commands.cli", "chat"],
        chat_env["work"],
        chat_env["env"],
    )
    try:
        term.expect("Termwise chat with test at")
        term.expect("you> ")

        # 1. A streamed answer: the first piece is on screen before the last one is sent.
        llm_server.reply(text="Short answers it is, friend!", chunk_size=6, chunk_delay=0.4)
        term.send("Do you know how I like my answers?")
        term.expect("termwise> Short ")
        assert "friend!" not in term.output
        term.expect("friend!")
        term.expect("you> ")
        first = llm_server.requests[0]
        assert first["stream"] is True
        assert "pref:answer_style" in first["messages"][0]["content"]
        assert {t["function"]["name"] for t in first["tools"]} >= {"file_read", "run_readonly"}

        # 2. /mem shows the memory used for that answer.
        term.send("/mem")
        assert "- pref:answer_style (profile" in term.expect("you> ")

        # 3. A tool call: the model reads a file, gets the content back and answers.
        llm_server.reply(tool_calls=[ToolCall("file_read", json.dumps({"path": "notes.txt"}))])
        llm_server.reply(text="Your notes say: blue USB stick.")
        term.send("What is in notes.txt?")
        shown = term.expect("Your notes say: blue USB stick.")
        assert '→ file_read {"path": "notes.txt"}' in shown
        term.expect("you> ")
        assert llm_server.wait_requests(3, 10)
        round_trip = llm_server.requests[2]
        assert any("blue USB stick" in m for m in _tool_messages(round_trip))
        assert round_trip["messages"][-2]["tool_calls"][0]["function"]["name"] == "file_read"
        # The earlier exchange is in the short-term context.
        assert any(
            m.get("content") == "Short answers it is, friend!" for m in round_trip["messages"]
        )

        # 4. A file outside the allowed folders is refused, and both user and model hear why.
        llm_server.reply(tool_calls=[ToolCall("file_read", json.dumps({"path": "/etc/passwd"}))])
        llm_server.reply(text="I may not read that file.")
        term.send("show me /etc/passwd")
        shown = term.expect("I may not read that file.")
        assert "✗ file_read: refused: /etc/passwd is outside the folders skills may use" in shown
        assert llm_server.wait_requests(5, 10)
        [refusal] = _tool_messages(llm_server.requests[4])
        assert refusal.startswith("ERROR: refused") and "root:" not in refusal
        term.expect("you> ")

        # 5. /reset clears the short-term history: the next request carries no old turns.
        term.send("/reset")
        term.expect("(short-term history cleared)")
        llm_server.reply(text="Fresh start.")
        term.send("hello again")
        term.expect("Fresh start.")
        assert llm_server.wait_requests(6, 10)
        roles = [m["role"] for m in llm_server.requests[5]["messages"]]
        assert roles == ["system", "user"]

        # 6. /model names the model; /exit leaves with status 0.
        term.send("/model")
        term.expect(f"test at {llm_server.base_url}")
        term.send("/exit")
        deadline = time.monotonic() + 15
        while term.proc.isalive() and time.monotonic() < deadline:
            term.pump(0.2)
        assert not term.proc.isalive()
        assert term.proc.exitstatus == 0
    finally:
        term.close()


def test_chat_without_a_model_says_so(chat_env: dict[str, Any]) -> None:
    """With no model configured chat exits with status 3 and tells how to set one up."""
    env = {
        k: v
        for k, v in chat_env["env"].items()
        if not k.startswith("TERMWISE_") or k == "TERMWISE_HOME"
    }
    term = Term([sys.executable, "-m", "termwise.tray.commands.cli", "chat"], chat_env["work"], env)
    try:
        term.expect("chat needs a model")
        deadline = time.monotonic() + 15
        while term.proc.isalive() and time.monotonic() < deadline:
            term.pump(0.2)
        assert term.proc.exitstatus == 3
    finally:
        term.close()


def _interrupt_a_stalled_answer(
    chat_env: dict[str, Any], llm_server: LlmServer, interrupt: Callable[[Term], None]
) -> None:
    """A chat whose answer stalls after its first words is interrupted by `interrupt`:
    "(interrupted)" shows, the stream is closed, and the next question is answered."""
    term = Term(
        [sys.executable, "-m", "termwise.tray.commands.cli", "chat"],
        chat_env["work"],
        chat_env["env"],
    )
    try:
        term.expect("you> ")
        llm_server.reply(
            text="This answer never ends because the server stalls", chunk_size=5, stall_after=2
        )
        term.send("tell me a long story")
        term.expect("termwise> This answe")
        interrupt(term)
        term.expect("(interrupted)", 10)
        assert llm_server.wait_disconnect(10)
        term.expect("you> ")
        llm_server.reply(text="Still here.")
        term.send("are you there?")
        term.expect("Still here.")
        term.send("/exit")
    finally:
        term.close()


def test_ctrl_c_stops_an_answer_and_the_chat_goes_on(
    chat_env: dict[str, Any], llm_server: LlmServer
) -> None:
    """Ctrl-C during a stalled answer stops it, closes the stream and returns to the prompt."""
    _interrupt_a_stalled_answer(chat_env, llm_server, lambda term: term.proc.write(b"\x03"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals a thread by its id")
def test_ctrl_c_that_misses_the_blocked_main_thread_still_stops_the_answer(
    chat_env: dict[str, Any], llm_server: LlmServer
) -> None:
    """The Ctrl-C a user can lose: it lands on another thread (or just before the main
    thread blocks in its read), so the read of a stalled answer is never interrupted.
    It still stops the answer, and the chat goes on."""
    import signal

    def to_another_thread(term: Term) -> None:
        pid = term.proc.pid
        others = [int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid]
        assert others, "the chat runs no other thread to take the signal"
        os.kill(others[0], signal.SIGINT)  # delivered to that thread, not the main one

    _interrupt_a_stalled_answer(chat_env, llm_server, to_another_thread)
