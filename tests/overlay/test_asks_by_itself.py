"""The overlay asks by itself on open, keeps the user's request through a clarifying question,
shows which session it uses and what was asked, and refuses a run it cannot make exact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from termwise.agent.base.types import SessionContext
from termwise.overlay.ports import RunCheck, RunOutcome, SessionView
from termwise.tray.app.session_port import HostPort

from tests.overlay.conftest import finished_block, no_model
from tests.support.wine_limits import wine_limit

SUGGEST = '{"command": "ls -la", "explanation": "list everything"}\n'


def _user_text(request: dict[str, Any]) -> str:
    return "\n".join(str(m["content"]) for m in request["messages"] if m["role"] == "user")


def _enter(qtbot: Any, controller: Any, text: str) -> None:
    controller.window.input.setText(text)
    with qtbot.waitSignal(controller.turn_finished, timeout=20000):
        qtbot.keyClick(controller.window.input, Qt.Key.Key_Return)


@wine_limit("no-posix-tools")
def test_the_answer_to_a_clarifying_question_goes_out_with_the_original_request(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """After "Which server?" + "staging", the model still reads what the user first asked."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "echo ready")
    model_env.reply('{"question": "Which server should it go to?"}\n')
    model_env.reply(SUGGEST)
    controller = make_controller()
    controller.show_overlay()
    _enter(qtbot, controller, "copy the build folder to the web server")
    assert "Which server" in controller.window.status.question.text()
    _enter(qtbot, controller, "staging")
    follow = _user_text(model_env.requests[-1])
    assert "copy the build folder to the web server" in follow
    assert "Which server should it go to?" in follow and "staging" in follow
    assert [r.command for r in controller.vm.rows] == ["ls -la"]


@wine_limit("no-posix-tools")
def test_after_a_failure_instant_suggestions_are_in_the_first_frame(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """No key pressed: the rules' fixes are drawn when show returns; the model's stream after."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "git psuh")
    model_env.reply('{"command": "git push origin HEAD", "explanation": "push"}\n')
    controller = make_controller()
    controller.show_overlay()
    w = controller.window
    first = [r.command for r in controller.vm.rows]
    assert first and first[0].startswith("git push")  # the rules tier's fix, before any event loop
    assert w.isVisible() and w.suggestions.isVisible()
    assert len(w.suggestions.widgets) == len(first)
    assert controller.vm.selected == 0
    with qtbot.waitSignal(controller.turn_finished, timeout=20000):
        pass
    assert "git push origin HEAD" in [r.command for r in controller.vm.rows]
    assert "git psuh" in _user_text(model_env.requests[0])


@wine_limit("no-posix-tools")
def test_after_a_success_the_input_waits_with_the_context_ready(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """A successful last command asks nothing; the header shows it and the input has focus."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "echo all-good")
    controller = make_controller()
    with qtbot.waitSignal(controller.shown):
        controller.show_overlay()
    w = controller.window
    qtbot.waitUntil(lambda: w.input.hasFocus())
    assert "echo all-good" in w.header.detail.text()
    assert controller.vm.rows == [] and not controller.runner.busy
    assert model_env.requests == []
    assert "Ask for a command" in w.input.placeholderText()
    _enter(qtbot, controller, "what did that print")
    assert "echo all-good" in _user_text(model_env.requests[-1])


@wine_limit("no-posix-tools")
def test_the_asked_question_stays_visible_while_the_answer_streams(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """The input clears for the next key, but "You asked: …" stays above the streaming rows."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "echo ready")
    model_env.reply(SUGGEST + '{"command": "ls', stall_after=3, chunk_size=20)
    controller = make_controller()
    controller.show_overlay()
    w = controller.window
    w.input.setText("show hidden files")
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: [r.command for r in controller.vm.rows] == ["ls -la"], timeout=10000)
    assert controller.runner.busy
    assert w.status.asked.isVisible() and "show hidden files" in w.status.asked.text()
    assert w.input.text() == ""
    controller.cancel_and_hide()


@wine_limit("no-posix-tools")
def test_the_header_names_the_session_and_tab_switches_it(
    qtbot: Any, host: Any, make_controller: Any, tmp_path: Path
) -> None:
    """Which session the overlay uses is always on screen; Tab moves to the other, fresh."""
    one = host.create("bash", cwd=str(tmp_path))
    finished_block(one, "echo one")
    two = host.create("bash", cwd=str(tmp_path))
    finished_block(two, "git psuh")
    controller = make_controller(client_factory=no_model)
    controller.show_overlay()
    title = controller.window.header.title
    assert f"session {two.id}" in title.text() and "(Tab switches)" in title.text()
    assert controller.vm.rows  # two's failure, asked by itself
    qtbot.keyClick(controller.window.input, Qt.Key.Key_Tab)
    assert f"session {one.id}" in title.text()
    assert controller.vm.rows == [] and controller.vm.selected == -1


class _Inexact:
    """A session port whose shell cannot guarantee what runs (as cmd.exe would report)."""

    def __init__(self, inner: SessionView) -> None:
        self.inner = inner
        self.ran: list[str] = []
        self.typed: list[str] = []

    @property
    def id(self) -> str:
        return self.inner.id

    @property
    def shell(self) -> str:
        return self.inner.shell

    @property
    def alive(self) -> bool:
        return self.inner.alive

    def last_block_index(self) -> int:
        return self.inner.last_block_index()

    def view_context(self) -> SessionContext:
        return self.inner.view_context()

    def context(self) -> SessionContext:
        return self.inner.context()

    def can_run_exact(self) -> RunCheck:
        return RunCheck(False, "this shell cannot clear pending input")

    def type_command(self, text: str) -> RunOutcome:
        self.typed.append(text)
        return RunOutcome(True)

    def run_command(self, text: str) -> RunOutcome:
        self.ran.append(text)
        return RunOutcome(True)


class _InexactHost(HostPort):
    def __init__(self, host: Any) -> None:
        super().__init__(host)
        self.views: dict[str, _Inexact] = {}

    def _wrap(self, view: SessionView) -> _Inexact:
        return self.views.setdefault(view.id, _Inexact(view))

    def active(self) -> SessionView | None:
        view = super().active()
        return self._wrap(view) if view is not None else None

    def sessions(self) -> list[SessionView]:
        return [self._wrap(v) for v in super().sessions()]


@wine_limit("no-posix-tools")
def test_a_run_that_cannot_be_exact_is_refused_with_its_reason_and_enter_still_types(
    qtbot: Any, host: Any, paths: Any, approvals: Any, tmp_path: Path
) -> None:
    """Ctrl+Enter says why it will not run; Enter types the same command through the port."""
    from termwise.agent.base.config_schema import Config
    from termwise.overlay.controller import OverlayController

    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "git psuh")
    port = _InexactHost(host)
    controller = OverlayController(
        port, Config(), paths, approvals=approvals, client_factory=no_model, env_info={}
    )
    qtbot.addWidget(controller.window)
    try:
        controller.show_overlay()
        w = controller.window
        command = controller.vm.rows[0].command
        assert "Ctrl+Enter" not in w.hints.text() and "Enter type" in w.hints.text()
        qtbot.keyClick(w.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        view = port.views[session.id]
        assert view.ran == []
        assert "cannot clear pending input" in w.status.error.text() and w.isVisible()
        qtbot.keyClick(w.input, Qt.Key.Key_Return)
        assert view.typed == [command] and not w.isVisible()
    finally:
        controller.close()


def test_f2_hides_the_overlay_before_settings_open(
    qtbot: Any, host: Any, make_controller: Any
) -> None:
    """F2: the overlay gets out of the way, then Settings is asked for at the model fields."""
    controller = make_controller(client_factory=no_model)
    controller.show_overlay()
    order: list[str] = []
    controller.settings_requested.connect(
        lambda field: order.append(f"settings:{field}:{controller.window.isVisible()}")
    )
    qtbot.keyClick(controller.window.input, Qt.Key.Key_F2)
    assert order == ["settings:provider:False"]


@wine_limit("no-posix-tools")
def test_without_a_model_the_first_frame_says_so_once_and_enter_types_the_choice(
    qtbot: Any, host: Any, make_controller: Any, tmp_path: Path
) -> None:
    """Offline: the rules' fix is listed, the no-model notice shows once (not also as a
    status line), and the input says Enter types the chosen command."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "git psuh")
    controller = make_controller(client_factory=no_model)
    controller.show_overlay()
    w = controller.window
    assert controller.vm.rows and controller.vm.status == ""
    assert not w.status.status.isVisible()
    assert "No model configured" in w.status.notice.text()
    assert "Enter types the chosen command" in w.input.placeholderText()
