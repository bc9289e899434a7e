"""Journey: the language switches live, in Settings and in the overlay, without a restart.

A person opens Settings from the overlay (F2), picks 简体中文 in the Language list with the
mouse and keys, clicks Apply: the Settings window retitles itself, and the next
Ctrl+Alt+Space shows the overlay in Chinese. With that overlay still open, they switch back to
English in Settings: the open overlay's texts change at once. The same tray process ran
throughout.
"""

from __future__ import annotations

import pytest

from tests.e2e.harness import TrayProcess, wait_until
from tests.e2e.journeys.desk import OVERLAY_TITLE, WAIT, Desk
from tests.e2e.journeys.screens import (
    SETTINGS_TITLE,
    SettingsScreen,
    home_folder,
    screenshot,
    window_name,
)

pytestmark = pytest.mark.e2e

HINTS = {
    "en": "↑/↓ choose · Enter type",
    "zh_CN": "↑/↓ 选择 · Enter 输入",
}
# The Language list: Automatic (system), English, 简体中文.
PICK_CHINESE = ("End",)
PICK_ENGLISH = ("Home", "Down")


def test_language_switches_live_in_settings_and_in_the_open_overlay(
    desk: Desk, tray: TrayProcess, tray_env: dict[str, str]
) -> None:
    """简体中文 applied in Settings: its title and the overlay change; back to English with
    the overlay open changes the open overlay."""
    assert tray.proc is not None
    pid = tray.proc.pid
    desk.open_terminal("bash", home_folder(tray_env, "src"))
    mark = desk.hotkey()
    shown = desk.wait_log("overlay context", mark)["event"]
    assert shown["language"] == "en" and shown["hints"].startswith(HINTS["en"])

    desk.key("F2")
    settings = SettingsScreen.wait(desk, mark)
    try:
        mark = desk.tray.mark()
        settings.choose_language(PICK_CHINESE)
        applied = settings.apply(mark)
        assert applied["language"] == "zh_CN"
        assert applied["settings_title"] == SETTINGS_TITLE["zh_CN"]
        assert applied["overlay_hints"].startswith(HINTS["zh_CN"])  # hidden, yet retranslated
        # The same window (not a new one) now carries the Chinese title.
        wait_until(
            lambda: window_name(desk.desktop, settings.window) == SETTINGS_TITLE["zh_CN"],
            WAIT,
            "the Settings window's Chinese title",
        )
        screenshot(desk.desktop, "settings-zh_CN.png")

        mark = desk.hotkey()  # the overlay of the running tray, now in Chinese
        shown = desk.wait_log("overlay context", mark)["event"]
        assert shown["language"] == "zh_CN" and shown["hints"].startswith(HINTS["zh_CN"])
        screenshot(desk.desktop, "overlay-zh_CN-over-settings.png")

        # Back to English from Settings while the overlay stays open on screen.
        mark = desk.tray.mark()
        settings.choose_language(PICK_ENGLISH)
        applied = settings.apply(mark)
        assert applied["language"] == "en"
        assert applied["overlay_visible"] is True
        assert applied["overlay_hints"].startswith(HINTS["en"])
        assert desk.visible(OVERLAY_TITLE)
        wait_until(
            lambda: window_name(desk.desktop, settings.window) == SETTINGS_TITLE["en"],
            WAIT,
            "the Settings window's English title",
        )
    finally:
        settings.close()
    assert tray.proc.poll() is None and tray.proc.pid == pid  # no restart at any point
