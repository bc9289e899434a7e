"""The deploy window offscreen: steps stream into the plan view; a real bash run shows statuses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import Paths, resolve_paths
from termwise.agent.deploy.runner import RunStatus, StepStarted
from termwise.agent.llm.factory import make_client
from termwise.overlay.deploy_window import COL_RISK, DeployWindow
from termwise.tray.host.deploy_session import session_factory
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy

from tests.support.llm_server import LlmServer
from tests.support.wine_limits import wine_limit

LEFT = Qt.MouseButton.LeftButton
FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)
ENV = {"os": "Linux", "os_version": "test", "shell": "bash", "tools": {}}
PLAN = (
    '{"step": 1, "title": "Make out", "why": "", "commands": ["mkdir -p out"], "check": "test -d out"}\n'
    '{"step": 2, "title": "Clean old build", "why": "", "commands": ["rm -rf ./build-output"]}\n'
    '{"step": 3, "title": "Marker", "why": "", "commands": ["echo ok > out/m.txt"], "check": null}\n'
)


@pytest.fixture
def host(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[SessionHost]:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    h = SessionHost(Config(), resolve_paths().ensure(), termination=FAST_END)
    try:
        yield h
    finally:
        h.shutdown()


def project(root: Path) -> Path:
    repo = root / "webapp"
    repo.mkdir()
    (repo / "README.md").write_text("# webapp\nRun make.\n")
    (repo / "Makefile").write_text("all:\n\ttrue\n")
    (repo / "build-output").mkdir()
    return repo


def window(qtbot: QtBot, llm_server: LlmServer, host: SessionHost | None = None) -> DeployWindow:
    env = {
        "TERMWISE_BASE_URL": llm_server.base_url,
        "TERMWISE_MODEL": "test",
        "TERMWISE_API_KEY": "x",
    }
    paths: Paths = resolve_paths().ensure()
    w = DeployWindow(
        Config(),
        paths,
        session_factory=session_factory(paths, host) if host is not None else None,
        client_factory=lambda: make_client(Config(), env),
        env_info=ENV,
    )
    qtbot.addWidget(w)
    w.show()
    return w


def planned(qtbot: QtBot, llm_server: LlmServer, host: SessionHost, repo: Path) -> DeployWindow:
    """A window whose plan for `repo` has arrived (the model's reply is set by the caller)."""
    w = window(qtbot, llm_server, host)
    w.target.setText(str(repo))
    w.start_plan()
    qtbot.waitUntil(lambda: w.plan is not None, timeout=15000)
    return w


@wine_limit("no-posix-tools")
def test_steps_stream_into_the_plan_view(
    qtbot: QtBot, llm_server: LlmServer, tmp_path: Path
) -> None:
    """Steps appear one by one while the answer streams; risks show; the saved path is named."""
    llm_server.reply(PLAN, chunk_size=6, chunk_delay=0.03)
    w = window(qtbot, llm_server)
    w.target.setText(str(project(tmp_path)))
    qtbot.mouseClick(w.plan_button, LEFT)
    assert not w.plan_button.isEnabled() and w.stop_button.isEnabled()
    qtbot.waitUntil(lambda: w.tree.topLevelItemCount() >= 1, timeout=15000)
    assert w.plan is None, "the first step shows before the answer is complete"
    qtbot.waitUntil(lambda: w.plan is not None, timeout=15000)
    assert w.tree.topLevelItemCount() == 3
    risks = [w.tree.topLevelItem(i).text(COL_RISK) for i in range(3)]  # type: ignore[union-attr]
    assert risks == ["confirm", "dangerous", "confirm"]
    assert w.step_statuses() == ["pending"] * 3
    assert w.plan_file is not None and str(w.plan_file) in w.status.text()
    assert w.run_button.isEnabled() and w.plan_button.isEnabled()


def test_no_model_says_so(qtbot: QtBot, llm_server: LlmServer, tmp_path: Path) -> None:
    """Without a model the window reads the repository and says a model is needed."""
    w = window(qtbot, llm_server)
    w.client_factory = lambda: None
    w.target.setText(str(project(tmp_path)))
    w.start_plan()
    qtbot.waitUntil(lambda: "model is needed" in w.status.text(), timeout=10000)
    assert w.snapshot is not None and "Makefile" in w.snapshot.files
    assert w.plan_button.isEnabled() and not w.run_button.isEnabled()


@wine_limit("no-posix-tools")
def test_a_run_shows_each_steps_status_and_asks_before_danger(
    qtbot: QtBot, llm_server: LlmServer, tmp_path: Path, host: SessionHost
) -> None:
    """Run in a real bash session: approvals come as dialogs; Esc on the dangerous one is a clean
    skip of that step (no error), and the outcome says a step was denied."""
    llm_server.reply(PLAN)
    repo = project(tmp_path)
    w = planned(qtbot, llm_server, host, repo)
    qtbot.mouseClick(w.run_button, LEFT)
    answers = {
        "mkdir -p out": "once",
        "rm -rf ./build-output": "esc",
        "echo ok > out/m.txt": "once",
    }
    asked: list[str] = []
    while True:
        qtbot.waitUntil(lambda: w.approval_dialog is not None or bool(w.outcome), timeout=20000)
        if w.outcome:
            break
        dialog = w.approval_dialog
        assert dialog is not None and dialog.isVisible()
        asked.append(dialog.command)
        if answers[dialog.command] == "esc":
            qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        else:
            qtbot.mouseClick(dialog.buttons[answers[dialog.command]], LEFT)
        answered = dialog
        qtbot.waitUntil(lambda: w.approval_dialog is not answered, timeout=5000)  # noqa: B023
    assert asked == ["mkdir -p out", "rm -rf ./build-output", "echo ok > out/m.txt"]
    assert w.outcome == "completed, 1 step denied"
    assert w.step_statuses() == ["done", "denied", "done"]
    assert "unknown approval choice" not in w.output.toPlainText() + w.status.text()
    assert (repo / "out" / "m.txt").read_text() == "ok\n" and (repo / "build-output").is_dir()
    assert "→ exit 0" in w.output.toPlainText()
    assert w.plan_file is not None
    log = w.plan_file.with_name(w.plan_file.stem + ".log.md").read_text()
    assert "$ echo ok > out/m.txt" in log and "**Outcome:** completed, 1 step denied" in log
    assert not w.paths.approvals_file.exists()  # Esc remembers nothing


@wine_limit("no-posix-tools")
def test_pause_resume_and_stop(
    qtbot: QtBot, llm_server: LlmServer, tmp_path: Path, host: SessionHost
) -> None:
    """Pause holds the next step, Resume lets it run, Stop ends a long command and the run."""
    llm_server.reply(
        '{"title": "Quick", "commands": ["true"]}\n'
        '{"title": "Long", "commands": ["sleep 30"]}\n'
        '{"title": "Never", "commands": ["echo never"]}\n'
    )
    w = planned(qtbot, llm_server, host, project(tmp_path))
    w.start_run()
    qtbot.waitUntil(lambda: w.runner is not None, timeout=10000)
    w.pause()
    qtbot.waitUntil(lambda: w.resume_button.isEnabled(), timeout=15000)
    assert "paused" in w.status.text()
    w.resume()
    qtbot.waitUntil(lambda: w.step_statuses()[1] == "running", timeout=15000)
    w.stop()
    qtbot.waitUntil(lambda: bool(w.outcome), timeout=15000)
    assert w.outcome.startswith("stopped")
    assert w.step_statuses()[0] == "done" and w.step_statuses()[2] == "pending"
    assert w.plan_button.isEnabled()


def test_pause_pressed_as_a_step_begins_still_reads_paused(
    qtbot: QtBot, llm_server: LlmServer, tmp_path: Path, host: SessionHost
) -> None:
    """The runner's "step began" can arrive after "paused"; the status line must not hide the pause."""
    llm_server.reply('{"title": "Quick", "commands": ["true"]}\n')
    w = planned(qtbot, llm_server, host, project(tmp_path))
    w._on_run_event(RunStatus(None, "paused"))
    w._on_run_event(StepStarted(1, "Quick"))
    assert "paused" in w.status.text() and "Step 1: Quick" in w.status.text()
    assert w.resume_button.isEnabled() and not w.pause_button.isEnabled()
    w._on_run_event(RunStatus(None, "resumed"))
    w._on_run_event(StepStarted(2, "Next"))
    assert w.status.text() == "Step 2: Next"


@wine_limit("no-posix-tools")
def test_closing_the_window_stops_a_run(
    qtbot: QtBot, llm_server: LlmServer, tmp_path: Path, host: SessionHost
) -> None:
    """Closing mid-run stops the runner, presses Ctrl+C on the command and ends the worker."""
    llm_server.reply('{"title": "Long", "commands": ["sleep 30"]}\n')
    w = planned(qtbot, llm_server, host, project(tmp_path))
    w.start_run()
    qtbot.waitUntil(lambda: w.step_statuses() == ["running"], timeout=15000)
    w.close()
    # Closing waits up to CLOSE_WAIT; on a loaded machine the Ctrl+C may land just after.
    assert w.wait_idle(30), "the worker ended after the window closed"
    assert w.runner is not None and w.runner.outcome.startswith("stopped")
