"""Journey behind the README's pictures: a failed command, the overlay's suggestions, and the
approval dialog for a dangerous one, which Enter denies.

A person mistypes `git psuh` and presses Ctrl+Alt+Space: with no key pressed the overlay
shows the instant rule's `git push` first, then the model's two. They pick `git push --force`
and press Ctrl+Enter: the dialog says it is dangerous, offers no "always", and Enter denies.
The shell ran nothing after `git psuh`. The screenshots (overlay-suggestions.png,
approval-dangerous.png) replace docs/screenshots' with `TERMWISE_UPDATE_SCREENSHOTS=1`.
"""

from __future__ import annotations

import pytest

from tests.e2e.harness import wait_until
from tests.e2e.journeys.desk import APPROVAL_TITLE, WAIT, Desk
from tests.e2e.journeys.model_script import ModelScript
from tests.e2e.journeys.screens import home_folder, screenshot

pytestmark = pytest.mark.e2e

FAILING = "git psuh"
RULES_FIX = "git push"  # the instant rules tier's answer to the typo
MODEL_FIXES = ("git push -u origin HEAD", "git push --force")
DANGEROUS = "git push --force"


def test_overlay_suggestions_and_the_dangerous_approval_enter_denies(
    desk: Desk, script: ModelScript, tray_env: dict[str, str]
) -> None:
    """Suggestions unasked, rules first; the dangerous one's dialog offers no "always" and
    Enter denies it: the shell runs nothing."""
    script.when(FAILING, *MODEL_FIXES)
    term = desk.open_terminal("bash", home_folder(tray_env, "src", "shop"))
    failed = term.run(FAILING)
    assert failed["exit_code"] != 0
    count = len(term.blocks())

    mark = desk.hotkey()
    desk.wait_log("turn finished", mark)  # no key pressed: the overlay asked by itself
    rows = desk.suggestions(mark)
    commands = [c for _, c in rows]
    assert commands[0] == RULES_FIX  # the instant tier is in the first frame
    assert set(MODEL_FIXES) <= set(commands)
    screenshot(desk.desktop, "overlay-suggestions.png")

    desk.choose(commands.index(DANGEROUS))
    desk.key("ctrl+Return")
    offered = desk.wait_approval(mark)
    assert offered["command"] == DANGEROUS and offered["dangerous"] is True
    assert set(offered["buttons"]) == {"once", "deny", "never"}  # no always, no wildcard
    assert offered["focus"] == offered["default"] == "deny"
    screenshot(desk.desktop, "approval-dangerous.png")

    desk.key("Return")
    answered = desk.wait_log("approval answered: ", mark)
    assert answered["message"] == "approval answered: deny"
    # The dialog hides after its answer was handled: a run would have been logged by then.
    wait_until(lambda: not desk.visible(APPROVAL_TITLE), WAIT, "the dialog to close")
    assert not desk.logged("command run: ", mark)
    assert [b["command"] for b in term.blocks()[count - 1 :]] == [FAILING]
