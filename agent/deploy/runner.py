"""Runs a plan step by step in a real session: approve, type, wait for the exit code, check, repair."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.errors import AgentError
from termwise.agent.base.types import Verdict
from termwise.agent.deploy.loop import LoopDetector
from termwise.agent.deploy.plan import Plan, Step
from termwise.agent.privacy.redact import redact
from termwise.agent.safety.approval_flow import ApprovalRequest, approval_request, settle

StepStatus = Literal["pending", "running", "done", "failed", "skipped", "denied", "stopped"]

OUTPUT_TAIL_LINES = 40  # what a repair request and the log keep of a command's output


@dataclass(frozen=True)
class CommandResult:
    command: str
    output: str
    exit_code: int | None


class SessionLost(AgentError):
    """The session a plan runs in ended or cannot be reached."""


class SessionPort(Protocol):
    """Where commands run: types a command with Enter and waits for its block.

    `run` returns None at the timeout and raises SessionLost when the session is gone;
    `interrupt` presses Ctrl+C in the session (used when the user stops a run).
    """

    def run(self, command: str, timeout: float) -> CommandResult | None: ...

    def interrupt(self) -> None: ...


class Approver(Protocol):
    def decide(self, command: str, shell: str, verdict: Verdict) -> str: ...

    def record(self, command: str, shell: str, choice: str, pattern: str | None = None) -> None: ...


# Asked when the policy wants the user: returns an approval_flow answer ("once", "deny" …);
# anything else (None, "cancel", Esc) is a one-time deny that skips the step.
Ask = Callable[[ApprovalRequest], "str | None"]
Fixer = Callable[[Step, CommandResult], "str | None"]
Classify = Callable[[str, str], Verdict]


# -- what a run tells its screens (typed events) ---------------------------------------------
@dataclass(frozen=True)
class StepStarted:
    step: int
    title: str


@dataclass(frozen=True)
class CommandSent:
    """A command (or the step's check) was approved and typed into the session."""

    step: int
    command: str
    is_check: bool = False


@dataclass(frozen=True)
class CommandFinished:
    step: int
    output_tail: str
    exit_code: int | None


@dataclass(frozen=True)
class RepairProposed:
    step: int
    command: str


@dataclass(frozen=True)
class StepEnded:
    """A step ended: done, failed, skipped, denied or stopped, with why."""

    step: int
    status: StepStatus
    detail: str = ""


@dataclass(frozen=True)
class RunStatus:
    """A note about the run: paused, resumed, asking the model for a fix."""

    step: int | None
    text: str


@dataclass(frozen=True)
class RunSummary:
    """How a run ended, counted per step; `str()` is the outcome line shown to the user."""

    completed: bool  # the walk reached the end of the plan
    total: int
    done: int = 0
    denied: int = 0
    skipped: int = 0
    failed: int = 0
    stopped_at: int | None = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        """Every step ran and passed (what exit code 0 means)."""
        return self.completed and self.done == self.total

    def __str__(self) -> str:
        if not self.completed:
            where = f" at step {self.stopped_at}" if self.stopped_at is not None else ""
            return f"stopped{where}: {self.reason}"
        notes = [
            f"{n} step{'s' if n != 1 else ''} {what}"
            for n, what in ((self.denied, "denied"), (self.skipped, "skipped"))
            if n
        ]
        return ", ".join(["completed", *notes])


@dataclass(frozen=True)
class RunFinished:
    summary: RunSummary

    @property
    def outcome(self) -> str:
        return str(self.summary)


RunEvent = (
    StepStarted
    | CommandSent
    | CommandFinished
    | RepairProposed
    | StepEnded
    | RunStatus
    | RunFinished
)


@dataclass
class StepState:
    status: StepStatus = "pending"
    attempts: int = 0
    detail: str = ""


class RunStopped(Exception):
    """Raised inside the runner to unwind when the user stops or a loop is detected."""


def _redact(text: str) -> str:
    return redact(text).text


def _tail(text: str, lines: int = OUTPUT_TAIL_LINES) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


class PlanRunner:
    """Walks a plan in a session; controls (pause, resume, skip, stop) work from any thread."""

    def __init__(
        self,
        plan: Plan,
        session: SessionPort,
        *,
        ask: Ask,
        classify: Classify,
        approvals: Approver | None = None,
        fixer: Fixer | None = None,
        max_repairs: int = 3,
        step_timeout: float = 900.0,
        log_file: Path | None = None,
        on_event: Callable[[RunEvent], None] | None = None,
        ask_safe: bool = False,
        scrub: Callable[[str], str] | None = None,
        cancel: CancelToken | None = None,
    ) -> None:
        self.plan = plan
        self.session = session
        self.ask = ask
        self.classify = classify
        self.approvals = approvals
        self.fixer = fixer
        self.max_repairs = max_repairs
        self.step_timeout = step_timeout
        self.log_file = log_file
        self.on_event = on_event
        self.ask_safe = ask_safe  # also ask before safe commands (a careful first run)
        self.scrub = scrub or _redact  # secrets a command printed stay out of the log file
        self.states = [StepState() for _ in plan.steps]
        self.loop = LoopDetector()
        self.outcome = "not started"
        self.summary = RunSummary(False, len(plan.steps), reason="not started")
        self._running = threading.Event()
        self._running.set()
        self._stop = threading.Event()
        self._skip = threading.Event()
        self._busy = threading.Event()  # a command is running in the session
        self._cancel = cancel  # cancelled by stop(): a repair request in flight hangs up

    # -- controls (any thread) ---------------------------------------------------------
    def pause(self) -> None:
        self._running.clear()
        self._emit(RunStatus(None, "paused"))

    def resume(self) -> None:
        self._running.set()
        self._emit(RunStatus(None, "resumed"))

    def skip(self) -> None:
        """Skip the current step (a command still running gets Ctrl+C), or the next one."""
        self._skip.set()
        self._running.set()
        if self._busy.is_set():
            try:
                self.session.interrupt()
            except Exception:  # the session may be gone; skipping must still work
                pass

    def stop(self, interrupt: bool = True) -> None:
        """End the run; with `interrupt`, also press Ctrl+C on a command still running."""
        self._stop.set()
        self._running.set()
        if self._cancel is not None:
            self._cancel.cancel()
        if interrupt and self._busy.is_set():
            try:
                self.session.interrupt()
            except Exception:  # the session may be gone already; stopping must still work
                pass

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    # -- running -------------------------------------------------------------------------
    def run(self) -> str:
        """Run every step; returns the outcome line ("completed", "completed, 2 steps denied",
        "stopped at step 3: …"); `summary` has the counts (a failed step stops the run)."""
        self._log(f"# Run of {self.plan.name}\n\n- started: {time.strftime('%Y-%m-%d %H:%M:%S')}\n")
        completed, reason, stopped_at = True, "", None
        try:
            for index, step in enumerate(self.plan.steps):
                self._gate()
                self._run_step(index, step)
        except RunStopped as exc:
            completed, reason = False, str(exc)
            for index, state in enumerate(self.states):
                if state.status == "running":
                    self._end_step(index, "stopped", str(exc))
                if state.status in ("running", "stopped", "failed") and stopped_at is None:
                    stopped_at = self.plan.steps[index].number
        statuses = [state.status for state in self.states]
        self.summary = RunSummary(
            completed,
            len(self.states),
            done=statuses.count("done"),
            denied=statuses.count("denied"),
            skipped=statuses.count("skipped"),
            failed=statuses.count("failed"),
            stopped_at=stopped_at,
            reason=reason,
        )
        self.outcome = str(self.summary)
        self._emit(RunFinished(self.summary))
        self._log(f"\n**Outcome:** {self.outcome}\n")
        return self.outcome

    def _gate(self) -> None:
        self._running.wait()
        if self._stop.is_set():
            raise RunStopped("stopped by the user")

    def _run_step(self, index: int, step: Step) -> None:
        state = self.states[index]
        state.status = "running"
        self._emit(StepStarted(step.number, step.title))
        self._log(f"\n## Step {step.number}: {step.title}\n")
        try:
            for command in step.commands:
                if not self._run_with_repair(index, step, command):
                    return
            if step.check and not self._run_with_repair(index, step, step.check, is_check=True):
                return
            state.status = "done"
            self._emit(StepEnded(step.number, "done"))
        finally:
            # Cleared at the end, so Skip pressed between steps (or while paused) skips the next.
            self._skip.clear()

    def _run_with_repair(
        self, index: int, step: Step, command: str, is_check: bool = False
    ) -> bool:
        """Run a command; on failure ask for fixes (bounded per step). False: the step ended early.

        A fix replaces a failed command; for a failed check, the fix runs and then the
        check runs again, since the check is what says the step worked.
        """
        state = self.states[index]
        attempt_command = command
        while True:
            self._gate()
            if self._skip.is_set():
                return self._end_step(index, "skipped", "skipped by the user")
            result = self._approved_run(
                index, step, attempt_command, is_check and attempt_command == command
            )
            if result is None:
                return False  # denied; _approved_run ended the step
            if self._skip.is_set():
                return self._end_step(index, "skipped", "skipped by the user")
            if result.exit_code == 0:
                if is_check and attempt_command != command:
                    attempt_command = command
                    continue
                return True
            reason = self.loop.observe(result.command, result.output, result.exit_code)
            if reason:
                self._end_step(index, "failed", reason)
                raise RunStopped(f"loop detected: {reason}")
            if self.fixer is None or state.attempts >= self.max_repairs:
                why = f"`{attempt_command}` exited {result.exit_code}"
                if state.attempts:
                    why += f" after {state.attempts} repair attempt(s)"
                self._end_step(index, "failed", why)
                raise RunStopped(why)
            state.attempts += 1
            self._emit(
                RunStatus(
                    step.number,
                    f"asking for a fix (attempt {state.attempts} of {self.max_repairs})",
                )
            )
            fix = self.fixer(step, result)
            self._gate()  # a stop while the model thought ends here, before the fix is typed
            if not fix:
                self._end_step(index, "failed", "no fix was offered")
                raise RunStopped("it failed and no fix was offered")
            self._emit(RepairProposed(step.number, fix))
            self._log(f"- repair {state.attempts}: `{fix}`\n")
            attempt_command = fix

    def _approved_run(
        self, index: int, step: Step, command: str, is_check: bool
    ) -> CommandResult | None:
        verdict = self.classify(command, self.plan.shell)
        if not self._approve(command, verdict):
            self._end_step(index, "denied", f"`{command}` was denied")
            return None
        self._emit(CommandSent(step.number, command, is_check))
        self._busy.set()
        try:
            if self._stop.is_set():  # stop() came before the command: do not type it
                raise RunStopped("stopped by the user")
            result = self.session.run(command, self.step_timeout)
        except SessionLost as exc:
            self._end_step(index, "failed", str(exc))
            raise RunStopped(str(exc)) from None
        finally:
            self._busy.clear()
        if self._stop.is_set():
            self._log_result(command, result)
            self._end_step(index, "stopped", "stopped by the user while it ran")
            raise RunStopped("stopped by the user")
        if result is None and self._skip.is_set():
            self._log_result(command, result)
            self._end_step(index, "skipped", "skipped by the user while it ran")
            return None
        if result is None:
            # Most often it waits for input nobody gives; Ctrl+C frees the session.
            try:
                self.session.interrupt()
            except Exception:
                pass
            self._log_result(command, None)
            why = f"`{command}` did not finish in {self.step_timeout:.0f} s; Ctrl+C was pressed"
            self._end_step(index, "failed", why)
            raise RunStopped(why)
        self._emit(CommandFinished(step.number, _tail(result.output), result.exit_code))
        self._log_result(command, result)
        return result

    def _log_result(self, command: str, result: CommandResult | None) -> None:
        if result is None:
            self._log(f"\n```\n$ {command}\n```\n- no exit code (did not finish)\n")
            return
        self._log(
            f"\n```\n$ {command}\n{_tail(result.output)}\n```\n- exit code: {result.exit_code}\n"
        )

    def _approve(self, command: str, verdict: Verdict) -> bool:
        decision = "allow" if verdict.level == "safe" else "ask"
        if self.approvals is not None:
            decision = self.approvals.decide(command, self.plan.shell, verdict)
        if decision == "allow" and self.ask_safe and verdict.level == "safe":
            decision = "ask"
        if decision == "allow":
            return True
        if decision == "deny":
            self._log(f"- denied by a stored rule: `{command}`\n")
            return False
        request = approval_request(command, self.plan.shell, verdict)
        answer = self.ask(request)
        if self._stop.is_set():
            raise RunStopped("stopped by the user")
        settled = settle(self.approvals, request, answer)
        if not settled.runs:
            kept = " (and every time from now on)" if settled.remembered == "deny" else ""
            self._log(f"- denied{kept}: `{command}`\n")
        return settled.runs

    def _end_step(self, index: int, status: StepStatus, detail: str) -> bool:
        state = self.states[index]
        state.status, state.detail = status, detail
        number = self.plan.steps[index].number
        self._emit(StepEnded(number, status, detail))
        self._log(f"- {status}: {detail}\n")
        return False

    def _emit(self, event: RunEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _log(self, text: str) -> None:
        if self.log_file is None:
            return
        # Appended as it happens, so a crash leaves the log of what already ran.
        with self.log_file.open("a", encoding="utf-8") as fh:
            fh.write(self.scrub(text))
