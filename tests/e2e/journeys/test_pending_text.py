"""Journey: half-typed text on the prompt is replaced by the chosen suggestion, never prefixed to it.

A person types `echo PENDING-`, thinks better of it, presses Ctrl+Alt+Space and picks the
model's fix: Enter (type, then Enter in the terminal) or Ctrl+Enter (run). What the shell
executes, read back with `termwise context --json`, is exactly the suggestion.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.journeys.desk import Desk
from tests.e2e.journeys.model_script import ModelScript

pytestmark = pytest.mark.e2e

PENDING = "echo PENDING-"


@pytest.mark.parametrize("action", ["type", "run"])
@pytest.mark.parametrize(
    "shell", [pytest.param("bash"), pytest.param("zsh", marks=pytest.mark.requires("zsh"))]
)
def test_the_chosen_suggestion_replaces_pending_text(
    desk: Desk, script: ModelScript, workdir: Path, shell: str, action: str
) -> None:
    """Enter / Ctrl+Enter over half-typed text: the shell runs the suggestion alone."""
    failing = f"journey_pending_{shell}_{action}"
    fix = f"echo replaced-{shell}-{action}"
    script.when(failing, fix)
    term = desk.open_terminal(shell, workdir)
    failed = term.run(failing)
    assert failed["command"] == failing and failed["exit_code"] != 0
    count = len(term.blocks())

    desk.type(PENDING)  # no Enter: it waits on the prompt
    mark = desk.hotkey()
    row = desk.wait_suggestion(fix, mark)
    desk.choose(row)
    if action == "type":
        desk.key("Return")
        assert desk.wait_log("command typed: ", mark)["message"] == f"command typed: {fix}"
        desk.wait_overlay_closed()
        term.wait_focus()
        desk.key("Return")  # the person runs what now sits on the prompt
    else:
        desk.key("ctrl+Return")  # a safe command runs without a question
        assert desk.wait_log("command run: ", mark)["message"] == f"command run: {fix}"
        desk.wait_overlay_closed()

    ran = term.wait_blocks(count + 1)[count:]
    assert [b["command"] for b in ran] == [fix]
    assert ran[0]["exit_code"] == 0
    assert ran[0]["output"].strip() == f"replaced-{shell}-{action}"
    assert not desk.logged("approval shown", mark)
