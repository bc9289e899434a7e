"""`termwise deploy` as a real subprocess: JSON lines, no model, plain text, and --run in a host."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from termwise.agent.base.paths import resolve_paths

from tests.support.github_server import FakeGitHub
from tests.support.llm_server import LlmServer
from tests.tray.serve_support import TERMWISE, ServeProcess, serve_fixture, termwise

PLAN = (
    '{"step": 1, "title": "Make the output folder", "why": "the app writes there", '
    '"commands": ["mkdir -p out"], "check": "test -d out", "notes": ""}\n'
    '{"step": 2, "title": "Write the marker", "why": "", '
    '"commands": ["echo deployed > out/marker.txt"], "check": "test -s out/marker.txt"}\n'
    '{"step": 3, "title": "Clean old build", "why": "", "commands": ["rm -rf ./build-output"]}\n'
)


def model_env(server: LlmServer, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "TERMWISE_BASE_URL": server.base_url,
        "TERMWISE_MODEL": "test",
        "TERMWISE_API_KEY": "x",
        **extra,
    }


def offline_env() -> dict[str, str]:
    return {
        k: v for k, v in os.environ.items() if not k.startswith("TERMWISE_") or k == "TERMWISE_HOME"
    }


def write_config(text: str) -> None:
    """The subprocess's config file (also keeps a local Ollama out of the tests)."""
    path = resolve_paths().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("llm:\n  probe_ollama: false\n" + text, encoding="utf-8")


def project(root: Path) -> Path:
    repo = root / "webapp"
    repo.mkdir()
    (repo / "README.md").write_text("# webapp\n\nRun `make` then `./webapp`.\n")
    (repo / "Makefile").write_text("all:\n\ttrue\n")
    return repo


def lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


def test_json_lines_stream_the_plan_and_say_where_it_is_saved(
    tmp_path: Path, llm_server: LlmServer
) -> None:
    """--json prints the repository, each step with verdicts, and the saved path; exit 0."""
    llm_server.reply(PLAN)
    result = termwise(
        "deploy", str(project(tmp_path)), "--json", "--shell", "bash", env=model_env(llm_server)
    )
    assert result.returncode == 0, result.stderr
    events = lines(result.stdout)
    assert [e["event"] for e in events] == ["repository", "step", "step", "step", "saved"]
    assert events[0]["name"] == "webapp" and events[0]["files"] == ["Makefile"]
    assert events[3]["commands"] == [
        {
            "command": "rm -rf ./build-output",
            "verdict": "dangerous",
            "reasons": events[3]["commands"][0]["reasons"],
        }
    ]
    assert events[3]["commands"][0]["reasons"]
    saved = Path(events[-1]["path"])
    assert saved.parent == resolve_paths().deploy_dir and events[-1]["steps"] == 3
    assert "## Step 2: Write the marker" in saved.read_text()
    assert "Run `make`" in llm_server.requests[-1]["messages"][1]["content"]


def test_the_plan_is_asked_with_its_schema_and_streams_step_by_step(
    tmp_path: Path, llm_server: LlmServer
) -> None:
    """The request carries the plan's schema; a schema-shaped answer that stalls after its
    first step still shows that step, and the deadline is reported."""
    write_config("  answer_deadline: 3\n")
    first = json.dumps({"title": "Make the output folder", "why": "", "commands": ["mkdir -p out"]})
    head = '{\n  "steps": [\n    ' + first + ",\n"
    llm_server.reply(
        head + '    {"title": "Write the marker", "commands": ["echo"]}]}',
        chunk_size=1,
        stall_after=len(head) + 4,
        keepalive=0.2,
    )
    result = termwise(
        "deploy", str(project(tmp_path)), "--json", "--shell", "bash", env=model_env(llm_server)
    )
    events = lines(result.stdout)
    steps = [e for e in events if e["event"] == "step"]
    assert [s["title"] for s in steps] == ["Make the output folder"], result.stdout
    assert "answer deadline" in result.stderr + result.stdout and "Traceback" not in result.stderr
    sent = llm_server.requests[0]["response_format"]
    assert sent["json_schema"]["name"] == "deploy_plan"


def test_without_a_model_the_summary_is_shown_and_exit_is_3(tmp_path: Path) -> None:
    """No model: the repository summary still prints, then one line says a model is needed."""
    write_config("")
    result = termwise("deploy", str(project(tmp_path)), env=offline_env())
    assert result.returncode == 3
    assert "Repository: webapp" in result.stdout and "manifests: Makefile" in result.stdout
    assert "a model is needed for the plan" in result.stderr and "Traceback" not in result.stderr


def test_github_errors_are_one_line(tmp_path: Path, llm_server: LlmServer) -> None:
    """A rate-limited or missing GitHub repository is one clear line and exit 1."""
    fake = FakeGitHub().start()
    try:
        fake.repos["acme/webapp"] = project(tmp_path)
        write_config(f"deploy:\n  github_api: {fake.api}\n")
        missing = termwise("deploy", "acme/nothing", env=model_env(llm_server))
        assert missing.returncode == 1 and "acme/nothing not found" in missing.stderr
        fake.rate_limited = True
        limited = termwise("deploy", "https://github.com/acme/webapp", env=model_env(llm_server))
        assert limited.returncode == 1 and "rate limit is used up until" in limited.stderr
        assert "Traceback" not in missing.stderr + limited.stderr
    finally:
        fake.stop()
    assert llm_server.requests == []


def test_plain_text_plan_for_a_github_repo(tmp_path: Path, llm_server: LlmServer) -> None:
    """Plain output shows the steps with risk marks and the saved file."""
    fake = FakeGitHub().start()
    try:
        fake.repos["acme/webapp"] = project(tmp_path)
        write_config(f"deploy:\n  github_api: {fake.api}\n")
        llm_server.reply(PLAN)
        result = termwise("deploy", "acme/webapp", "--shell", "bash", env=model_env(llm_server))
    finally:
        fake.stop()
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Repository: webapp (https://github.com/acme/webapp, github)" in out
    assert "Step 3: Clean old build" in out and "! $ rm -rf ./build-output   [dangerous]" in out
    assert "check: test -s out/marker.txt" in out and "Plan (3 steps) saved to" in out


@pytest.mark.requires("bash")
def test_run_in_a_new_session_asks_and_completes(
    serve: ServeProcess, tmp_path: Path, llm_server: LlmServer
) -> None:
    """--run plans, then runs in a new bash session of the host; answers come from stdin. A denied
    step makes the outcome say so and the exit code 1; a plain deny is not remembered."""
    llm_server.reply(PLAN)
    repo = project(tmp_path)
    (repo / "build-output").mkdir()
    # mkdir (confirm) once, echo > (confirm) once, rm -rf (dangerous) denied.
    result = termwise(
        "deploy", str(repo), "--json", "--run", "--yes-safe", "--shell", "bash",
        env=model_env(llm_server), input="y\nonce\nn\n", timeout=90,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    events = lines(result.stdout)
    asked = [(e["command"], e["verdict"]) for e in events if e["event"] == "approval"]
    assert asked == [
        ("mkdir -p out", "confirm"),
        ("echo deployed > out/marker.txt", "confirm"),
        ("rm -rf ./build-output", "dangerous"),
    ]
    assert (repo / "out" / "marker.txt").read_text() == "deployed\n"
    assert (repo / "build-output").is_dir()
    finished = events[-1]
    assert finished["event"] == "finished"
    assert finished["outcome"] == "completed, 1 step denied"
    dangerous = next(e for e in events if e["event"] == "approval" and e["verdict"] == "dangerous")
    assert dangerous["default"] == "deny" and "always" not in dangerous["answers"]
    assert "pattern" not in dangerous["answers"]
    assert not (serve.home / "config" / "approvals.yaml").exists()
    log = Path(finished["log"]).read_text()
    assert "$ echo deployed > out/marker.txt" in log and "- denied: `rm -rf ./build-output`" in log
    session = finished["session"]
    ran = [b["command"] for b in serve.client.context(session, 10)]
    assert ran == [
        "mkdir -p out",
        "test -d out",
        "echo deployed > out/marker.txt",
        "test -s out/marker.txt",
    ]


def test_run_refuses_its_own_session(tmp_path: Path, llm_server: LlmServer) -> None:
    """Running the plan in the session the command itself runs in is refused with a reason."""
    env = model_env(llm_server, TERMWISE_SESSION="7")
    result = termwise("deploy", str(project(tmp_path)), "--run", "--session", "7", env=env)
    assert result.returncode == 2 and "session this command runs in" in result.stderr


@pytest.mark.requires("bash")
def test_ctrl_c_stops_the_run_cleanly(
    serve: ServeProcess, tmp_path: Path, llm_server: LlmServer
) -> None:
    """SIGINT while a step runs: Ctrl+C reaches the session, the run ends stopped, exit 130."""
    llm_server.reply(
        '{"title": "Wait", "commands": ["sleep 30"]}\n{"title": "After", "commands": ["echo after"]}\n'
    )
    proc = subprocess.Popen(
        [
            *TERMWISE,
            "deploy",
            str(project(tmp_path)),
            "--json",
            "--run",
            "--yes-safe",
            "--shell",
            "bash",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=model_env(llm_server),
    )
    try:
        assert proc.stdout is not None
        seen: list[dict[str, Any]] = []
        for line in proc.stdout:
            seen.append(json.loads(line))
            if seen[-1].get("kind") == "command":
                break
        session = next(e["text"] for e in seen if e["event"] == "note" and "session" in e["text"])
        session_id = session.split("session ")[1].split(" ")[0]
        pid = next(s["pid"] for s in serve.client.sessions() if s["id"] == session_id)
        deadline = time.monotonic() + 10
        while "sleep" not in child_commands(pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # Ctrl+C must come while the sleep really runs
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 130, err
    finished = [json.loads(line) for line in out.splitlines() if line.strip()][-1]
    assert finished["event"] == "finished" and finished["outcome"].startswith("stopped")
    assert "Traceback" not in err
    last = serve.client.context(session_id, 1)[-1]
    assert last["command"] == "sleep 30" and last["exit_code"] == 130
    assert "echo after" not in Path(finished["log"]).read_text()


def child_commands(pid: int) -> list[str]:
    """Names of a process's children (Linux /proc)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return [Path(f"/proc/{c}/comm").read_text().strip() for c in children]
    except OSError:
        return []


@pytest.mark.requires("bash")
def test_run_in_a_chosen_session(
    serve: ServeProcess, tmp_path: Path, llm_server: LlmServer
) -> None:
    """--session runs the plan in that existing session, in its shell, with no question for safe commands."""
    repo = project(tmp_path)
    info = serve.client.create(shell="bash", cwd=str(repo))
    llm_server.reply('{"title": "Look", "commands": ["ls"], "check": "test -f Makefile"}\n')
    result = termwise(
        "deploy", str(repo), "--run", "--session", str(info["id"]), "--yes-safe",
        env=model_env(llm_server), timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Run completed" in result.stdout and "Run it?" not in result.stdout
    assert "planning for bash" in result.stdout.lower()
    ran = [b["command"] for b in serve.client.context(str(info["id"]), 5)]
    assert ran == ["ls", "test -f Makefile"]


def test_a_chosen_session_needs_a_running_host(tmp_path: Path, llm_server: LlmServer) -> None:
    """--session without any host is one line and exit 3; nothing is planned."""
    result = termwise(
        "deploy", str(project(tmp_path)), "--run", "--session", "1", env=model_env(llm_server)
    )
    assert result.returncode == 3 and "no Termwise host is running" in result.stderr
    assert llm_server.requests == []
