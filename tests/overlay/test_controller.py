"""The overlay over a real bash session, the real agent turn and the loopback model server."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from termwise.agent.base.config_schema import Config
from termwise.overlay.approval_dialog import ApprovalDialog
from termwise.overlay.header import short_path
from termwise.overlay.qt_bridge import emit

from tests.overlay.conftest import finished_block, need_display, no_model, wait_for
from tests.support.llm_server import Reply
from tests.support.wine_limits import wine_limit

MODEL_LINES = (
    '{"command": "ls -la", "explanation": "list what is really here"}\n'
    '{"command": "rm -rf ./build-cache", "explanation": "start from a clean cache",'
    ' "caveats": "the cache is rebuilt"}\n'
)


def _model(body: dict[str, Any]) -> Reply:
    """Suggestion requests get MODEL_LINES; safety reviews a harmless answer."""
    if "Static rules already flagged" in body["messages"][0]["content"]:
        return Reply(text='{"risk": "high", "explanation": "deletes the cache folder"}')
    return Reply(text=MODEL_LINES, chunk_size=9)


def _failed_session(host: Any, tmp_path: Path) -> tuple[Any, Any]:
    session = host.create("bash", cwd=str(tmp_path))
    block = finished_block(session, "ls /no-such-dir-termwise")
    assert block.exit_code not in (None, 0)
    return session, block


def _ask_fix(qtbot: Any, controller: Any) -> None:
    """Show the overlay after a failure: it asks for the fix by itself, no key pressed."""
    with qtbot.waitSignal(controller.turn_finished, timeout=20000):
        controller.show_overlay()


def _select(controller: Any, command: str) -> int:
    commands = [r.command for r in controller.vm.rows]
    index = commands.index(command)
    controller.vm.select(index)
    return index


@wine_limit("no-posix-tools")
def test_overlay_renders_the_last_block_of_a_real_session(
    qtbot: Any, host: Any, make_controller: Any, tmp_path: Path
) -> None:
    """The header names bash, the cwd, the failed command and its exit code; errors are marked."""
    _session, block = _failed_session(host, tmp_path)
    controller = make_controller(client_factory=no_model)
    with qtbot.waitSignal(controller.shown):
        controller.show_overlay()
    w = controller.window
    assert w.isVisible() and w.windowTitle() == "Termwise"
    assert "bash" in w.header.title.text() and short_path(str(tmp_path)) in w.header.title.text()
    assert w.header.title.toolTip() == str(tmp_path)  # the whole folder on hover
    detail = w.header.detail.text()
    assert "ls /no-such-dir-termwise" in detail and f"exit {block.exit_code}" in detail
    assert "No such file or directory" in w.output.toPlainText()
    assert any(line.error and "No such file" in line.text for line in w.output.lines)
    assert "color:" in w.output.toHtml()  # the error line is drawn highlighted


@wine_limit("no-posix-tools")
def test_turn_events_appear_in_order_instant_first_then_streamed(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """Rules suggestions come first, then the model's, each with its verdict badge."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "git psuh")
    model_env.responder = _model
    controller = make_controller()
    shown: list[str] = []
    controller.suggestion_shown.connect(lambda _i, cmd: shown.append(cmd))
    _ask_fix(qtbot, controller)
    rows = controller.vm.rows
    sources = [r.suggestion.source for r in rows]
    assert "rules" in sources and "model" in sources
    assert sources == sorted(sources, key=lambda s: s != "rules")  # instant ones first
    assert shown[-2:] == ["ls -la", "rm -rf ./build-cache"]
    items = controller.window.suggestions.widgets
    assert [i.command.text() for i in items] == [r.command for r in rows]
    danger = items[[r.command for r in rows].index("rm -rf ./build-cache")]
    assert danger.badge.objectName() == "badge_dangerous"
    assert "rm-recursive-force" in danger.badge.toolTip()
    assert "deletes the cache folder" in danger.badge.toolTip()  # the model's explanation
    assert not controller.window.status.spinner.isVisible()


@wine_limit("no-posix-tools")
def test_enter_types_the_command_without_running_it(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """Enter on a suggestion types it at the prompt; it runs only when Enter reaches the shell."""
    session, _ = _failed_session(host, tmp_path)
    model_env.reply('{"command": "echo typed-by-overlay", "explanation": "say hi"}\n')
    controller = make_controller()
    _ask_fix(qtbot, controller)
    _select(controller, "echo typed-by-overlay")
    last = session.last_block().index
    with qtbot.waitSignal(controller.command_typed) as typed:
        qtbot.keyClick(controller.window.input, Qt.Key.Key_Return)
    assert typed.args == ["echo typed-by-overlay"]
    assert not controller.window.isVisible()
    assert session.wait_for_block(last, 0.5) is None  # typed, not run
    session.write(b"\r")
    block = session.wait_for_block(last, 10)
    assert block is not None and block.command == "echo typed-by-overlay"
    assert "typed-by-overlay" in block.text()


@wine_limit("no-posix-tools")
def test_enter_and_ctrl_enter_replace_half_typed_input_through_the_port(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """Pending text on the prompt is replaced, never prefixed: the block's command is exactly
    the suggestion, for Enter (type, then the user's Enter) and for Ctrl+Enter (run)."""
    session, _ = _failed_session(host, tmp_path)
    model_env.reply('{"command": "echo replaced-ok", "explanation": "say so"}\n')
    controller = make_controller()
    _ask_fix(qtbot, controller)
    _select(controller, "echo replaced-ok")
    assert "Ctrl+Enter run" in controller.window.hints.text()  # bash can run exactly
    session.write(b"echo PENDING-")
    last = session.last_block().index
    with qtbot.waitSignal(controller.command_typed):
        qtbot.keyClick(controller.window.input, Qt.Key.Key_Return)
    session.write(b"\r")
    block = session.wait_for_block(last, 10)
    assert block is not None and block.command == "echo replaced-ok"
    model_env.reply('{"command": "echo ran-exactly", "explanation": "say so"}\n')
    with qtbot.waitSignal(controller.turn_finished, timeout=20000):
        controller.show_overlay()
        controller.window.input.setText("say it")
        qtbot.keyClick(controller.window.input, Qt.Key.Key_Return)
    _select(controller, "echo ran-exactly")
    session.write(b"echo PENDING-")
    last = block.index
    with qtbot.waitSignal(controller.command_run, timeout=10000):
        qtbot.keyClick(
            controller.window.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier
        )
    block = session.wait_for_block(last, 10)
    assert block is not None and block.command == "echo ran-exactly"
    assert "PENDING" not in block.text()


def test_ctrl_c_copies_the_command_to_the_clipboard(
    qtbot: Any, host: Any, make_controller: Any, tmp_path: Path
) -> None:
    """Ctrl+C puts the chosen command on the system clipboard and says so."""
    need_display()
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "git psuh")
    controller = make_controller(client_factory=no_model)
    _ask_fix(qtbot, controller)
    command = controller.vm.rows[controller.vm.selected].command
    with qtbot.waitSignal(controller.command_copied, timeout=10000):
        qtbot.keyClick(controller.window.input, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    got = subprocess.run(
        ["xclip", "-o", "-selection", "clipboard"], capture_output=True, text=True, timeout=10
    )
    assert got.stdout == command
    assert command in controller.window.status.notice.text()


@wine_limit("no-posix-tools")
def test_dangerous_command_asks_and_once_runs_it(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """Ctrl+Enter on a dangerous command opens the approval dialog; "Run once" runs it."""
    (tmp_path / "build-cache").mkdir()
    session, _ = _failed_session(host, tmp_path)
    model_env.responder = _model
    controller = make_controller()
    _ask_fix(qtbot, controller)
    _select(controller, "rm -rf ./build-cache")
    with qtbot.waitSignal(controller.approval_opened) as opened:
        qtbot.keyClick(
            controller.window.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier
        )
    dialog: ApprovalDialog = opened.args[0]
    assert dialog.isVisible()
    assert "rm-recursive-force" in dialog.reasons.text()
    assert (tmp_path / "build-cache").exists()  # nothing ran before the answer
    last = session.last_block().index
    with qtbot.waitSignal(controller.command_run):
        qtbot.mouseClick(dialog.buttons["once"], Qt.MouseButton.LeftButton)
    block = session.wait_for_block(last, 10)
    assert block is not None and block.command == "rm -rf ./build-cache"
    wait_for(lambda: not (tmp_path / "build-cache").exists())


@wine_limit("no-posix-tools")
def test_deny_in_the_dialog_and_a_stored_deny_pattern_block_the_command(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, approvals: Any, tmp_path: Path
) -> None:
    """Deny runs nothing and is not remembered; Always deny blocks with a visible message and
    is remembered; a deny pattern blocks without asking."""
    session, _ = _failed_session(host, tmp_path)
    model_env.responder = _model
    controller = make_controller()
    _ask_fix(qtbot, controller)
    index = _select(controller, "rm -rf ./build-cache")
    with qtbot.waitSignal(controller.approval_opened) as opened:
        controller.run_command(index)
    last = session.last_block().index
    qtbot.mouseClick(opened.args[0].buttons["deny"], Qt.MouseButton.LeftButton)
    assert approvals.decide("rm -rf ./build-cache", "bash", "dangerous") == "ask"
    assert session.wait_for_block(last, 0.5) is None
    with qtbot.waitSignal(controller.approval_opened) as opened:
        controller.run_command(index)
    with qtbot.waitSignal(controller.command_blocked):
        qtbot.mouseClick(opened.args[0].buttons["never"], Qt.MouseButton.LeftButton)
    assert "Blocked" in controller.window.status.error.text()
    assert approvals.decide("rm -rf ./build-cache", "bash", "dangerous") == "deny"

    approvals.record("ls -la", "bash", "deny", pattern="ls *")
    opened_again: list[object] = []
    controller.approval_opened.connect(opened_again.append)
    last = session.last_block().index
    with qtbot.waitSignal(controller.command_blocked) as blocked:
        controller.run_command(_select(controller, "ls -la"))
    assert blocked.args == ["ls -la"] and not opened_again
    assert "ls -la" in controller.window.status.error.text()
    assert session.wait_for_block(last, 0.5) is None  # nothing reached the shell


@wine_limit("no-posix-tools")
def test_esc_cancels_the_request_and_the_stream_closes(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, tmp_path: Path
) -> None:
    """Esc while the model is still streaming hides the overlay and closes the HTTP stream."""
    _failed_session(host, tmp_path)
    model_env.reply('{"command": "ls -la", "explanation": "x"}\n{"command": "ne', stall_after=1)
    controller = make_controller()
    controller.show_overlay()  # after a failure it asks by itself
    assert model_env.wait_requests(1, 10)
    qtbot.waitUntil(lambda: controller.window.status.spinner.isVisible())
    qtbot.keyClick(controller.window.input, Qt.Key.Key_Escape)
    assert not controller.window.isVisible()
    assert model_env.wait_disconnect(5)
    assert not controller.runner.busy


@wine_limit("no-posix-tools")
def test_without_a_model_the_overlay_says_so_and_f2_opens_settings(
    qtbot: Any, host: Any, make_controller: Any, tmp_path: Path
) -> None:
    """No model: instant suggestions still come, a line says a model adds more, F2 opens Settings."""
    session = host.create("bash", cwd=str(tmp_path))
    finished_block(session, "git psuh")
    controller = make_controller(client_factory=no_model)
    _ask_fix(qtbot, controller)
    assert controller.vm.rows and controller.vm.rows[0].suggestion.source == "rules"
    status = controller.window.status
    assert "A model adds more" in status.notice.text() and status.settings_link.isVisible()
    with qtbot.waitSignal(controller.settings_requested) as asked:
        qtbot.keyClick(controller.window.input, Qt.Key.Key_F2)
    assert asked.args == ["provider"]
    with qtbot.waitSignal(controller.settings_requested) as linked:
        emit(status.settings_link.linkActivated, "settings")  # what a click on the link sends
    assert linked.args == ["provider"]


def test_without_a_session_the_clipboard_is_the_context(qtbot: Any, make_controller: Any) -> None:
    """With no session the overlay shows the clipboard text and says where it came from."""
    need_display()
    subprocess.run(
        ["xclip", "-selection", "clipboard"],
        input="npm ERR! missing script: start",
        text=True,
        timeout=10,
        check=True,
    )
    controller = make_controller(client_factory=no_model)
    controller.show_overlay()
    w = controller.window
    assert "clipboard" in w.header.detail.text()
    qtbot.waitUntil(lambda: "missing script: start" in w.output.toPlainText(), timeout=10000)
    assert controller.vm.context.clipboard_text == "npm ERR! missing script: start"


@wine_limit("no-posix-tools")
def test_tab_switches_the_active_session(
    qtbot: Any, host: Any, make_controller: Any, tmp_path: Path
) -> None:
    """Tab shows the next session and makes it the host's active one."""
    first = host.create("bash", cwd=str(tmp_path))
    finished_block(first, "echo first-session")
    second = host.create("bash", cwd=str(tmp_path))
    finished_block(second, "echo second-session")
    host.set_active(second.id)
    controller = make_controller(client_factory=no_model)
    controller.show_overlay()
    assert "echo second-session" in controller.window.header.detail.text()
    qtbot.keyClick(controller.window.input, Qt.Key.Key_Tab)
    assert host.active().id == first.id
    assert "echo first-session" in controller.window.header.detail.text()
    assert "1/2" in controller.window.header.title.text()


def test_language_switch_to_chinese_changes_visible_texts(
    qtbot: Any, host: Any, make_controller: Any
) -> None:
    """Choosing zh_CN in the config turns the overlay's texts Chinese at once."""
    controller = make_controller(client_factory=no_model)
    english = controller.window.hints.text()
    config = Config()
    config.ui.language = "zh_CN"
    controller.apply_config(config)
    chinese = controller.window.hints.text()
    assert chinese != english and "复制" in chinese
    assert "模型" in controller.window.status.notice.text()


@wine_limit("no-posix-tools")
def test_always_is_remembered_and_closing_the_dialog_runs_nothing(
    qtbot: Any, host: Any, make_controller: Any, model_env: Any, paths: Any, tmp_path: Path
) -> None:
    """Closing the dialog runs and stores nothing; a dangerous command offers no "always" (nor a
    session or wildcard allow), and "Run once" is asked again the next time."""
    from termwise.agent.safety.approvals import ApprovalStore

    (tmp_path / "build-cache").mkdir()
    session, _ = _failed_session(host, tmp_path)
    model_env.responder = _model
    controller = make_controller()
    _ask_fix(qtbot, controller)
    index = _select(controller, "rm -rf ./build-cache")
    with qtbot.waitSignal(controller.approval_opened) as opened:
        controller.run_command(index)
    opened.args[0].reject()  # Esc / the window's close button
    assert controller.dialog is None and (tmp_path / "build-cache").exists()
    assert ApprovalStore(paths.approvals_file).entries() == []

    with qtbot.waitSignal(controller.approval_opened) as opened:
        controller.run_command(index)
    assert set(opened.args[0].buttons) == {"once", "deny", "never"}
    with qtbot.waitSignal(controller.command_run):
        qtbot.mouseClick(opened.args[0].buttons["once"], Qt.MouseButton.LeftButton)
    wait_for(lambda: not (tmp_path / "build-cache").exists())
    assert ApprovalStore(paths.approvals_file).entries() == []

    (tmp_path / "build-cache").mkdir()
    with qtbot.waitSignal(controller.approval_opened) as opened:
        controller.run_command(index)
    opened.args[0].reject()
    assert (tmp_path / "build-cache").exists()
    assert session.alive
