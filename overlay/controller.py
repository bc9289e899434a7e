"""Carries out what the overlay's keys ask for, over the ports it is given (see ports.py).

The controller never sees a PTY or the tray: sessions come as `SessionView`s whose outputs are
clean text, and every behaviour shared with other screens (explain, follow-up, the turn) is
one function in `agent/`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config
from termwise.agent.base.errors import AgentError
from termwise.agent.base.events import Error, Event, Finished, Question, Status, SuggestionReady
from termwise.agent.base.paths import Paths
from termwise.agent.base.types import SessionContext, Verdict
from termwise.agent.llm.base import LlmClient
from termwise.agent.llm.factory import make_client
from termwise.agent.safety import classify
from termwise.agent.safety.approval_flow import approval_request, settle
from termwise.agent.safety.approvals import ApprovalStore
from termwise.agent.suggest.flows import explain, follow_up
from termwise.agent.suggest.turn import NO_MODEL, SuggestTurn
from termwise.overlay.approval_dialog import ApprovalDialog
from termwise.overlay.clipboard import Clipboard
from termwise.overlay.i18n import detect_language, set_language, tr
from termwise.overlay.overlay_window import OverlayWindow, no_model_notice
from termwise.overlay.ports import HostView, MemoryView, SessionView
from termwise.overlay.qt_bridge import ThreadRelay, TurnRunner, emit
from termwise.overlay.theme import on_os_scheme_change, pick_theme
from termwise.overlay.view_model import OverlayViewModel

log = logging.getLogger(__name__)

ClientFactory = Callable[[Config], LlmClient | None]
EnvInfo = Mapping[str, object]


class OverlayController(QObject):
    """Shows the overlay on demand and carries out what its keys ask for."""

    settings_requested = Signal(str)  # the Settings field to focus
    shown = Signal()
    suggestion_shown = Signal(int, str)  # index, command
    turn_finished = Signal(object)  # cancelled (bool; object: PySide bool args misbehave)
    command_typed = Signal(str)
    command_run = Signal(str)
    command_copied = Signal(str)
    command_blocked = Signal(str)
    approval_opened = Signal(object)  # the ApprovalDialog, so callers (tests) can answer it

    def __init__(
        self,
        host: HostView,
        config: Config,
        paths: Paths,
        *,
        approvals: ApprovalStore,
        memory_link: MemoryView | None = None,
        client_factory: ClientFactory = make_client,
        env_info: EnvInfo | None = None,
    ) -> None:
        super().__init__()
        self.host = host
        self.paths = paths
        self.approvals = approvals
        self.memory_link = memory_link
        self.client_factory = client_factory
        self.env_info = env_info  # None: SuggestTurn probes the machine (cached)
        self.config = config
        self.client: LlmClient | None = None
        self.vm = OverlayViewModel()
        self.window = OverlayWindow(self.vm, pick_theme(config.ui.theme))
        self.runner = TurnRunner(self)
        self.blocks = ThreadRelay(self._on_block, self)
        self._stop_blocks: Callable[[], None] | None = host.on_block(self.blocks.post)
        self.clipboard = Clipboard(self)
        self.dialog: ApprovalDialog | None = None
        self._session_id: str | None = None
        self._request = ""  # the request of the running turn, follow-ups included
        self._pending_question = ""  # the model's clarifying question, until answered
        self._problem = ""  # the model settings' problem, shown until fixed
        self._connect()
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            on_os_scheme_change(app, self._follow_os_theme)
        self.apply_config(config)

    def _connect(self) -> None:
        w = self.window
        w.submitted.connect(self.submit)
        w.type_requested.connect(self.type_command)
        w.run_requested.connect(self.run_command)
        w.copy_requested.connect(self.copy_command)
        w.explain_requested.connect(self.explain_command)
        w.cancel_requested.connect(self.cancel_and_hide)
        w.retry_requested.connect(self.retry)
        w.switch_session.connect(self.switch_session)
        w.settings_requested.connect(self.open_settings)
        w.status.link_activated.connect(self.open_settings)
        self.runner.turn_event.connect(self._on_event)
        self.runner.done.connect(self._on_done)
        self.clipboard.text_read.connect(self._on_clipboard)
        self.clipboard.copied.connect(self._on_copied)
        self.clipboard.failed.connect(
            lambda msg: self.vm.show_error(tr("Could not copy: {error}", error=msg))
        )

    # configuration ----------------------------------------------------------------
    def apply_config(self, config: Config) -> None:
        """Take new settings at once: language, theme and the model client."""
        self.config = config
        set_language(detect_language(config.ui.language))
        self.window.apply_theme(pick_theme(config.ui.theme))
        try:
            self.client = self.client_factory(config)
            problem = ""
        except AgentError as exc:  # a broken model setting: say so, keep the instant tier
            self.client = None
            problem = str(exc)
        self.vm.model_available = self.client is not None
        self.window.retranslate()
        self._update_notice(problem)

    def _follow_os_theme(self) -> None:
        if self.config.ui.theme not in ("light", "dark"):
            self.window.apply_theme(pick_theme(self.config.ui.theme))

    def _update_notice(self, problem: str | None = None) -> None:
        if problem is None:
            problem = self._problem
        self._problem = problem
        if problem:
            self.window.set_notice(tr("Model settings problem: {error}", error=problem))
        elif self.client is None:
            self.window.set_notice(no_model_notice())
        else:
            self.window.set_notice("")

    # showing ----------------------------------------------------------------------
    def show_overlay(self) -> None:
        """Open fresh on the active session (or the clipboard) and ask by itself when it failed.

        Nothing of the last open survives: no suggestion, selection, question or message, and
        the old query is selected so that typing replaces it. After a failed command the rules'
        suggestions are in the first frame and the model's stream in after; after a success the
        input waits with the last command as context.
        """
        self.runner.cancel()
        self._pending_question = ""
        self._request = ""
        self.vm.reset()
        session = self.host.active()
        if session is not None:
            self._show_session(session)
        else:
            self._session_id = None
            self.window.set_can_run(False)
            self.vm.show_clipboard(SessionContext(clipboard_text=""))
            self.clipboard.read()
        self._update_notice()  # drop an old "Copied: …"
        if self.vm.last_failed:
            self._ask_by_itself()
        self.window.select_input()
        self.window.show_at_cursor()
        log.info("overlay shown (session %s)", self._session_id or "none: clipboard")
        emit(self.shown)

    def _ask_by_itself(self) -> None:
        """The failed command's fix: instant rules now (synchronously), the model's after."""
        ctx = self.vm.context or SessionContext()
        turn = self._turn()
        self.vm.begin_turn()
        for event in turn.instant("", ctx):
            self._on_event(event)
        if self.client is None:  # the rest of the turn is offline and instant too
            for event in turn.run("", ctx):
                self._on_event(event)
            return
        self._request = ""
        context = self._context_source()
        self.runner.start(lambda cancel: turn.run("", context(), cancel))

    def hide_overlay(self) -> None:
        self.window.hide()

    def open_settings(self) -> None:
        """F2 (or the notice's link): Settings at the model fields, with the overlay out of its way."""
        self.hide_overlay()
        emit(self.settings_requested, "provider")

    def _show_session(self, session: SessionView) -> None:
        alive = self.host.sessions()
        ids = [s.id for s in alive]
        position = ids.index(session.id) + 1 if session.id in ids else 0
        self._session_id = session.id
        self.window.set_can_run(session.can_run_exact().exact)
        self.vm.show_session(session.view_context(), position=position, count=len(alive))

    def _session(self) -> SessionView | None:
        if self._session_id is None:
            return None
        for s in self.host.sessions():
            if s.id == self._session_id:
                return s
        return None

    def switch_session(self, delta: int) -> None:
        """Tab / Shift+Tab: make the next (previous) session active and show it, fresh."""
        alive = self.host.sessions()
        if not alive:
            return
        ids = [s.id for s in alive]
        at = ids.index(self._session_id) if self._session_id in ids else -1
        target = alive[(at + delta) % len(alive)]
        self.host.set_active(target.id)
        self.runner.cancel()
        self._pending_question = ""
        self.vm.reset()
        self._show_session(target)
        if self.vm.last_failed:
            self._ask_by_itself()

    def _on_block(self, session_id: object) -> None:
        if not (self.window.isVisible() and session_id == self._session_id):
            return
        session = self._session()
        if session is not None and not self.runner.busy:
            self._show_session(session)

    def _on_clipboard(self, text: str) -> None:
        if self.vm.header.source == "clipboard":
            self.vm.show_clipboard(SessionContext(clipboard_text=text))

    # requests ---------------------------------------------------------------------
    def submit(self, text: str) -> None:
        """Enter in the input box: "" fixes the last failure, text asks (or answers a question).

        An answer to the model's clarifying question goes out with the user's request
        (`follow_up`), never alone.
        """
        if text and self.memory_link is not None:
            try:
                self.memory_link.remember(text)
            except Exception:  # memory must never cost the user the answer
                log.exception("memory: remember failed")
        if self._pending_question and text:
            request = follow_up(self._request, self._pending_question, text)
        else:
            request = text
        self._pending_question = ""
        self._start_turn(request, asked=text)

    def retry(self) -> None:
        self._start_turn(self._request, asked=self.vm.asked)

    def _context_source(self) -> Callable[[], SessionContext]:
        """How the worker gets the full context: built there, so cleaning whole outputs never
        holds up the GUI thread."""
        session = self._session()
        if session is not None:
            return session.context
        shown = self.vm.context or SessionContext()
        return lambda: shown

    def _turn(self) -> SuggestTurn:
        memory = self.memory_link.snippets if self.memory_link is not None else None
        return SuggestTurn(self.client, self.config, memory=memory, env_info=self.env_info)

    def _start_turn(self, request: str, *, asked: str = "") -> None:
        self._request = request
        turn = self._turn()
        context = self._context_source()
        self.vm.begin_turn(asked)
        log.info("turn started (question %r)", request[:80])
        self.runner.start(lambda cancel: turn.run(request, context(), cancel))

    def _on_event(self, event: object) -> None:
        if isinstance(event, str):  # an explanation chunk
            self.vm.show_explanation(self.vm.explanation + event)
            return
        if not isinstance(event, Event):
            return
        if isinstance(event, Status) and event.text == NO_MODEL:
            return  # the overlay's own notice says it, with the Settings link
        self.vm.apply(event)
        if isinstance(event, SuggestionReady):
            log.info("suggestion shown: %d %s", event.index, event.suggestion.command)
            emit(self.suggestion_shown, event.index, event.suggestion.command)
        elif isinstance(event, Question):
            self._pending_question = event.text
        elif isinstance(event, Finished):
            log.info("turn finished (%d suggestions)", len(self.vm.rows))
            emit(self.turn_finished, event.cancelled)

    def _on_done(self, cancelled: bool) -> None:
        self.vm.end_turn()

    def cancel_and_hide(self) -> None:
        """Esc: stop the request in flight (its HTTP stream closes) and hide."""
        if self.runner.cancel():
            log.info("request cancelled")
        self.hide_overlay()

    # acting on a suggestion -------------------------------------------------------
    def _row_command(self, index: int) -> tuple[str, Verdict | None] | None:
        if 0 <= index < len(self.vm.rows):
            row = self.vm.rows[index]
            return row.command, row.verdict
        return None

    def type_command(self, index: int) -> None:
        """Enter: put the command on the session's prompt in place of pending input, then hide."""
        picked = self._row_command(index)
        session = self._session()
        if picked is None:
            return
        if session is None or not session.alive:
            self.vm.show_error(tr("No session to type into — Ctrl+C copies the command."))
            return
        outcome = session.type_command(picked[0])
        if not outcome.ran:
            self.vm.show_error(tr("Not typed: {reason}", reason=outcome.reason))
            log.info("typing refused: %s", outcome.reason)
            return
        log.info("command typed: %s", picked[0])
        emit(self.command_typed, picked[0])
        self.hide_overlay()

    def run_command(self, index: int) -> None:
        """Ctrl+Enter: run the command, asking first when the approval policy says so.

        A session that cannot guarantee the prompt holds exactly this command refuses the
        run with its reason; Enter (type) still works.
        """
        picked = self._row_command(index)
        session = self._session()
        if picked is None:
            return
        if session is None or not session.alive:
            self.vm.show_error(tr("No session to run in — Ctrl+C copies the command."))
            return
        check = session.can_run_exact()
        if not check.exact:
            self.vm.show_error(
                tr("Not run: {reason}. Enter types it instead.", reason=check.reason)
            )
            log.info("run refused: %s", check.reason)
            return
        command, verdict = picked
        if verdict is None:
            verdict = classify(command, session.shell)
        decision = self.approvals.decide(command, session.shell, verdict)
        if decision == "deny":
            self._blocked(command)
        elif decision == "allow":
            self._run(session, command)
        else:
            self._ask(session, command, verdict)

    def _ask(self, session: SessionView, command: str, verdict: Verdict) -> None:
        request = approval_request(command, session.shell, verdict)
        dialog = ApprovalDialog(request, self.window)
        self.dialog = dialog

        def answered(answer: str) -> None:
            self.dialog = None
            settled = settle(self.approvals, request, answer)
            if settled.runs:
                self._run(session, command)
            elif settled.remembered == "deny":
                self._blocked(command)

        dialog.chosen.connect(answered)
        dialog.open()
        emit(self.approval_opened, dialog)

    def _blocked(self, command: str) -> None:
        self.vm.show_error(tr("Blocked by your approval rules: {command}", command=command))
        log.info("command blocked: %s", command)
        emit(self.command_blocked, command)

    def _run(self, session: SessionView, command: str) -> None:
        outcome = session.run_command(command)
        if not outcome.ran:
            self.vm.show_error(
                tr("Not run: {reason}. Enter types it instead.", reason=outcome.reason)
            )
            log.info("run refused: %s", outcome.reason)
            return
        log.info("command run: %s", command)
        emit(self.command_run, command)
        self.hide_overlay()

    def copy_command(self, index: int) -> None:
        """Ctrl+C: put the command on the clipboard (off the GUI thread)."""
        picked = self._row_command(index)
        if picked is not None:
            self.clipboard.copy(picked[0])

    def _on_copied(self, command: str) -> None:
        self.window.set_notice(tr("Copied: {command}", command=command))
        log.info("command copied: %s", command)
        emit(self.command_copied, command)

    def explain_command(self, index: int) -> None:
        """Ctrl+E: the model explains the command; without a model, show what is known."""
        picked = self._row_command(index)
        if picked is None:
            return
        command, verdict = picked
        client = self.client
        if client is None:
            row = self.vm.rows[index]
            known = [row.suggestion.explanation, *(verdict.reasons if verdict else ())]
            text = "\n".join(k for k in known if k) or tr("No explanation without a model.")
            self.vm.show_explanation(text)
            return
        self.vm.show_explanation("")
        session = self._session()
        shell = session.shell if session is not None else (self.vm.header.shell or "bash")
        config = self.config

        def job(cancel: CancelToken) -> Iterator[object]:
            try:
                yield from explain(client, config, command, shell, cancel)
            except AgentError as exc:
                yield Error(str(exc), retryable=True)

        self.runner.start(job)

    def close(self) -> None:
        """Stop listening and cancel what runs (the tray calls this on quit)."""
        self.runner.cancel()
        stop, self._stop_blocks = self._stop_blocks, None
        if stop is not None:
            stop()
