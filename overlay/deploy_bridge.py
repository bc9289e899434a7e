"""The deploy window's worker threads reach Qt only through this QObject's queued signals."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal
from termwise.agent.deploy.runner import RunEvent
from termwise.agent.safety.approval_flow import ApprovalRequest


class DeployBridge(QObject):
    """Re-emits planner and runner events as signals; carries approval answers back."""

    repository = Signal(object)  # RepoSnapshot
    step = Signal(object)  # Step (with verdicts)
    problem = Signal(str)
    planned = Signal(object, object)  # Plan, Path | None
    failed = Signal(str, int)  # message, exit-code-like kind (3: no model)
    run_event = Signal(object)  # RunEvent
    approval_needed = Signal(object)  # ApprovalRequest

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._answer: str | None = None
        self._answered = threading.Event()
        self._lock = threading.Lock()
        self._closed = False

    # -- worker side (any thread) -------------------------------------------------------------
    def emit_run_event(self, event: RunEvent) -> None:
        self.run_event.emit(event)

    def ask(self, request: ApprovalRequest) -> str:
        """Blocks the worker until the window answers (a one-time deny when it gives up)."""
        with self._lock:
            if self._closed:
                return "deny"
            self._answer = None
            self._answered.clear()
        self.approval_needed.emit(request)
        self._answered.wait()
        return self._answer or "deny"

    # -- window side ----------------------------------------------------------------------------
    def answer(self, choice: str) -> None:
        with self._lock:
            self._answer = choice
            self._answered.set()

    def release(self) -> None:
        """Deny an open question and every later one (stop, window closed)."""
        with self._lock:
            self._closed = True
            self._answer = "deny"
            self._answered.set()

    def reopen(self) -> None:
        with self._lock:
            self._closed = False
