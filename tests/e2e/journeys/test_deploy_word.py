"""Journey: `deploy ./proj` typed at a session's prompt runs the plan in ./proj, not where it was typed.

A person in a folder that holds `proj/` types `deploy ./proj`. The model (told that every
command runs in proj) plans one step, `pwd > where.txt`. The person answers the offer with
`r` (run it here) and approves the step with `y`. The plan then runs in this very session:
the shell enters proj, writes where.txt there, and the terminal shows the run's outcome line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.journeys.desk import Desk
from tests.e2e.journeys.model_script import ModelScript
from tests.e2e.journeys.screens import home_folder, screenshot
from tests.support.llm_server import Reply, make_reply

pytestmark = pytest.mark.e2e

DEPLOY_PROMPT = "You plan how to get a software project running"  # deploy.md's first words
STEP = "pwd > where.txt"  # needs confirmation (it writes a file): the person is asked
CHECK = "test -s where.txt"
OFFER = "Run it here step by step?"
ASKED = "Run it? [y] Run once"


class DeployScript(ModelScript):
    """The journeys' model, which also answers a deploy request with a one-step plan."""

    def __init__(self) -> None:
        super().__init__()
        self.plan_requests: list[str] = []  # the user message of each deploy request

    def __call__(self, request: dict[str, Any]) -> Reply:
        messages = request.get("messages") or [{}]
        if str(messages[0].get("content", "")).startswith(DEPLOY_PROMPT):
            self.plan_requests.append(str(messages[-1].get("content", "")))
            step = {
                "step": 1,
                "title": "Note where the project runs",
                "why": "Shows which folder the plan's commands run in.",
                "commands": [STEP],
                "check": CHECK,
                "notes": "",
            }
            return make_reply({"text": json.dumps(step) + "\n", "chunk_size": 40})
        return super().__call__(request)


@pytest.fixture(scope="module")
def script() -> DeployScript:
    return DeployScript()


def test_deploy_word_runs_the_plan_in_the_named_folder(
    desk: Desk, script: DeployScript, tray_env: dict[str, str]
) -> None:
    """`deploy ./proj`, r, y: the step runs in proj (the file is there, the shell's block says
    so) and the terminal shows the outcome line."""
    here = home_folder(tray_env, "src")
    proj = here / "proj"
    proj.mkdir()
    (proj / "README.md").write_text("# proj\n\nRun `pwd` to see where you are.\n")
    term = desk.open_terminal("bash", here)
    count = len(term.blocks())

    term.focus()
    desk.type("deploy ./proj")
    desk.key("Return")
    term.wait_shown("Plan (1 step) saved to ")
    term.wait_shown(OFFER)
    desk.type("r")
    desk.key("Return")
    term.wait_shown(ASKED)
    desk.type("y")
    desk.key("Return")

    # The deploy word's own block, then the plan's commands typed into this same session.
    blocks = term.wait_blocks(count + 4)
    ran = blocks[count:]
    assert ran[0]["command"] == "deploy ./proj" and ran[0]["exit_code"] == 0
    commands = [b["command"] for b in ran[1:]]
    assert commands[0].startswith("cd -- ") and commands[0].endswith("/proj")
    assert commands[1:3] == [STEP, CHECK]
    assert [b["exit_code"] for b in ran[1:4]] == [0, 0, 0]
    assert Path(ran[2]["cwd"]).resolve() == proj.resolve()  # the step ran in proj
    assert Path((proj / "where.txt").read_text().strip()).resolve() == proj.resolve()
    assert not (here / "where.txt").exists()  # ... not where `deploy` was typed
    term.wait_shown("[termwise deploy: completed; log: ")  # the outcome, in the terminal
    assert "^[[9274~" not in term.received()  # no echoed key around the notice
    assert script.plan_requests and "Every command runs in" in script.plan_requests[-1]
    screenshot(desk.desktop, "deploy-word.png")
