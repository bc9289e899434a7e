"""Plans run in a REAL bash session through the real SessionHost: repair, loops, approvals, log."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.agent.deploy.fixer import StepFixer, chain
from termwise.agent.deploy.plan import Plan, Step, log_path_for, plan_markdown, save_plan
from termwise.agent.deploy.runner import (
    CommandSent,
    PlanRunner,
    RunEvent,
    RunFinished,
    StepStarted,
)
from termwise.agent.llm.factory import make_client
from termwise.agent.safety import classify
from termwise.agent.safety.approval_flow import ApprovalRequest
from termwise.agent.safety.approvals import ApprovalStore
from termwise.tray.host.deploy_session import LocalSessionPort
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy

from tests.support.llm_server import LlmServer
from tests.support.wine_limits import wine_limit

SECRET = "AKIA" + "QWERTYUIOPASDFGH"
FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)


@pytest.fixture
def host(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[SessionHost]:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))  # no dotfiles of the machine
    h = SessionHost(Config(), resolve_paths().ensure(), termination=FAST_END)
    try:
        yield h
    finally:
        h.shutdown()


def poll(predicate: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def child_commands(pid: int) -> list[str]:
    """Names of a process's children (Linux /proc)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return [Path(f"/proc/{c}/comm").read_text().strip() for c in children]
    except OSError:
        return []


class Harness:
    """A runner on a real bash session with the loopback model as fixer; records what happened."""

    def __init__(self, host: SessionHost, cwd: Path, llm_server: LlmServer, plan: Plan) -> None:
        env = {
            "TERMWISE_BASE_URL": llm_server.base_url,
            "TERMWISE_MODEL": "test",
            "TERMWISE_API_KEY": "x",
        }
        client = make_client(Config(), env)
        assert client is not None
        self.session = host.create("bash", cwd=str(cwd))
        self.asked: list[tuple[str, str]] = []
        self.events: list[RunEvent] = []
        self.deny_dangerous = True
        self.plan = plan
        self.plan_file = save_plan(plan, resolve_paths().deploy_dir)
        self.fixer = StepFixer(client, Config(), "bash", goal=f"deploy {plan.name}")
        self.runner = PlanRunner(
            plan,
            LocalSessionPort(self.session),
            ask=self.ask,
            classify=classify,
            approvals=ApprovalStore(resolve_paths().approvals_file),
            fixer=self.fixer,
            step_timeout=20.0,
            log_file=log_path_for(self.plan_file),
            on_event=chain(self.events.append, self.fixer.observe),
        )

    def ask(self, request: ApprovalRequest) -> Any:
        level = request.verdict.level
        self.asked.append((request.command, level))
        return "deny" if level == "dangerous" and self.deny_dangerous else "once"

    @property
    def log(self) -> str:
        return log_path_for(self.plan_file).read_text()


@wine_limit("no-posix-tools")
def test_second_step_fails_and_the_models_fix_completes_the_run(
    host: SessionHost, tmp_path: Path, llm_server: LlmServer
) -> None:
    """Step 2 fails in bash, the loopback model's fix runs (approved), its check passes, step 3 runs."""
    plan = Plan(target=str(tmp_path), name="demo", shell="bash")
    plan.steps = [
        Step(1, "Make the folder", commands=["mkdir -p out"], check="test -d out"),
        Step(2, "Read the config", commands=["cat out/config.txt"], check="test -s out/config.txt"),
        Step(3, "Show it", commands=["wc -c out/config.txt"]),
    ]
    llm_server.reply(
        '{"command": "echo port=8080 > out/config.txt && cat out/config.txt", '
        '"explanation": "create the missing file"}\n{"command": "touch out/config.txt"}\n'
    )
    h = Harness(host, tmp_path, llm_server, plan)
    assert h.runner.run() == "completed"
    assert [s.status for s in h.runner.states] == ["done", "done", "done"]
    assert h.runner.states[1].attempts == 1
    assert (tmp_path / "out" / "config.txt").read_text() == "port=8080\n"
    # The repair request carried the failure: command, exit code and the output's words.
    request = llm_server.requests[-1]["messages"][-1]["content"]
    assert "Failed command: `cat out/config.txt`" in request and "Exit code: 1" in request
    assert "No such file or directory" in request and "Step 2: Read the config" in request
    # A confirm-level repair needed an approval; safe commands did not.
    assert ("echo port=8080 > out/config.txt && cat out/config.txt", "confirm") in h.asked
    assert ("cat out/config.txt", "safe") not in h.asked
    # The log says what ran, in order, with exit codes; the plan on disk is the plan that ran.
    log = h.log
    order = [
        "$ mkdir -p out",
        "$ test -d out",
        "$ cat out/config.txt",
        "- exit code: 1",
        "- repair 1: `echo port=8080",
        "$ echo port=8080 > out/config.txt && cat out/config.txt",
        "$ test -s out/config.txt",
        "$ wc -c out/config.txt",
        "**Outcome:** completed",
    ]
    positions = [log.index(s) for s in order]
    assert positions == sorted(positions)
    assert "10 out/config.txt" in log
    logged = [line[2:] for line in log.splitlines() if line.startswith("$ ")]
    assert logged == [b.command for b in h.session.blocks()], "the log lists exactly what ran"
    assert h.plan_file.read_text() == plan_markdown(plan)
    assert sum(isinstance(e, StepStarted) for e in h.events) == 3
    assert isinstance(h.events[-1], RunFinished) and h.events[-1].summary.ok


@wine_limit("no-posix-tools")
def test_a_repeating_failure_is_stopped_by_loop_detection(
    host: SessionHost, tmp_path: Path, llm_server: LlmServer
) -> None:
    """The model keeps proposing the same failing command; the third failure stops the run."""
    plan = Plan(target=str(tmp_path), name="loop", shell="bash")
    plan.steps = [
        Step(1, "List", commands=["ls missing-dir"]),
        Step(2, "Never reached", commands=["echo unreachable"]),
    ]
    llm_server.responder = lambda body: '{"command": "ls missing-dir", "explanation": "again"}\n'
    h = Harness(host, tmp_path, llm_server, plan)
    outcome = h.runner.run()
    assert outcome.startswith("stopped at step 1: loop detected") and "failed 3 times" in outcome
    assert not h.runner.summary.ok
    assert [s.status for s in h.runner.states] == ["failed", "pending"]
    assert len(llm_server.requests) == 2  # two repairs asked; the third failure ended it
    assert h.log.count("$ ls missing-dir") == 3 and "unreachable" not in h.log
    assert "loop detected" in h.log


@wine_limit("no-posix-tools")
def test_a_dangerous_step_waits_for_approval_and_is_skipped_when_denied(
    host: SessionHost, tmp_path: Path, llm_server: LlmServer
) -> None:
    """`rm -rf ./build-output` is dangerous: the user is asked, denies, the folder stays, the run
    goes on and its outcome says a step was denied (not a plain "completed")."""
    (tmp_path / "build-output").mkdir()
    (tmp_path / "build-output" / "keep.txt").write_text("precious")
    plan = Plan(target=str(tmp_path), name="danger", shell="bash")
    plan.steps = [
        Step(1, "Clean", commands=["rm -rf ./build-output"]),
        Step(2, "Carry on", commands=[f"echo carried-on {SECRET}"]),
    ]
    h = Harness(host, tmp_path, llm_server, plan)
    assert h.runner.run() == "completed, 1 step denied"
    assert not h.runner.summary.ok and h.runner.summary.denied == 1
    assert h.asked == [("rm -rf ./build-output", "dangerous")]
    assert (tmp_path / "build-output" / "keep.txt").exists()
    assert [s.status for s in h.runner.states] == ["denied", "done"]
    # A plain Deny is for this time only: nothing was saved.
    assert ApprovalStore(resolve_paths().approvals_file).entries() == []
    assert "denied" in h.runner.states[0].detail
    assert "$ rm -rf" not in h.log and "carried-on" in h.log
    assert SECRET not in h.log, "a secret a command printed stays out of the log file"
    assert not any(b.command.startswith("rm ") for b in h.session.blocks())
    assert llm_server.requests == []


@wine_limit("no-posix-tools")
def test_pause_and_stop_from_another_thread(
    host: SessionHost, tmp_path: Path, llm_server: LlmServer
) -> None:
    """Stop while a long command runs: Ctrl+C reaches the session and the run ends cleanly."""
    plan = Plan(target=str(tmp_path), name="long", shell="bash")
    plan.steps = [Step(1, "Wait", commands=["sleep 30"]), Step(2, "After", commands=["echo after"])]
    h = Harness(host, tmp_path, llm_server, plan)
    done: list[str] = []
    worker = threading.Thread(target=lambda: done.append(h.runner.run()))
    worker.start()
    assert poll(lambda: "sleep" in child_commands(h.session.pid)), "sleep never started"
    h.runner.stop()
    worker.join(10)
    assert not worker.is_alive() and done == ["stopped at step 1: stopped by the user"]
    assert [s.status for s in h.runner.states][1] == "pending"
    block = h.session.last_block()
    assert block is not None and block.command == "sleep 30" and block.exit_code == 130


@wine_limit("no-posix-tools")
def test_a_failed_check_is_repaired_and_checked_again(
    host: SessionHost, tmp_path: Path, llm_server: LlmServer
) -> None:
    """When the check fails, the fix runs and then the check runs again and decides."""
    plan = Plan(target=str(tmp_path), name="check", shell="bash")
    plan.steps = [Step(1, "Prepare", commands=["true"], check="test -f ready.txt")]
    llm_server.reply('{"command": "touch ready.txt", "explanation": "the check wants it"}\n')
    h = Harness(host, tmp_path, llm_server, plan)
    assert h.runner.run() == "completed"
    assert [b.command for b in h.session.blocks()] == [
        "true",
        "test -f ready.txt",
        "touch ready.txt",
        "test -f ready.txt",
    ]
    assert h.runner.states[0].status == "done" and h.runner.states[0].attempts == 1
    checks = [e.command for e in h.events if isinstance(e, CommandSent) and e.is_check]
    assert checks == ["test -f ready.txt", "test -f ready.txt"]


@wine_limit("no-posix-tools")
def test_skip_interrupts_the_running_command_and_the_run_goes_on(
    host: SessionHost, tmp_path: Path, llm_server: LlmServer
) -> None:
    """Skip during a long command presses Ctrl+C, marks the step skipped and runs the next one."""
    plan = Plan(target=str(tmp_path), name="skip", shell="bash")
    plan.steps = [Step(1, "Wait", commands=["sleep 30"]), Step(2, "Next", commands=["echo next"])]
    h = Harness(host, tmp_path, llm_server, plan)
    done: list[str] = []
    worker = threading.Thread(target=lambda: done.append(h.runner.run()))
    worker.start()
    assert poll(lambda: "sleep" in child_commands(h.session.pid)), "sleep never started"
    h.runner.skip()
    worker.join(15)
    assert done == ["completed, 1 step skipped"]
    assert [s.status for s in h.runner.states] == ["skipped", "done"]
    assert [b.command for b in h.session.blocks()] == ["sleep 30", "echo next"]
    assert llm_server.requests == [], "a skipped command is not sent for repair"


@wine_limit("no-posix-tools")
def test_a_session_that_ends_stops_the_run_with_a_reason(
    host: SessionHost, tmp_path: Path, llm_server: LlmServer
) -> None:
    """A step that ends the shell (exit 3) stops the run saying the session ended; no repair."""
    plan = Plan(target=str(tmp_path), name="gone", shell="bash")
    plan.steps = [Step(1, "Leave", commands=["exit 3"]), Step(2, "After", commands=["echo after"])]
    h = Harness(host, tmp_path, llm_server, plan)
    h.asked.clear()
    outcome = h.runner.run()
    assert outcome.startswith("stopped at step 1:") and "ended (exit code 3)" in outcome
    assert [s.status for s in h.runner.states] == ["failed", "pending"]
    assert llm_server.requests == [] and "ended (exit code 3)" in h.log


@wine_limit("no-posix-tools")
def test_a_command_waiting_for_input_times_out_and_is_interrupted(
    host: SessionHost, tmp_path: Path, llm_server: LlmServer
) -> None:
    """A command stuck at a prompt hits the step timeout; Ctrl+C frees the session; the run stops."""
    plan = Plan(target=str(tmp_path), name="stuck", shell="bash")
    plan.steps = [Step(1, "Ask", commands=["read -p 'Continue? ' answer"])]
    h = Harness(host, tmp_path, llm_server, plan)
    h.runner.step_timeout = 1.5
    outcome = h.runner.run()
    assert outcome.startswith("stopped at step 1: `read -p")
    assert "did not finish in 2 s" in outcome
    assert "did not finish in 2 s; Ctrl+C was pressed" in h.runner.states[0].detail
    assert poll(lambda: bool(h.session.blocks()))
    block = h.session.last_block()
    assert block is not None and block.command.startswith("read -p") and block.exit_code != 0
