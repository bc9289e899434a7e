"""Journey: the theme switches live, in the overlay that is open on screen, without a restart.

A person opens the overlay, F2 for Settings, picks Light with the mouse and keys (and turns the
failure notifications off), Apply. They mistype `git chekout main` in a repository and press
Ctrl+Alt+Space: the rules' fix and the model's come unasked. With that overlay still open they pick Dark and Apply: the same
overlay window turns dark at once (its pixels, not only its log). Then 简体中文: the overlay,
reopened, asks again and shows the model's Chinese answer, dark; back to Light with it open.
The four pictures are overlay-{light,dark}-{en,zh_CN}.png (docs/screenshots with
`TERMWISE_UPDATE_SCREENSHOTS=1`); the tray process is the same throughout.
"""

from __future__ import annotations

import subprocess

import pytest
from termwise.overlay.theme import DARK, LIGHT, Theme

from tests.e2e.harness import ARTIFACTS, TrayProcess, wait_until
from tests.e2e.journeys.desk import OVERLAY_TITLE, WAIT, Desk
from tests.e2e.journeys.model_script import ModelScript
from tests.e2e.journeys.screens import SettingsScreen, home_folder, pixel, screenshot

pytestmark = pytest.mark.e2e

FAILING = "git chekout main"
RULES_FIX = "git checkout main"  # the instant tier's answer to git's "most similar command"
MODEL_EN = (
    ("git switch main", "Switch to the main branch with the newer command."),
    ("git branch --all", "List the local and remote branches to check the name."),
    ("git reset --hard origin/main", "Make the branch match the remote, dropping local work."),
)
MODEL_ZH = (  # what the model answers once the user's language is Chinese
    ("git switch main", "用较新的命令切换到 main 分支。"),
    ("git branch --all", "列出本地和远程分支，确认分支名。"),
    ("git reset --hard origin/main", "让分支与远程一致，会丢弃本地改动。"),
)
# The Theme list: Follow the system, Light, Dark; the Language list: Automatic, English, 简体中文.
PICK_LIGHT = ("Home", "Down")
PICK_DARK = ("End",)
PICK_CHINESE = ("End",)
PROBE = ARTIFACTS / "journeys" / "theme-probe"  # pictures taken only to read a colour


def overlay_window(desk: Desk) -> str:
    return str(wait_until(lambda: desk.visible(OVERLAY_TITLE), WAIT, "the overlay window")[0])


def background(desk: Desk, window: str) -> str:
    """The overlay's own background colour as it is on screen now (top middle of its frame)."""
    shot = screenshot(desk.desktop, "overlay.png", window, folder=PROBE)
    width = int(
        subprocess.run(
            ["identify", "-format", "%w", str(shot)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    )
    return pixel(shot, width // 2, 6)


def wait_background(desk: Desk, window: str, theme: Theme) -> None:
    wait_until(
        lambda: background(desk, window) == theme.background,
        WAIT,
        f"the overlay drawn {theme.name} ({theme.background}), not {background(desk, window)}",
        step=0.3,
    )


def open_with_suggestions(desk: Desk, model_fix: str) -> str:
    """Ctrl+Alt+Space after the failure: the overlay asks by itself; its window once the
    model's answer is in."""
    mark = desk.hotkey()
    desk.wait_suggestion(RULES_FIX, mark)
    desk.wait_suggestion(model_fix, mark)
    desk.wait_log("turn finished", mark)
    return overlay_window(desk)


def switch_theme(
    desk: Desk,
    settings: SettingsScreen,
    window: str,
    pick: tuple[str, ...],
    theme: Theme,
    picture: str,
) -> int:
    """Pick a theme in Settings and Apply with the overlay open: the open window is
    redrawn in it; its picture is saved. Returns the tray-log mark taken before Apply."""
    mark = desk.tray.mark()
    settings.choose_theme(pick)
    applied = settings.apply(mark)
    assert applied["overlay_theme"] == theme.name and applied["overlay_visible"] is True
    wait_background(desk, window, theme)
    screenshot(desk.desktop, picture, window)
    return mark


def test_theme_switches_live_in_the_open_overlay(
    desk: Desk, script: ModelScript, tray: TrayProcess, tray_env: dict[str, str]
) -> None:
    """Light, then Dark with the overlay open: the same window is redrawn dark; in Chinese
    too, back to Light live. Four pictures, one tray process."""
    assert tray.proc is not None
    pid = tray.proc.pid
    repo = home_folder(tray_env, "src", "shop")
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    script.when(FAILING, *MODEL_EN)
    term = desk.open_terminal("bash", repo)

    mark = desk.hotkey()
    desk.key("F2")
    settings = SettingsScreen.wait(desk, mark)
    try:
        # Light, and no failure notifications: their balloon would sit over Apply.
        mark = desk.tray.mark()
        settings.choose_theme(PICK_LIGHT)
        settings.click("failure_nudge")
        assert settings.apply(mark)["overlay_theme"] == "light"
        assert term.run(FAILING)["exit_code"] != 0

        window = open_with_suggestions(desk, MODEL_EN[-1][0])
        assert desk.wait_log("overlay context", mark)["event"]["theme"] == "light"
        wait_background(desk, window, LIGHT)
        screenshot(desk.desktop, "overlay-light-en.png", window)

        # Dark, with the overlay open on screen: no reopen, the same window turns dark.
        mark = switch_theme(desk, settings, window, PICK_DARK, DARK, "overlay-dark-en.png")
        assert overlay_window(desk) == window and not desk.logged("overlay shown", mark)

        # 简体中文: the open overlay retranslates; reopened, it asks the model again.
        script.when(FAILING, *MODEL_ZH)
        mark = desk.tray.mark()
        settings.choose_language(PICK_CHINESE)
        applied = settings.apply(mark)
        assert applied["language"] == "zh_CN" and applied["overlay_theme"] == "dark"
        desk.desktop.xdotool("windowactivate", "--sync", window)
        desk.key("Escape")
        desk.wait_overlay_closed()
        window = open_with_suggestions(desk, MODEL_ZH[-1][0])
        shown = desk.wait_log("overlay context", mark)["event"]
        assert shown["language"] == "zh_CN" and shown["theme"] == "dark"
        wait_background(desk, window, DARK)
        screenshot(desk.desktop, "overlay-dark-zh_CN.png", window)

        # Back to Light with the Chinese overlay open.
        switch_theme(desk, settings, window, PICK_LIGHT, LIGHT, "overlay-light-zh_CN.png")
    finally:
        settings.close()
    assert tray.proc.poll() is None and tray.proc.pid == pid  # no restart at any point
