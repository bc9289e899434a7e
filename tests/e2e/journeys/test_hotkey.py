"""Journey: the hotkey is taken, not watched: the focused xterm never receives a byte of it.

Before the X11 grab, xterm also got Ctrl+Alt+Space and put U+0080 (`\\302\\200`) in front of
the next command (`$'\\302\\200echo': command not found`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.journeys.desk import Desk

pytestmark = pytest.mark.e2e

LEAKED = "\x80"


def _closed_with_esc(desk: Desk) -> None:
    desk.hotkey()
    desk.key("Escape")
    desk.wait_overlay_closed()


@pytest.mark.parametrize(
    "shell", [pytest.param("bash"), pytest.param("zsh", marks=pytest.mark.requires("zsh"))]
)
def test_the_hotkey_leaves_nothing_in_the_terminal(desk: Desk, workdir: Path, shell: str) -> None:
    """Hotkey then Esc, mid-line and on an empty prompt: the commands typed around it run clean."""
    term = desk.open_terminal(shell, workdir)
    count = len(term.blocks())

    desk.type("echo clean-")  # half a command, then the hotkey, then the rest of it
    _closed_with_esc(desk)
    term.wait_focus()
    desk.type("after-hotkey")
    desk.key("Return")

    _closed_with_esc(desk)  # and on an empty prompt
    term.wait_focus()
    desk.type("echo next-command")
    desk.key("Return")

    ran = term.wait_blocks(count + 2)[count:]
    assert [b["command"] for b in ran] == ["echo clean-after-hotkey", "echo next-command"]
    assert [b["exit_code"] for b in ran] == [0, 0]
    assert [b["output"].strip() for b in ran] == ["clean-after-hotkey", "next-command"]
    for block in ran:
        assert LEAKED not in block["command"] + block["output"]
        assert "not found" not in block["output"]
