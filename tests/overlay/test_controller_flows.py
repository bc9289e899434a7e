"""Overlay flows beyond the basics: questions, errors with Retry, explanations, memory, logs."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from termwise.agent.base.config_schema import Config
from termwise.agent.chat.memory_link import MemoryLink
from termwise.memory.store import MemoryStore

from tests.overlay.conftest import finished_block, no_model
from tests.support.wine_limits import wine_limit

SUGGEST = '{"command": "ls -la", "explanation": "list everything"}\n'


def _session(host: Any, tmp_path: Path) -> Any:
    """A session whose last command succeeded: the overlay waits for the user's question."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "echo ready")
    return session


def _enter(qtbot: Any, controller: Any, text: str = "") -> None:
    controller.window.input.setText(text)
    with qtbot.waitSignal(controller.turn_finished, timeout=20000):
        qtbot.keyClick(controller.window.input, Qt.Key.Key_Return)


@wine_limit("no-posix-tools")
def test_a_clarifying_question_is_answered_in_the_input_box(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """The model's question shows; the typed answer goes out with it in the next request."""
    _session(host, tmp_path)
    model_env.reply('{"question": "Which folder did you mean, src or docs?"}\n')
    model_env.reply(SUGGEST)
    controller = make_controller()
    controller.show_overlay()
    _enter(qtbot, controller, "list the folder")
    status = controller.window.status
    assert status.question.isVisible()
    assert "Which folder did you mean" in status.question.text()
    assert "Answer the question" in controller.window.input.placeholderText()
    _enter(qtbot, controller, "docs")
    assert [r.command for r in controller.vm.rows] == ["ls -la"]
    sent = str(model_env.requests[-1]["messages"])
    assert "Which folder did you mean" in sent and "docs" in sent
    assert not status.question.isVisible()


@wine_limit("no-posix-tools")
def test_errors_show_inline_and_retry_sends_again(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """A failing model answer shows its error with Retry; Retry repeats the request."""
    _session(host, tmp_path)
    model_env.reply(status=500, error_message="upstream overloaded")
    model_env.reply(SUGGEST)
    controller = make_controller()
    controller.show_overlay()
    _enter(qtbot, controller, "list the folder")
    status = controller.window.status
    assert status.error.isVisible() and status.error.text()
    assert status.retry.isVisible()
    with qtbot.waitSignal(controller.turn_finished, timeout=20000):
        qtbot.mouseClick(status.retry, Qt.MouseButton.LeftButton)
    assert [r.command for r in controller.vm.rows] == ["ls -la"]
    assert not status.error.isVisible()
    assert len(model_env.requests) == 2
    assert model_env.requests[0]["messages"] == model_env.requests[1]["messages"]


@wine_limit("no-posix-tools")
def test_ctrl_e_streams_the_models_explanation(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """Ctrl+E asks the model about the chosen command and shows its streamed explanation."""
    _session(host, tmp_path)
    model_env.reply(SUGGEST)
    controller = make_controller()
    controller.show_overlay()
    _enter(qtbot, controller, "list the folder")
    model_env.reply("ls lists files; -l is the long format; -a shows hidden ones.", chunk_size=6)
    qtbot.keyClick(controller.window.input, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    explanation = controller.window.status.explanation
    qtbot.waitUntil(lambda: "-a shows hidden ones." in explanation.text(), timeout=10000)
    assert explanation.isVisible()
    assert model_env.requests[-1]["messages"][-1]["content"] == "ls -la"


@wine_limit("no-posix-tools")
def test_ctrl_e_without_a_model_shows_what_is_known(
    qtbot: Any, host: Any, make_controller: Any, tmp_path: Path
) -> None:
    """Offline, Ctrl+E shows the suggestion's own explanation and the verdict's reasons."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "git psuh")
    controller = make_controller(client_factory=no_model)
    controller.show_overlay()  # the failure's instant suggestions, no key pressed
    row = controller.vm.rows[0]
    qtbot.keyClick(controller.window.input, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    text = controller.window.status.explanation.text()
    assert text and all(reason in text for reason in row.verdict.reasons)


@wine_limit("no-posix-tools")
def test_typed_text_goes_to_memory(
    qtbot: Any, host: Any, make_controller: Any, paths: Any, tmp_path: Path
) -> None:
    """What the user says about themselves in the input box is remembered."""
    store = MemoryStore(paths.memory_dir)
    link = MemoryLink(store, None, Config())
    try:
        _session(host, tmp_path)
        controller = make_controller(client_factory=no_model, memory_link=link)
        controller.show_overlay()
        _enter(qtbot, controller, "I prefer ripgrep over grep")
        text = " ".join(e.content for e in store.entries())
        assert "ripgrep" in text
    finally:
        link.close()


@wine_limit("no-posix-tools")
def test_log_lines_and_placement_under_the_mouse(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path, caplog: Any
) -> None:
    """Showing, suggesting and typing each log an INFO line; the window sits on the screen."""
    _session(host, tmp_path)
    model_env.reply(SUGGEST)
    controller = make_controller()
    with caplog.at_level(logging.INFO, logger="termwise.overlay.controller"):
        controller.show_overlay()
        _enter(qtbot, controller, "list the folder")
        qtbot.keyClick(controller.window.input, Qt.Key.Key_Return)
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("overlay shown") for m in messages)
    assert any(m.startswith("suggestion shown") and "ls -la" in m for m in messages)
    assert "command typed: ls -la" in messages
    screen = QGuiApplication.primaryScreen().availableGeometry()
    assert screen.contains(controller.window.geometry().topLeft())


@wine_limit("no-posix-tools")
def test_each_open_starts_fresh_and_enter_never_types_an_old_suggestion(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """Reopened, the old query is selected, rows, selection and messages are gone; Enter asks."""
    session = _session(host, tmp_path)
    model_env.reply(SUGGEST)
    controller = make_controller()
    controller.show_overlay()
    _enter(qtbot, controller, "list the folder")
    controller.window.input.setText("list the folder")
    controller.vm.show_error("an old message")
    assert controller.vm.selected == 0
    qtbot.keyClick(controller.window.input, Qt.Key.Key_Escape)
    controller.show_overlay()
    w = controller.window
    assert controller.vm.rows == [] and controller.vm.selected == -1
    assert not w.suggestions.isVisible() and not w.status.error.isVisible()
    assert w.input.selectedText() == "list the folder"  # typing replaces it
    typed: list[str] = []
    controller.command_typed.connect(typed.append)
    last = session.last_block().index
    model_env.reply(SUGGEST)
    with qtbot.waitSignal(controller.turn_finished, timeout=20000):
        qtbot.keyClick(w.input, Qt.Key.Key_Return)  # asks again; types nothing
    assert typed == [] and session.wait_for_block(last, 0.5) is None
    assert len(model_env.requests) == 2


@wine_limit("no-posix-tools")
def test_a_block_finishing_while_shown_updates_the_overlay(
    qtbot: Any, host: Any, make_controller: Any, tmp_path: Path
) -> None:
    """A command that ends while the overlay is up replaces the shown block at once."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "echo first")
    controller = make_controller(client_factory=no_model)
    controller.show_overlay()
    session.send_text("echo live-update", enter=True)
    detail = controller.window.header.detail
    qtbot.waitUntil(lambda: "echo live-update" in detail.text(), timeout=15000)
    assert "live-update" in controller.window.output.toPlainText()


@wine_limit("no-posix-tools")
def test_a_huge_output_shows_its_last_lines(
    qtbot: Any, host: Any, make_controller: Any, tmp_path: Path
) -> None:
    """After megabytes of output the overlay shows the real end of it."""
    session = host.create("bash", cwd=str(tmp_path))
    block = finished_block(session, "seq 1 300000", timeout=60)
    assert len(block.output) > 4 * 64 * 1024  # more than the overlay cleans
    controller = make_controller(client_factory=no_model)
    controller.show_overlay()
    shown = controller.window.output.toPlainText().split()
    assert shown[-1] == "300000" and shown[-2] == "299999"
    assert "seq 1 300000" in controller.window.header.detail.text()
