"""Journeys: the overlay asks by itself after a failure, and each open starts fresh.

Hotkey after a failed command and no key pressed: the rules' fix is there in the first frame,
the model's streams in after it; choosing one runs it. Reopened after another failure, the
overlay offers and types only what belongs to the new failure.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.e2e.journeys.desk import Desk
from tests.e2e.journeys.model_script import ModelScript

pytestmark = pytest.mark.e2e


def test_after_a_failure_suggestions_come_without_a_key(
    desk: Desk, script: ModelScript, workdir: Path
) -> None:
    """`gti status` failed: the hotkey alone brings `git status` (rules) then the model's fix;
    Ctrl+Enter on the first row runs `git status` in the shell."""
    subprocess.run(["git", "init", "-q", str(workdir)], check=True, timeout=60)
    failing, rules_fix, model_fix = "gti status", "git status", "echo instant-model-fix"
    script.when(failing, model_fix)
    term = desk.open_terminal("bash", workdir)
    assert term.run(failing)["exit_code"] != 0
    count = len(term.blocks())

    mark = desk.hotkey()  # and nothing else: no Enter, no query
    desk.wait_suggestion(model_fix, mark)
    messages = [str(e.get("message", "")) for e in desk.tray.messages()[mark:]]
    shown = next(i for i, m in enumerate(messages) if m.startswith("overlay shown"))
    assert messages.index(f"suggestion shown: 0 {rules_fix}") < shown  # in the first frame
    rows = desk.suggestions(mark)
    assert rows[0] == (0, rules_fix)
    assert [c for _, c in rows].index(model_fix) > 0  # the model's after the instant tier
    assert not desk.logged("turn started", mark)  # nobody asked: the overlay did
    desk.desktop.screenshot("journey-instant-suggestions.png")

    desk.key("ctrl+Return")  # the first row, as it was selected on open
    assert desk.wait_log("command run: ", mark)["message"] == f"command run: {rules_fix}"
    desk.wait_overlay_closed()
    ran = term.wait_blocks(count + 1)[count:]
    assert [b["command"] for b in ran] == [rules_fix]
    assert ran[0]["exit_code"] == 0


def test_a_reopened_overlay_never_types_an_old_suggestion(
    desk: Desk, script: ModelScript, workdir: Path
) -> None:
    """Failure A, overlay (↓ to A's second row), Esc; failure B, overlay, Enter: B's first fix
    is typed and runs, nothing of A."""
    script.when("journey_stale_a", "echo stale-a-0", "echo stale-a-1")
    script.when("journey_stale_b", "echo fresh-b-0", "echo fresh-b-1")
    term = desk.open_terminal("bash", workdir)

    term.run("journey_stale_a")
    mark = desk.hotkey()
    desk.wait_suggestion("echo stale-a-1", mark)
    desk.choose(1)
    desk.key("Escape")
    desk.wait_overlay_closed()

    term.run("journey_stale_b")
    count = len(term.blocks())
    mark = desk.hotkey()
    desk.wait_suggestion("echo fresh-b-1", mark)
    assert [c for _, c in desk.suggestions(mark)] == ["echo fresh-b-0", "echo fresh-b-1"]
    desk.key("Return")  # types the selected row: the first, since every open starts fresh
    assert desk.wait_log("command typed: ", mark)["message"] == "command typed: echo fresh-b-0"
    desk.wait_overlay_closed()
    term.wait_focus()
    desk.key("Return")
    ran = term.wait_blocks(count + 1)[count:]
    assert [b["command"] for b in ran] == ["echo fresh-b-0"]
    assert ran[0]["output"].strip() == "fresh-b-0"


def test_after_a_success_the_reopened_overlay_offers_nothing_old(
    desk: Desk, script: ModelScript, workdir: Path
) -> None:
    """Failure A, overlay, Esc; a command that succeeds; overlay again and Enter straight away:
    it asks anew (no old row to type), and the next command typed by hand runs alone."""
    script.when("journey_stale_c", "echo stale-c-0")
    term = desk.open_terminal("bash", workdir)
    term.run("journey_stale_c")
    mark = desk.hotkey()
    desk.wait_suggestion("echo stale-c-0", mark)
    desk.key("Escape")
    desk.wait_overlay_closed()

    assert term.run("echo all-good")["exit_code"] == 0
    count = len(term.blocks())
    mark = desk.hotkey()
    assert not desk.suggestions(mark)  # nothing is asked after a success
    desk.key("Return")  # nothing typed in the input: an old row would be typed now
    asked = desk.wait_first(("turn started", "command typed: "), mark)
    assert asked["message"].startswith("turn started"), asked["message"]
    desk.key("Escape")
    desk.wait_overlay_closed()
    term.wait_focus()
    desk.type("echo by-hand")
    desk.key("Return")
    ran = term.wait_blocks(count + 1)[count:]
    assert [b["command"] for b in ran] == ["echo by-hand"]


def test_a_typo_of_a_program_on_the_shells_own_path_is_corrected(
    desk: Desk, script: ModelScript, workdir: Path
) -> None:
    """The shell put a folder on its PATH (as a venv does); `frobnicat` failed. The overlay's
    instant fix is `frobnicate` from that folder, which the tray's own PATH lacks; Enter types
    it and Enter in the shell runs the program."""
    tools = workdir / "tools"
    tools.mkdir()
    program = tools / "frobnicate"
    program.write_text("#!/bin/sh\necho frobnicated\n")
    program.chmod(0o755)
    script.when("frobnicat", "echo model-says-hi")
    term = desk.open_terminal("bash", workdir)
    assert term.run(f'export PATH="{tools}:$PATH"')["exit_code"] == 0
    assert term.run("frobnicat")["exit_code"] == 127
    count = len(term.blocks())

    mark = desk.hotkey()
    desk.wait_suggestion("echo model-says-hi", mark)
    assert desk.suggestions(mark)[0] == (0, "frobnicate")
    desk.desktop.screenshot("journey-shell-path-fix.png")
    desk.key("Return")
    assert desk.wait_log("command typed: ", mark)["message"] == "command typed: frobnicate"
    desk.wait_overlay_closed()
    term.wait_focus()
    desk.key("Return")
    ran = term.wait_blocks(count + 1)[count:]
    assert [(b["command"], b["output"].strip(), b["exit_code"]) for b in ran] == [
        ("frobnicate", "frobnicated", 0)
    ]
