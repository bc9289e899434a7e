"""Wires the overlay to the session host, the agent turn, approvals, memory and the clipboard."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config
from termwise.agent.base.errors import AgentError
from termwise.agent.base.events import Finished, Question, SuggestionReady
from termwise.agent.base.paths import Paths
from termwise.agent.base.types import Block, SessionContext, Verdict
from termwise.agent.llm.factory import make_client
from termwise.agent.safety.approvals import ApprovalStore
from termwise.overlay.approval_dialog import ApprovalDialog
from termwise.overlay.clipboard import Clipboard
from termwise.overlay.i18n import detect_language, set_language, tr
from termwise.overlay.overlay_window import OverlayWindow, no_model_notice
from termwise.overlay.theme import on_os_scheme_change, pick_theme
from termwise.overlay.view_model import OverlayViewModel
from termwise.tray.app.qt_bridge import HostBridge, TurnRunner, emit

log = logging.getLogger(__name__)

ClientFactory = Callable[[Config], Any]


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
        host: Any,
        config: Config,
        paths: Paths,
        *,
        approvals: ApprovalStore,
        memory_link: Any = None,
        client_factory: ClientFactory = make_client,
        env_info: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.host = host
        self.paths = paths
        self.approvals = approvals
        self.memory_link = memory_link
        self.client_factory = client_factory
        self.env_info = env_info  # None: SuggestTurn probes the machine (cached)
        self.config = config
        self.client: Any = None
        self.vm = OverlayViewModel()
        self.window = OverlayWindow(self.vm, pick_theme(config.ui.theme))
        self.runner = TurnRunner(self)
        self.bridge = HostBridge(host, self)
        self.clipboard = Clipboard(self)
        self.dialog: ApprovalDialog | None = None
        self._session_id: str | None = None
        self._last_question = ""
        self._pending_question = ""
        self._problem = ""  # the model settings' problem, shown until fixed
        self._shown_for: tuple[str, int] | None = None  # (session, last block) the rows are for
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
        w.settings_requested.connect(lambda: emit(self.settings_requested, "provider"))
        w.status.link_activated.connect(lambda: emit(self.settings_requested, "provider"))
        self.runner.turn_event.connect(self._on_event)
        self.runner.done.connect(self._on_done)
        self.bridge.block_finished.connect(self._on_block)
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
        """Show the active session's last block (or the clipboard) under the mouse."""
        session = self.host.active()
        last = session.last_block() if session is not None else None
        key = (session.id, last.index if last is not None else -1) if session is not None else None
        if key != self._shown_for or key is None:
            self._forget_turn()  # suggestions were for another command
        self._shown_for = key
        if session is not None:
            self._show_session(session)
        else:
            self._session_id = None
            self.vm.show_clipboard(SessionContext(clipboard_text=""))
            self.clipboard.read()
        self._update_notice()  # drop an old "Copied: …"
        self.window.show_at_cursor()
        log.info("overlay shown (session %s)", self._session_id or "none: clipboard")
        emit(self.shown)

    def _forget_turn(self) -> None:
        self.runner.cancel()
        self._pending_question = ""
        self.vm.begin_turn()
        self.vm.end_turn()

    def hide_overlay(self) -> None:
        self.window.hide()

    def _show_session(self, session: Any) -> None:
        alive = self._sessions()
        ids = [s.id for s in alive]
        position = ids.index(session.id) + 1 if session.id in ids else 0
        self._session_id = session.id
        self.vm.show_session(_view_context(session), position=position, count=len(alive))

    def _sessions(self) -> list[Any]:
        return [s for s in self.host.list() if s.alive]

    def _session(self) -> Any:
        if self._session_id is None:
            return None
        for s in self.host.list():
            if s.id == self._session_id:
                return s
        return None

    def switch_session(self, delta: int) -> None:
        """Tab / Shift+Tab: make the next (previous) session active and show it."""
        alive = self._sessions()
        if not alive:
            return
        ids = [s.id for s in alive]
        at = ids.index(self._session_id) if self._session_id in ids else -1
        target = alive[(at + delta) % len(alive)]
        self.host.set_active(target.id)
        self._forget_turn()
        last = target.last_block()
        self._shown_for = (target.id, last.index if last is not None else -1)
        self._show_session(target)

    def _on_block(self, session: Any, _block: Any) -> None:
        if self.window.isVisible() and session.id == self._session_id and not self.runner.busy:
            self._show_session(session)

    def _on_clipboard(self, text: str) -> None:
        if self.vm.header.source == "clipboard":
            self.vm.show_clipboard(SessionContext(clipboard_text=text))

    # requests ---------------------------------------------------------------------
    def submit(self, text: str) -> None:
        """Enter in the input box: "" fixes the last failure, text asks (or answers a question)."""
        if text and self.memory_link is not None:
            try:
                self.memory_link.remember(text)
            except Exception:  # memory must never cost the user the answer
                log.exception("memory: remember failed")
        question = text
        if self._pending_question and text:
            question = f"{self._pending_question}\nAnswer: {text}"
        self._pending_question = ""
        self._start_turn(question)

    def retry(self) -> None:
        self._start_turn(self._last_question)

    def _context(self) -> SessionContext:
        ctx = self.vm.context or SessionContext()
        session = self._session()
        if session is not None:
            ctx = session.context()
        return ctx

    def _start_turn(self, question: str) -> None:
        from termwise.agent.suggest.turn import SuggestTurn

        self._last_question = question
        memory = self.memory_link.snippets if self.memory_link is not None else None
        turn = SuggestTurn(self.client, self.config, memory=memory, env_info=self.env_info)
        ctx = self._context()
        self.vm.begin_turn()
        log.info("turn started (question %r)", question[:80])
        self.runner.start(lambda cancel: turn.run(question, ctx, cancel))

    def _on_event(self, event: object) -> None:
        if isinstance(event, str):  # an explanation chunk
            self.vm.show_explanation(self.vm.explanation + event)
            return
        self.vm.apply(event)  # type: ignore[arg-type]
        if isinstance(event, SuggestionReady):
            log.info("suggestion shown: %d %s", event.index, event.suggestion.command)
            emit(self.suggestion_shown, event.index, event.suggestion.command)
        elif isinstance(event, Question):
            self._pending_question = event.text
        elif isinstance(event, Finished):
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
        """Enter: type the command at the session's prompt without running it, then hide."""
        picked = self._row_command(index)
        session = self._session()
        if picked is None:
            return
        if session is None or not session.alive:
            self.vm.show_error(tr("No session to type into — Ctrl+C copies the command."))
            return
        session.send_text(picked[0])
        log.info("command typed: %s", picked[0])
        emit(self.command_typed, picked[0])
        self.hide_overlay()

    def run_command(self, index: int) -> None:
        """Ctrl+Enter: run the command, asking first when the approval policy says so."""
        picked = self._row_command(index)
        session = self._session()
        if picked is None:
            return
        if session is None or not session.alive:
            self.vm.show_error(tr("No session to run in — Ctrl+C copies the command."))
            return
        command, verdict = picked
        if verdict is None:
            from termwise.agent.safety import classify

            verdict = classify(command, session.shell)
        decision = self.approvals.decide(command, session.shell, verdict)
        if decision == "deny":
            self._blocked(command)
        elif decision == "allow":
            self._run(session, command)
        else:
            self._ask(session, command, verdict)

    def _ask(self, session: Any, command: str, verdict: Verdict) -> None:
        dialog = ApprovalDialog(command, verdict, self.window)
        self.dialog = dialog

        def answered(choice: str) -> None:
            self.dialog = None
            if choice == "cancel":
                return
            self.approvals.record(command, session.shell, choice)
            if choice == "deny":
                self._blocked(command)
            else:
                self._run(session, command)

        dialog.chosen.connect(answered)
        dialog.open()
        emit(self.approval_opened, dialog)

    def _blocked(self, command: str) -> None:
        self.vm.show_error(tr("Blocked by your approval rules: {command}", command=command))
        log.info("command blocked: %s", command)
        emit(self.command_blocked, command)

    def _run(self, session: Any, command: str) -> None:
        session.send_text(command, enter=True)
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
        if self.client is None:
            row = self.vm.rows[index]
            known = [row.suggestion.explanation, *(verdict.reasons if verdict else ())]
            text = "\n".join(k for k in known if k) or tr("No explanation without a model.")
            self.vm.show_explanation(text)
            return
        self.vm.show_explanation("")
        shell = self._context().shell or "bash"
        self.runner.start(lambda cancel: self._explain(command, shell, cancel))

    def _explain(self, command: str, shell: str, cancel: CancelToken) -> Iterator[object]:
        from termwise.agent.base.prompts import load_prompt
        from termwise.agent.privacy.redact import redact

        text = command
        if self.config.privacy.redact:
            text = redact(command, self.config.privacy.patterns).text
        messages = [
            {"role": "system", "content": load_prompt("explain", shell=shell)},
            {"role": "user", "content": text},
        ]
        try:
            for delta in self.client.stream_chat(messages, task="suggest", cancel=cancel):
                if delta.text:
                    yield delta.text
        except AgentError as exc:
            from termwise.agent.base.events import Error

            yield Error(str(exc), retryable=True)

    def close(self) -> None:
        """Stop listening and cancel what runs (the tray calls this on quit)."""
        self.runner.cancel()
        self.bridge.close()


VIEW_TAIL_BYTES = 64 * 1024  # far more than the lines shown; keeps huge outputs off the hot path


def _view_context(session: Any) -> SessionContext:
    """What the overlay shows on the hotkey: the last block only, its output's tail cleaned.

    The full context (five blocks, whole outputs) is built only when a request is sent.
    """
    from termwise.tray.host.stream import clean_text

    last = session.last_block()
    blocks = []
    if last is not None:
        output = clean_text(bytes(last.output[-VIEW_TAIL_BYTES:]))
        blocks.append(Block(last.command, output, last.exit_code, last.cwd))
    marks = getattr(session, "has_marks", True)
    return SessionContext(
        blocks=blocks,
        shell=session.shell,
        cwd=session.cwd,
        session_id=session.id,
        screen_text="" if marks or last is not None else session.screen_text(),
    )
