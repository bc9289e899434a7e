"""The "Deploy from repository…" window: plan a repository as it streams, then run it step by step.

Planning and running happen in worker threads; they reach the widgets only through
`DeployBridge`'s queued signals. Where commands run is injected by the tray as a
`session_factory(shell, cwd) -> SessionPort` (the overlay never imports the tray).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QCloseEvent, QColor, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config
from termwise.agent.base.errors import AgentError
from termwise.agent.base.paths import Paths
from termwise.agent.deploy.plan import Plan, Step
from termwise.agent.deploy.runner import (
    CommandFinished,
    CommandSent,
    PlanRunner,
    RepairProposed,
    RunEvent,
    RunFinished,
    RunStatus,
    RunSummary,
    SessionPort,
    StepEnded,
    StepStarted,
)
from termwise.agent.deploy.sources import RepoSnapshot
from termwise.agent.llm.base import LlmClient
from termwise.agent.safety.approval_flow import ApprovalRequest
from termwise.overlay.approval_dialog import ApprovalDialog
from termwise.overlay.deploy_bridge import DeployBridge
from termwise.overlay.i18n import tr

log = logging.getLogger(__name__)

SessionFactory = Callable[[str, "str | None"], SessionPort]
ClientFactory = Callable[[], "LlmClient | None"]
SHELLS = ("bash", "zsh", "pwsh", "powershell", "cmd", "wsl")
COL_STEP, COL_WHAT, COL_RISK, COL_STATUS = range(4)
NO_MODEL = "a model is needed for the plan; add one in Settings"
CLOSE_WAIT = 5.0  # seconds closing the window waits for a stopped worker
RISK_COLOURS = {"confirm": "#b7791f", "dangerous": "#c53030"}  # readable on light and dark


def _default_client(config: Config) -> ClientFactory:
    def make() -> LlmClient | None:
        from termwise.agent.llm.factory import make_client

        return make_client(config)

    return make


class DeployWindow(QWidget):
    """URL field, Plan, the plan as it streams, and Run / Pause / Resume / Skip / Stop."""

    def __init__(
        self,
        config: Config,
        paths: Paths,
        *,
        session_factory: SessionFactory | None = None,
        client_factory: ClientFactory | None = None,
        env_info: dict[str, Any] | None = None,
        shell: str = "bash",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.config = config
        self.paths = paths
        self.session_factory = session_factory
        self.client_factory = client_factory or _default_client(config)
        self.env_info = env_info
        self.setWindowTitle(tr("Deploy from repository"))
        self.resize(900, 620)
        self.plan: Plan | None = None
        self.plan_file: Path | None = None
        self.snapshot: RepoSnapshot | None = None
        self.runner: PlanRunner | None = None
        self.outcome = ""
        self.approval_dialog: ApprovalDialog | None = None
        self._client: LlmClient | None = None
        self._cancel = CancelToken()
        self._worker: threading.Thread | None = None
        self._stop_requested = False

        # No parent: a worker still holding the bridge must never emit on a deleted object.
        self.bridge = DeployBridge()
        queued = Qt.ConnectionType.QueuedConnection
        self.bridge.repository.connect(self._on_repository, queued)
        self.bridge.step.connect(self._on_step, queued)
        self.bridge.problem.connect(self._on_problem, queued)
        self.bridge.planned.connect(self._on_planned, queued)
        self.bridge.failed.connect(self._on_failed, queued)
        self.bridge.run_event.connect(self._on_run_event, queued)
        self.bridge.approval_needed.connect(self._on_approval, queued)

        self.target = QLineEdit(
            placeholderText=tr("GitHub URL, git URL, local folder or project name")
        )
        self.target.setObjectName("deploy_target")
        self.shell_box = QComboBox()
        self.shell_box.addItems(list(SHELLS))
        self.shell_box.setCurrentText(shell)
        self.plan_button = QPushButton(tr("Plan"))
        self.run_button = QPushButton(tr("Run"))
        self.pause_button = QPushButton(tr("Pause"))
        self.resume_button = QPushButton(tr("Resume"))
        self.skip_button = QPushButton(tr("Skip step"))
        self.stop_button = QPushButton(tr("Stop"))
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels([tr("Step"), tr("What"), tr("Risk"), tr("Status")])
        self.tree.setColumnWidth(COL_STEP, 60)
        self.tree.setColumnWidth(COL_WHAT, 520)
        self.output = QPlainTextEdit(readOnly=True)
        self.output.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.output.setMaximumBlockCount(5000)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        top = QHBoxLayout()
        top.addWidget(self.target, 1)
        top.addWidget(self.shell_box)
        top.addWidget(self.plan_button)
        controls = QHBoxLayout()
        for b in (
            self.run_button,
            self.pause_button,
            self.resume_button,
            self.skip_button,
            self.stop_button,
        ):
            controls.addWidget(b)
        controls.addStretch(1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.output)
        split.setSizes([400, 180])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addLayout(controls)
        layout.addWidget(self.status)

        self.target.returnPressed.connect(self.start_plan)
        self.plan_button.clicked.connect(self.start_plan)
        self.run_button.clicked.connect(self.start_run)
        self.pause_button.clicked.connect(self.pause)
        self.resume_button.clicked.connect(self.resume)
        self.skip_button.clicked.connect(self.skip)
        self.stop_button.clicked.connect(self.stop)
        self._set_mode("idle")

    # -- state -----------------------------------------------------------------------------------

    def retranslate(self) -> None:
        """Every fixed text again in the current language (the same widgets, new texts)."""
        self.setWindowTitle(tr("Deploy from repository"))
        self.target.setPlaceholderText(tr("GitHub URL, git URL, local folder or project name"))
        for button, text in (
            (self.plan_button, "Plan"),
            (self.run_button, "Run"),
            (self.pause_button, "Pause"),
            (self.resume_button, "Resume"),
            (self.skip_button, "Skip step"),
            (self.stop_button, "Stop"),
        ):
            button.setText(tr(text))
        self.tree.setHeaderLabels([tr("Step"), tr("What"), tr("Risk"), tr("Status")])

    def _set_mode(self, mode: str) -> None:
        """idle | planning | running | paused: which buttons make sense now."""
        self.mode = mode
        has_plan = bool(self.plan and self.plan.steps)
        self.plan_button.setEnabled(mode == "idle")
        self.target.setEnabled(mode == "idle")
        self.run_button.setEnabled(mode == "idle" and has_plan)
        self.pause_button.setEnabled(mode == "running")
        self.resume_button.setEnabled(mode == "paused")
        self.skip_button.setEnabled(mode in ("running", "paused"))
        self.stop_button.setEnabled(mode != "idle")

    def _say(self, text: str) -> None:
        self.status.setText(text)

    def step_statuses(self) -> list[str]:
        """The Status column of each step, in order (what a user reads)."""
        return [item.text(COL_STATUS) for item in self._steps()]

    def _steps(self) -> list[QTreeWidgetItem]:
        found = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [item for item in found if item is not None]

    # -- planning --------------------------------------------------------------------------------
    def start_plan(self) -> None:
        target = self.target.text().strip()
        if not target or self.mode != "idle":
            if not target:
                self._say(tr("Enter a repository URL, a folder or a project name."))
            return
        self.tree.clear()
        self.output.clear()
        self.plan = self.plan_file = None
        self._cancel = CancelToken()
        self._set_mode("planning")
        self._say(tr("Reading {target}…", target=target))
        shell = self.shell_box.currentText()
        self._start(self._plan_job, target, shell, self._cancel)

    def _start(self, job: Callable[..., None], *args: Any) -> None:
        self._worker = threading.Thread(target=job, args=args, name="deploy-worker", daemon=True)
        self._worker.start()

    def _plan_job(self, target: str, shell: str, cancel: CancelToken) -> None:
        from termwise.agent.deploy.planner import PlanFinished, PlanProblem, StepReady
        from termwise.agent.deploy.planning import plan_repository, read_target

        bridge = self.bridge
        try:
            snap = read_target(target, self.config)
            bridge.repository.emit(snap)
            client = self.client_factory()
            if client is None:
                bridge.failed.emit(tr(NO_MODEL), 3)
                return
            self._client = client
            events = plan_repository(
                snap, shell, self.config, client, self.paths, env_info=self.env_info, cancel=cancel
            )
            for event in events:
                if isinstance(event, StepReady):
                    bridge.step.emit(event.step)
                elif isinstance(event, PlanProblem):
                    bridge.problem.emit(event.message)
                elif isinstance(event, PlanFinished):
                    bridge.planned.emit(event.plan, event.path)
        except AgentError as exc:
            bridge.failed.emit(str(exc), 1)
        except Exception as exc:  # a worker must always end with a message
            log.exception("planning failed")
            bridge.failed.emit(f"planning failed: {exc}", 1)

    def _on_repository(self, snap: RepoSnapshot) -> None:
        self.snapshot = snap
        what = f"{snap.name} ({snap.kind})"
        if snap.files:
            what += " · " + ", ".join(snap.files)
        self._say(tr("Planning {what}…", what=what))
        for note in snap.notes:
            self.output.appendPlainText(note)

    def _on_step(self, step: Step) -> None:
        item = QTreeWidgetItem([str(step.number), step.title, "", tr("pending")])
        item.setToolTip(COL_WHAT, step.why)
        worst = "safe"
        for command, verdict in zip(step.commands, step.verdicts, strict=False):
            child = QTreeWidgetItem(["", f"$ {command}", verdict.level, ""])
            child.setToolTip(COL_RISK, "\n".join(verdict.reasons))
            _colour(child, verdict.level)
            item.addChild(child)
            if verdict.level == "dangerous" or (verdict.level == "confirm" and worst == "safe"):
                worst = verdict.level
        if step.check:
            item.addChild(QTreeWidgetItem(["", tr("check: {c}", c=step.check), "", ""]))
        item.setText(COL_RISK, worst)
        _colour(item, worst)
        self.tree.addTopLevelItem(item)
        item.setExpanded(True)

    def _on_problem(self, message: str) -> None:
        self.output.appendPlainText(f"! {message}")

    def _on_planned(self, plan: Plan, path: Path | None) -> None:
        self.plan, self.plan_file = plan, path
        self._set_mode("idle")
        if path is not None:
            self._say(tr("Plan of {n} steps saved to {path}", n=len(plan.steps), path=str(path)))
        else:
            self._say(tr("No plan: the model gave no steps (see the messages below)."))

    def _on_failed(self, message: str, kind: int) -> None:
        self._set_mode("idle")
        self._say(message)
        self.output.appendPlainText(f"! {message}")

    # -- running ---------------------------------------------------------------------------------
    def start_run(self) -> None:
        if self.plan is None or not self.plan.steps or self.mode != "idle":
            return
        if self.session_factory is None:
            self._say(tr("No session host here: open this window from the Termwise tray."))
            return
        for item in self._steps():
            item.setText(COL_STATUS, tr("pending"))
        self._stop_requested = False
        self.runner = None
        self.outcome = ""
        self.bridge.reopen()
        self._set_mode("running")
        self._say(tr("Starting a session…"))
        cwd = self.snapshot.origin if self.snapshot and self.snapshot.kind == "local" else None
        self._start(self._run_job, self.plan, cwd)

    def _run_job(self, plan: Plan, cwd: str | None) -> None:
        from termwise.agent.deploy.setup import configured_runner

        assert self.session_factory is not None
        bridge = self.bridge
        try:
            port = self.session_factory(plan.shell, cwd)
            runner = configured_runner(
                plan,
                port,
                config=self.config,
                approvals_file=self.paths.approvals_file,
                client=self._client,
                ask=bridge.ask,
                plan_file=self.plan_file,
                on_event=bridge.emit_run_event,
            )
            self.runner = runner
            if self._stop_requested:
                runner.stop()
            runner.run()
        except Exception as exc:  # the session could not start, …: the window must hear of it
            log.exception("deploy run failed")
            summary = RunSummary(False, len(plan.steps), reason=str(exc))
            bridge.run_event.emit(RunFinished(summary))

    def _item(self, number: int | None) -> QTreeWidgetItem | None:
        return next((i for i in self._steps() if i.text(COL_STEP) == str(number)), None)

    def _on_run_event(self, event: RunEvent) -> None:
        if isinstance(event, RunFinished):
            self.outcome = event.outcome
            self._set_mode("idle")
            self._say(tr("Run {outcome}", outcome=event.outcome))
            self.output.appendPlainText(f"== {event.outcome}")
            return
        if isinstance(event, RunStatus) and event.step is None:
            self._set_mode("paused" if event.text == "paused" else "running")
            self._say(tr(event.text))
            return
        item = self._item(event.step)
        if isinstance(event, StepStarted):
            if item is not None:
                item.setText(COL_STATUS, tr("running"))
                self.tree.setCurrentItem(item)
            text = tr("Step {n}: {title}", n=event.step, title=event.title)
            # Pause pressed as the step began: the runner holds before its first command.
            self._say(f"{tr('paused')} · {text}" if self.mode == "paused" else text)
        elif isinstance(event, CommandSent):
            prefix = tr("check:") if event.is_check else "$"
            self.output.appendPlainText(f"{prefix} {event.command}")
        elif isinstance(event, RepairProposed):
            self.output.appendPlainText(f"{tr('fix:')} {event.command}")
        elif isinstance(event, CommandFinished):
            if event.output_tail:
                self.output.appendPlainText(event.output_tail)
            self.output.appendPlainText(f"→ exit {event.exit_code}")
        elif isinstance(event, StepEnded) and item is not None:
            item.setText(COL_STATUS, tr(event.status))
            if event.detail:
                item.setToolTip(COL_STATUS, f"{event.status}: {event.detail}")
        elif isinstance(event, RunStatus) and item is not None:
            item.setText(COL_STATUS, event.text)

    def _on_approval(self, request: ApprovalRequest) -> None:
        dialog = ApprovalDialog(request, self)
        dialog.chosen.connect(self._on_chosen)
        self.approval_dialog = dialog
        dialog.open()

    def _on_chosen(self, choice: str) -> None:
        self.approval_dialog = None
        self.bridge.answer(choice)

    # -- controls --------------------------------------------------------------------------------
    def pause(self) -> None:
        if self.runner is not None:
            self.runner.pause()

    def resume(self) -> None:
        if self.runner is not None:
            self.runner.resume()

    def skip(self) -> None:
        if self.runner is not None:
            self.runner.skip()

    def stop(self) -> None:
        """Stop planning or running; a command still running gets Ctrl+C."""
        self._cancel.cancel()
        self._stop_requested = True
        if self.runner is not None:
            self.runner.stop()
        self.bridge.release()
        if self.approval_dialog is not None:
            self.approval_dialog.choose("deny")
        self._say(tr("Stopping…"))

    def wait_idle(self, timeout: float = CLOSE_WAIT) -> bool:
        """Wait for the worker thread to end (True when none runs any more)."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
        return worker is None or not worker.is_alive()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.mode != "idle":
            self.stop()
            self.wait_idle()  # stop() frees a waiting worker; a command gets Ctrl+C
        super().closeEvent(event)


def _colour(item: QTreeWidgetItem, level: str) -> None:
    if level in RISK_COLOURS:
        item.setForeground(COL_RISK, QBrush(QColor(RISK_COLOURS[level])))


def open_deploy_window(
    config: Config,
    paths: Paths,
    *,
    session_factory: SessionFactory | None = None,
    parent: QWidget | None = None,
    target: str = "",
) -> DeployWindow:
    """Show the window (what the tray's "Deploy from repository…" entry calls)."""
    window = DeployWindow(config, paths, session_factory=session_factory, parent=parent)
    if target:
        window.target.setText(target)
    window.show()
    window.raise_()
    window.activateWindow()
    return window
