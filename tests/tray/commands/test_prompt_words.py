"""`??` typed in real bash and zsh sessions, seen through tmux, against the loopback model server."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_server import LlmServer, Reply
from tests.tray.commands.test_tmux import Tmux
from tests.tray.serve_support import ServeProcess, wait_until

pytestmark = pytest.mark.requires("tmux", "zsh")

TERMWISE = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "termwise.tray.commands.cli"))
DU = "du -ah . | sort -rh | head -20"
SUGGESTIONS = (
    json.dumps({"command": DU, "explanation": "the 20 largest files and folders"})
    + "\n"
    + json.dumps({"command": "rm -rf ./big", "explanation": "frees the space", "caveats": "gone"})
    + "\n"
)

PLAN = (
    json.dumps(
        {
            "step": 1,
            "title": "Say it is deployed",
            "why": "shows the run",
            "commands": ["echo deployed-ok"],
            "check": "test -f README.md",
        }
    )
    + "\n"
    + json.dumps({"step": 2, "title": "Clean up", "commands": ["rm -rf ./build"]})
    + "\n"
)


def _user_text(request: dict[str, Any]) -> str:
    return "\n".join(
        str(m.get("content", "")) for m in request["messages"] if m["role"] != "system"
    )


def _suggest_requests(model: LlmServer) -> list[str]:
    """What the user part of each suggestion request said (safety reviews left out)."""
    return [
        _user_text(r)
        for r in model.requests
        if not str(r["messages"][0].get("content", "")).startswith("You review one")
    ]


def _respond(request: dict[str, Any]) -> Reply:
    """The scripted model: safety reviews, a clarifying question, suggestions."""
    system = str(request["messages"][0].get("content", ""))
    text = _user_text(request)
    if system.startswith("You plan how to get a software project running"):
        return Reply(text=PLAN, chunk_size=24)
    if system.startswith("You explain one"):
        return Reply(text="du walks the folder and sorts by size.")
    if system.startswith("You review one"):
        return Reply(text='{"risk": "high", "explanation": "deletes the folder for good"}')
    if "make the thing" in text and "the docs" not in text:
        return Reply(text='{"question": "Which thing: the docs or the app?"}\n')
    if "the docs" in text:
        return Reply(text='{"command": "make docs", "explanation": "builds the docs"}\n')
    if "no-such-dir-xyz" in text and "list big files" not in text:
        return Reply(text='{"command": "ls /", "explanation": "that folder does not exist"}\n')
    return Reply(text=SUGGESTIONS, chunk_size=16)


class Words:
    """A `termwise serve` host using the loopback model, and tmux windows attached to sessions."""

    def __init__(self, serve: ServeProcess, tmux: Tmux, model: LlmServer) -> None:
        self.serve = serve
        self.tmux = tmux
        self.model = model

    def session(self, shell: str) -> tuple[str, str]:
        """A new session shown in its own tmux window; returns (session id, tmux target)."""
        sid = str(self.serve.client.create(shell=shell)["id"])
        target = f"t:s{sid}"
        self.tmux("new-window", "-t", "t", "-n", f"s{sid}", f"{TERMWISE} attach {sid}")
        self.tmux.type(target, "echo ready-$((20 + 22))")
        self.tmux.wait_for(target, "ready-42")
        return sid, target

    def keys(self, target: str, *keys: str) -> None:
        self.tmux("send-keys", "-t", target, *keys)

    def commands(self, sid: str) -> list[str]:
        return [b["command"] for b in self.serve.client.context(sid, 50)]


@pytest.fixture
def words(
    llm_server: LlmServer,
    termwise_home: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Words]:
    home = tmp_path_factory.mktemp("home")  # no user dotfiles
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TERMWISE_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("TERMWISE_MODEL", "test")
    monkeypatch.setenv("TERMWISE_API_KEY", "x")
    monkeypatch.chdir(home)
    llm_server.responder = _respond
    serve = ServeProcess(termwise_home)
    tmux = Tmux()
    try:
        tmux("new-session", "-d", "-s", "t", "-n", "hold", "-x", "110", "-y", "32", "sleep 600")
        tmux("set-option", "-g", "status", "off")
        yield Words(serve, tmux, llm_server)
    finally:
        tmux.kill()
        serve.stop()


def _on_prompt_line(screen: str, command: str) -> bool:
    """The command sits after a prompt (bash's `bash-5.2#`, zsh's `host#`) on a line of its own."""
    pattern = re.compile(r"^\S+[#$%] " + re.escape(command) + r"\s*$")
    return any(pattern.match(line) for line in screen.splitlines())


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_enter_puts_the_chosen_command_on_the_prompt_without_running_it(
    words: Words, shell: str
) -> None:
    """`?? list big files` lists numbered suggestions; `e` shows the model's explanation; Enter types #1 onto the next prompt; only the shell's own Enter runs it."""
    sid, target = words.session(shell)
    words.tmux.type(target, "?? list big files * ?")  # globs stay literal
    screen = words.tmux.wait_for(target, "2. rm -rf ./big")
    assert f"1. {DU}" in screen and "[safe · model]" in screen and "[DANGEROUS · model]" in screen
    assert "the 20 largest files" in screen and "Enter type it" in screen
    assert "list big files * ?" in _suggest_requests(words.model)[0]

    words.keys(target, "e")
    words.tmux.wait_for(target, "du walks the folder and sorts by size.")
    words.keys(target, "Enter")
    assert wait_until(lambda: _on_prompt_line(words.tmux.screen(target), DU), 20, 0.1), (
        words.tmux.screen(target)
    )
    # The `??` block has ended; the typed command has no block until Enter is pressed.
    assert wait_until(lambda: words.commands(sid)[-1] == "?? list big files * ?", 10)
    assert DU not in words.commands(sid)
    listed = subprocess.run(
        [sys.executable, "-m", "termwise.tray.commands.cli", "context", "--json", "--session", sid],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert [b["command"] for b in json.loads(listed.stdout)][-1] == "?? list big files * ?"

    after = words.serve.client.context(sid, 1)[-1]["index"]
    words.keys(target, "Enter")
    block = words.serve.client.wait_block(sid, after, 20)
    assert block is not None and block["command"] == DU and block["exit_code"] == 0


def test_r_on_a_dangerous_suggestion_asks_first(words: Words) -> None:
    """`2` then `r` on `rm -rf` shows DANGEROUS and asks; `n` runs nothing."""
    sid, target = words.session("bash")
    big = Path(os.environ["HOME"]) / "big"
    big.mkdir()
    words.tmux.type(target, "?? list big files")
    words.tmux.wait_for(target, "2. rm -rf ./big")
    words.keys(target, "2")
    words.keys(target, "r")
    screen = words.tmux.wait_for(target, "Run it?")
    assert "dangerous" in screen.lower() and "rm-recursive-force" in screen
    assert "Always allow" not in screen and "Deny (Enter)" in screen
    words.tmux.type(target, "n")
    words.tmux.wait_for(target, "termwise: not run")
    assert wait_until(lambda: words.commands(sid)[-1] == "?? list big files", 10)
    assert big.is_dir()
    assert not any(c.startswith("rm ") for c in words.commands(sid))


def test_r_on_a_safe_suggestion_runs_it_in_the_session(words: Words) -> None:
    """`r` on a safe suggestion runs it on the next prompt as the session's own command."""
    sid, target = words.session("zsh")
    words.tmux.type(target, "?? list big files")
    words.tmux.wait_for(target, "2. rm -rf ./big")
    words.keys(target, "r")
    assert wait_until(lambda: DU in words.commands(sid), 20), words.tmux.screen(target)


def test_clarifying_question_round_trip_then_suggestions(words: Words) -> None:
    """The model's question is printed, the answer typed on the next line, then suggestions come."""
    sid, target = words.session("zsh")
    words.tmux.type(target, "?? make the thing")
    words.tmux.wait_for(target, "? Which thing: the docs or the app?")
    # The answer line (capture-pane drops the space after ">").
    assert wait_until(
        lambda: any(line == ">" for line in words.tmux.screen(target).splitlines()), 10
    )
    words.tmux.type(target, "the docs")
    words.tmux.wait_for(target, "1. make docs")
    last = _suggest_requests(words.model)[-1]
    assert "Which thing: the docs or the app?" in last and "the docs" in last
    words.keys(target, "q")
    assert wait_until(lambda: words.commands(sid)[-1] == "?? make the thing", 10)


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_bare_question_marks_after_a_failure_fix_it(words: Words, shell: str) -> None:
    """`??` alone right after a failed command sends that command and its output as the question."""
    sid, target = words.session(shell)
    words.tmux.type(target, "ls /no-such-dir-xyz")
    assert wait_until(lambda: words.commands(sid)[-1] == "ls /no-such-dir-xyz", 10)
    words.tmux.type(target, "??")
    words.tmux.wait_for(target, "1. ls /")
    sent = _suggest_requests(words.model)[-1]
    assert "ls /no-such-dir-xyz" in sent and "No such file or directory" in sent
    assert "› 1." not in sent  # the picker's own output is not context
    words.keys(target, "Escape")
    assert wait_until(lambda: words.commands(sid)[-1] == "??", 10)


def test_words_exist_only_inside_termwise_sessions(words: Words) -> None:
    """Inside a session `??` and `deploy` are defined and call this installation; a plain bash has neither."""
    plain = subprocess.run(
        ["bash", "-ic", "type '??' || type deploy"], capture_output=True, text=True, timeout=30
    )
    assert plain.returncode != 0
    assert "not found" in plain.stderr

    _, target = words.session("bash")
    words.tmux.type(target, "type '??' deploy | tr -s ' '; echo cmd=$TERMWISE_CMD")
    screen = words.tmux.wait_for(target, "cmd=/")
    assert "?? is aliased to" in screen and "deploy is a function" in screen
    program = re.search(r"^cmd=(\S+)", screen, re.MULTILINE)
    assert program and os.path.samefile(program.group(1), Path(sys.executable).parent / "termwise")
    # A plain bash started inside the session does not inherit the words.
    words.tmux.type(target, "bash -ic \"type '??'\" >/dev/null 2>&1; echo nested=$?")
    words.tmux.wait_for(target, "nested=1")

    _, target = words.session("zsh")
    words.tmux.type(target, "type '??' deploy; echo done-$((6 * 7))")
    screen = words.tmux.wait_for(target, "done-42")
    assert "?? is an alias for noglob __termwise_ask" in screen
    assert "deploy is a shell function" in screen


def test_deploy_word_streams_the_plan_then_runs_it_in_this_session(words: Words) -> None:
    """`deploy ./proj` shows the plan, asks about the risky command up front, then the step runner types each command into this same session."""
    project = Path(os.environ["HOME"]) / "proj"
    (project / "build").mkdir(parents=True)
    (project / "README.md").write_text("# proj\nRun `echo deployed`.\n")
    sid, target = words.session("bash")
    words.tmux.type(target, "cd proj")
    words.tmux.type(target, "deploy .")
    screen = words.tmux.wait_for(target, "Run it here step by step?")
    assert "Say it is deployed" in screen and "echo deployed-ok" in screen
    words.tmux.type(target, "r")
    screen = words.tmux.wait_for(target, "Run it?")
    assert "rm -rf ./build" in screen
    words.tmux.type(target, "y")
    words.tmux.wait_for(target, "once the prompt is back")
    assert wait_until(lambda: "rm -rf ./build" in words.commands(sid), 60), words.tmux.screen(
        target
    )
    blocks = {b["command"]: b for b in words.serve.client.context(sid, 50)}
    assert blocks["echo deployed-ok"]["output"].strip() == "deployed-ok"
    assert blocks["test -f README.md"]["exit_code"] == 0
    assert not (project / "build").exists()
    commands = words.commands(sid)
    assert commands.index("deploy .") < commands.index("echo deployed-ok")


def test_deploy_word_refused_runs_nothing(words: Words) -> None:
    """Answering no to the risky command leaves the session untouched."""
    project = Path(os.environ["HOME"]) / "proj"
    (project / "build").mkdir(parents=True)
    (project / "README.md").write_text("# proj\n")
    sid, target = words.session("zsh")
    words.tmux.type(target, f"deploy {project}")
    words.tmux.wait_for(target, "Run it here step by step?")
    words.tmux.type(target, "r")
    words.tmux.wait_for(target, "Run it?")
    words.tmux.type(target, "n")
    words.tmux.wait_for(target, "termwise: not run")
    assert wait_until(lambda: words.commands(sid)[-1] == f"deploy {project}", 10)
    assert (project / "build").is_dir()


def test_ask_without_a_question_fixes_the_last_failure_and_stays_machine_readable(
    words: Words,
) -> None:
    """Piped, `termwise ask --json` with no question is `fix`: JSON lines from the rules for the last failure."""
    sid, _ = words.session("bash")
    block = words.serve.run_command(sid, "gti status")
    assert block["exit_code"] != 0
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "termwise.tray.commands.cli",
            "ask",
            "--offline",
            "--json",
            "--session",
            sid,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    commands = [e["command"] for e in events if e["event"] == "suggestion"]
    assert "git status" in commands
    assert events[-1] == {"event": "finished", "cancelled": False}


def test_a_terminal_without_raw_mode_gets_a_numbered_prompt(words: Words) -> None:
    """With TERM=dumb the picker falls back to a numbered prompt; `1` still types #1 onto the prompt."""
    sid, target = words.session("bash")
    words.tmux.type(target, "export TERM=dumb")
    words.tmux.type(target, "?? list big files")
    screen = words.tmux.wait_for(target, "Choose 1-2")
    assert f"1. {DU}" in screen and "2. rm -rf ./big" in screen
    words.tmux.type(target, "1")
    assert wait_until(lambda: _on_prompt_line(words.tmux.screen(target), DU), 20, 0.1), (
        words.tmux.screen(target)
    )
    assert DU not in words.commands(sid)


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_deploy_word_runs_the_plan_in_the_named_folder(words: Words, shell: str) -> None:
    """`deploy ./proj` typed in the home folder: the model is told the commands run in proj, they
    run there (not in home), and the session's terminal shows the run's outcome line."""
    project = Path(os.environ["HOME"]) / "proj"
    (project / "build").mkdir(parents=True)
    (project / "README.md").write_text("# proj\n")
    sid, target = words.session(shell)
    words.tmux.type(target, "deploy ./proj")
    words.tmux.wait_for(target, "Run it here step by step?")
    words.tmux.type(target, "r")
    words.tmux.wait_for(target, "Run it?")
    words.tmux.type(target, "n")  # deny the dangerous `rm -rf ./build`: the run goes on
    words.tmux.wait_for(target, "termwise: not run")
    assert wait_until(lambda: words.commands(sid)[-1] == "deploy ./proj", 10)
    # Refused up front: nothing ran. Now approve it this time.
    words.tmux.type(target, "deploy ./proj")
    words.tmux.wait_for(target, "Run it here step by step?")
    words.tmux.type(target, "r")
    words.tmux.wait_for(target, "Run it?")
    words.tmux.type(target, "y")
    screen = words.tmux.wait_for(target, "termwise deploy: completed", timeout=60)
    assert "log:" in screen
    words.tmux.type(target, "echo after-$((40 + 2))")  # the prompt still works after the notice
    assert wait_until(lambda: words.commands(sid)[-1] == "echo after-$((40 + 2))", 20)
    blocks = {b["command"]: b for b in words.serve.client.context(sid, 50)}
    assert blocks["echo deployed-ok"]["cwd"] == str(project)
    assert blocks["test -f README.md"]["exit_code"] == 0  # the check found proj's README
    assert not (project / "build").exists()
    plan_requests = [
        r for r in words.model.requests if "plan how to get" in str(r["messages"][0]["content"])
    ]
    assert plan_requests and f"Every command runs in {project}" in _user_text(plan_requests[-1])
