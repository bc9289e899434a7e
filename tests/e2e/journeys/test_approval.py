"""Journeys through the approval dialog: Enter denies, danger offers no "always", Deny is not kept.

The model suggests a command that deletes something in the test's own folder; the person
presses Ctrl+Enter in the overlay and answers the dialog with the keyboard. Afterwards the
file is still there and `termwise context` shows that the shell ran nothing but the next
command the person typed.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.journeys.desk import Desk, Terminal
from tests.e2e.journeys.model_script import ModelScript

pytestmark = pytest.mark.e2e

CONFIRM = "rm ./confirm-marker.txt"  # rules: confirm (deletes files)
DANGEROUS = "rm -rf ./build-junk"  # rules: dangerous (recursive, forced)
HELD = "j='rm -rf ./build-junk'; $j"  # the same, run from a variable set on the line
VICTIMS = {
    CONFIRM: "confirm-marker.txt",
    DANGEROUS: "build-junk/keep.txt",
    HELD: "build-junk/keep.txt",
}
ALWAYS = {"always", "session", "pattern"}  # the answers that would remember an allow
_SERIAL = itertools.count(1)  # a fresh failing command per test, so the model's answer is its own


def _prepare(desk: Desk, script: ModelScript, workdir: Path, command: str) -> Terminal:
    """A file the command would delete, a failure whose model fix is that command."""
    victim = workdir / VICTIMS[command]
    victim.parent.mkdir(parents=True, exist_ok=True)
    victim.write_text("keep me\n")
    failing = f"journey_approval_{next(_SERIAL)}"
    script.when(failing, command)
    term = desk.open_terminal("bash", workdir)
    assert term.run(failing)["exit_code"] != 0
    return term


def _ask_to_run(desk: Desk, command: str) -> tuple[int, dict[str, Any]]:
    """Hotkey, ↓ to the command, Ctrl+Enter: the dialog is up; (log mark, what it offers)."""
    mark = desk.hotkey()
    desk.choose(desk.wait_suggestion(command, mark))
    desk.key("ctrl+Return")
    offered = desk.wait_approval(mark)
    assert offered["command"] == command
    return mark, offered


def _answer(desk: Desk, key: str, mark: int) -> None:
    """Press `key` in the dialog: it must be a one-time deny; back to the overlay, Esc."""
    desk.key(key)
    assert desk.wait_log("approval answered: ", mark)["message"] == "approval answered: deny"
    desk.wait_approval_closed()
    desk.wait_overlay_focus()  # the overlay stays, with the command not run
    desk.key("Escape")
    desk.wait_overlay_closed()


def _ran_nothing_since(term: Terminal, count: int, workdir: Path, command: str) -> None:
    """The next command typed by hand is the only one the shell ran; the file is still there."""
    term.wait_focus()
    desk = term.desk
    desk.type("echo after-deny")
    desk.key("Return")
    ran = term.wait_blocks(count + 1)[count:]
    assert [b["command"] for b in ran] == ["echo after-deny"]
    assert (workdir / VICTIMS[command]).read_text() == "keep me\n"


@pytest.mark.parametrize("command", [CONFIRM, DANGEROUS], ids=["confirm", "dangerous"])
def test_enter_in_the_approval_dialog_denies(
    desk: Desk, script: ModelScript, workdir: Path, command: str
) -> None:
    """Ctrl+Enter on a risky suggestion, then Enter in the dialog: nothing runs."""
    term = _prepare(desk, script, workdir, command)
    count = len(term.blocks())
    mark, offered = _ask_to_run(desk, command)
    _answer(desk, "Return", mark)  # what Enter does first; then what the dialog said
    assert offered["dangerous"] is (command == DANGEROUS)
    assert offered["focus"] == "deny" and offered["default"] == "deny"
    assert offered["buttons"]["deny"] == "Deny (Enter)"
    assert not desk.logged("command run: ", mark)
    _ran_nothing_since(term, count, workdir, command)


def test_a_dangerous_command_offers_no_always(
    desk: Desk, script: ModelScript, workdir: Path
) -> None:
    """The dialog for `rm -rf ./build-junk` reads "dangerous" and offers Run once, Deny and
    Always deny only: no "always allow", no "this session", no wildcard."""
    term = _prepare(desk, script, workdir, DANGEROUS)
    count = len(term.blocks())
    mark, offered = _ask_to_run(desk, DANGEROUS)
    assert offered["dangerous"] is True
    assert offered["heading"] == "This command is dangerous"
    assert list(offered["buttons"]) == ["once", "deny", "never"]
    assert not ALWAYS & set(offered["buttons"])
    assert not any("allow" in label.lower() for label in offered["buttons"].values())
    desk.desktop.screenshot("journey-approval-dangerous.png")
    _answer(desk, "Escape", mark)
    _ran_nothing_since(term, count, workdir, DANGEROUS)


def test_deny_is_not_remembered(desk: Desk, script: ModelScript, workdir: Path) -> None:
    """Deny once, then ask to run the same command again: the dialog asks again (a remembered
    deny would block it silently), and the confirm dialog does offer its "always" choices."""
    term = _prepare(desk, script, workdir, CONFIRM)
    count = len(term.blocks())
    first, offered = _ask_to_run(desk, CONFIRM)
    # A confirm command may be remembered (no wildcard for a two-word command), not by Deny.
    assert {"always", "session"} <= set(offered["buttons"])
    _answer(desk, "Return", first)

    again, offered = _ask_to_run(desk, CONFIRM)
    assert offered["command"] == CONFIRM
    assert not desk.logged("command blocked: ", first)
    _answer(desk, "Escape", again)
    assert not desk.logged("command run: ", first)
    _ran_nothing_since(term, count, workdir, CONFIRM)


def test_a_command_held_in_a_variable_is_judged_as_what_it_runs(
    desk: Desk, script: ModelScript, workdir: Path
) -> None:
    """`j='rm -rf ./build-junk'; $j` reads "dangerous", and the first reason the person sees
    says what `$j` holds; Escape denies it and the folder is still there."""
    term = _prepare(desk, script, workdir, HELD)
    count = len(term.blocks())
    mark, offered = _ask_to_run(desk, HELD)
    assert offered["dangerous"] is True
    assert offered["heading"] == "This command is dangerous"
    assert "`$j` is `rm -rf ./build-junk`" in offered["reasons"][0], offered["reasons"]
    desk.desktop.screenshot("journey-approval-held.png")
    _answer(desk, "Escape", mark)
    _ran_nothing_since(term, count, workdir, HELD)
