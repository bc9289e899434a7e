"""Journey: `??` typed after a failed command, in a real terminal, offers the rules' fix first.

A person's `git psuh` fails; they type `??` and Enter. The picker shows `git push` from the
rules tier (which the host ran for it) and the model's suggestion below, then `q` closes
it. Nothing else runs: the shell's next block is the `??` itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.journeys.desk import Desk
from tests.e2e.journeys.model_script import ModelScript
from tests.e2e.journeys.screens import screenshot

pytestmark = pytest.mark.e2e

FAILED = "git psuh"
MODEL_FIX = "git push --dry-run"


def test_the_ask_word_offers_the_rules_fix_then_the_models(
    desk: Desk, script: ModelScript, workdir: Path
) -> None:
    script.when(FAILED, MODEL_FIX)
    term = desk.open_terminal("bash", workdir)
    failed = term.run(FAILED)
    assert failed["command"] == FAILED and failed["exit_code"] != 0
    count = len(term.blocks())

    desk.type("??")
    desk.key("Return")
    term.wait_shown(MODEL_FIX)  # the model's answer comes after the instant one
    # The picker's last drawing, without its colours: the rules' fix first, judged.
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.received())
    last = shown[shown.rfind("› 1. ") :]
    assert re.match(r"› 1\. git push +\[confirm · rules\]", last), last
    assert re.search(r"2\. git push --dry-run +\[confirm · model\]", last), last
    screenshot(desk.desktop, "ask-word.png")
    desk.type("q")

    blocks = term.wait_blocks(count + 1)
    assert [b["command"] for b in blocks[count:]] == ["??"]
    assert blocks[count]["exit_code"] == 0
