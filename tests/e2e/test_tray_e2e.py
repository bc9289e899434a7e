"""The real tray under Xvfb with trayer: hotkey → overlay → suggestions → Enter types; the tray menu."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from termwise.agent.base.paths import Paths
from termwise.tray.ipc.client import HostClient

from tests.e2e.conftest import MODEL_COMMAND
from tests.e2e.harness import Desktop, TrayProcess, wait_until

pytestmark = pytest.mark.e2e

FAILING = "git psuh"
RULES_COMMAND = "git push"


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "termwise.tray.commands.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _suggestions(tray: TrayProcess, after: int) -> list[tuple[int, str]]:
    found = []
    for line in tray.messages()[after:]:
        message = str(line.get("message", ""))
        if message.startswith("suggestion shown: "):
            index, _, command = message[len("suggestion shown: ") :].partition(" ")
            found.append((int(index), command))
    return found


def test_tray_icon_sits_in_the_tray_and_its_menu_opens(desktop: Desktop, tray: TrayProcess) -> None:
    """The icon is embedded by the tray host; a right click on it shows the Termwise menu."""
    ready = tray.wait_log(lambda e: e.get("message") == "tray ready", 5, "tray ready")
    x, y, w, h = ready["event"]["geometry"]
    assert ready["event"]["tray_available"] is True
    assert w > 0 and h > 0 and 0 < x < 1280 and 0 < y < 800
    mark = tray.mark()
    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2), "click", "3")
    tray.wait_log(lambda e: e.get("message") == "menu shown", 20, "menu shown", after=mark)
    shot = desktop.screenshot("tray-menu.png")
    assert shot.stat().st_size > 0
    desktop.xdotool("key", "Escape")


def test_hotkey_shows_the_failure_and_enter_types_the_fix(
    desktop: Desktop, tray: TrayProcess, tray_env: dict[str, str], tray_paths: Paths
) -> None:
    """A failed command in a bash session, Ctrl+Alt+Space: rules and model fixes appear unasked; Enter types one."""
    client = HostClient(tray_paths)
    session_id = str(client.create(shell="bash")["id"])
    client.send(session_id, FAILING, enter=True)
    block = client.wait_block(session_id, -1, 30)
    assert block is not None and block["command"] == FAILING and block["exit_code"] != 0

    # The hotkey, pressed from "any terminal": the overlay comes up showing that failure
    # and asks by itself: instant rules first, then the model's stream, no key pressed.
    mark = tray.mark()
    desktop.xdotool("mousemove", "640", "300")
    desktop.xdotool("key", "ctrl+alt+space")
    shown = tray.wait_log(
        lambda e: e.get("message") == "overlay context", 20, "overlay", after=mark
    )
    assert shown["event"]["session"] == session_id
    assert shown["event"]["command"] == FAILING
    assert shown["event"]["visible"] is True and shown["event"]["title"] == "Termwise"
    windows = wait_until(
        lambda: desktop.search("--onlyvisible", "--name", "^Termwise$"), 10, "the overlay window"
    )

    desktop.xdotool("windowfocus", "--sync", windows[0])
    wait_until(
        lambda: {RULES_COMMAND, MODEL_COMMAND} <= {c for _, c in _suggestions(tray, mark)},
        60,
        f"suggestions {RULES_COMMAND!r} and {MODEL_COMMAND!r}:\n{tray.tail()}",
    )
    rows = _suggestions(tray, mark)
    commands = [c for _, c in rows]
    assert commands.index(RULES_COMMAND) < commands.index(MODEL_COMMAND)  # instant tier first
    desktop.screenshot("overlay-suggestions.png")

    # ↓ to the model's suggestion, Enter types it into the session without running it.
    model_row = next(i for i, c in rows if c == MODEL_COMMAND)
    for _ in range(model_row):
        desktop.xdotool("key", "Down")
    mark = tray.mark()
    desktop.xdotool("key", "Return")
    typed = tray.wait_log(
        lambda e: str(e.get("message", "")).startswith("command typed"),
        20,
        "command typed",
        after=mark,
    )
    assert MODEL_COMMAND in typed["message"]
    assert not desktop.search("--onlyvisible", "--name", "^Termwise$")  # the overlay went away
    desktop.screenshot("after-typing.png")

    # The command sits at the prompt; Enter in the session runs it.
    sent = _cli(tray_env, "send", "--raw", "--session", session_id, "--enter", "")
    assert sent.returncode == 0, sent.stderr
    done = client.wait_block(session_id, block_index(block), 30)
    assert done is not None and done["command"] == MODEL_COMMAND
    context = _cli(tray_env, "context", "--session", session_id, "--json")
    assert context.returncode == 0, context.stderr
    last = _last_block(json.loads(context.stdout))
    assert last["command"] == MODEL_COMMAND and "fixed-by-termwise" in last["output"]


def block_index(block: dict[str, Any]) -> int:
    return int(block.get("index", 0))


def _last_block(data: Any) -> dict[str, Any]:
    blocks = data if isinstance(data, list) else data.get("blocks", [])
    return blocks[-1]


def test_second_start_forwards_to_the_running_tray(
    desktop: Desktop, tray: TrayProcess, tray_env: dict[str, str]
) -> None:
    """Starting `termwise` again exits 0 and the running tray shows its overlay."""
    mark = tray.mark()
    second = _cli(tray_env)
    assert second.returncode == 0, second.stderr
    assert "already running" in second.stderr
    tray.wait_log(
        lambda e: e.get("message") == "request from another start: show",
        20,
        "forwarded",
        after=mark,
    )
    tray.wait_log(lambda e: e.get("message") == "overlay context", 20, "overlay", after=mark)
    desktop.xdotool("key", "Escape")


def test_quit_from_the_menu_asks_and_ends_the_shells(
    desktop: Desktop, tray: TrayProcess, tray_paths: Paths
) -> None:
    """Quit in the tray menu asks first (naming the running shells), then ends them and the tray."""
    client = HostClient(tray_paths)
    running = [s for s in client.sessions() if s.get("alive", True)]
    assert running, "the earlier test left a session running"
    ready = tray.wait_log(lambda e: e.get("message") == "tray ready", 5, "tray ready")
    x, y, w, h = ready["event"]["geometry"]
    mark = tray.mark()
    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2), "click", "3")
    tray.wait_log(lambda e: e.get("message") == "menu shown", 20, "menu shown", after=mark)
    desktop.xdotool("key", "Up", "Return")  # the last item: Quit
    box = wait_until(
        lambda: desktop.search("--onlyvisible", "--name", "^Quit Termwise$"),
        20,
        "the quit question",
    )
    desktop.screenshot("quit-question.png")
    desktop.xdotool("windowfocus", "--sync", box[0])
    desktop.xdotool("key", "Tab", "Return")  # from the default Cancel over to Quit
    assert tray.proc is not None
    assert tray.proc.wait(30) == 0
    ended = tray.wait_log(
        lambda e: str(e.get("message", "")).startswith("quitting:"), 5, "quitting", after=mark
    )
    assert f"{len(running)} session(s) end" in ended["message"]
