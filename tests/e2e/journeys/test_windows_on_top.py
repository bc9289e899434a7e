"""Journey: F2 in the overlay opens Settings on top, with the focus, and the overlay out of its way.

Before issue 11 Settings opened under the always-on-top overlay. A person presses
Ctrl+Alt+Space in a terminal, then F2: the overlay is gone (it hid before Settings showed),
Settings is the active window and the window manager stacks it above the terminal.
"""

from __future__ import annotations

import pytest

from tests.e2e.journeys.desk import OVERLAY_TITLE, Desk
from tests.e2e.journeys.screens import SettingsScreen, home_folder, screenshot, stacking

pytestmark = pytest.mark.e2e


def test_f2_opens_settings_above_everything_with_the_overlay_hidden_first(
    desk: Desk, tray_env: dict[str, str]
) -> None:
    """F2: the overlay hides, then Settings shows focused and on top of the terminal."""
    term = desk.open_terminal("bash", home_folder(tray_env, "src"))
    mark = desk.hotkey()
    assert desk.visible(OVERLAY_TITLE)

    desk.key("F2")
    settings = SettingsScreen.wait(desk, mark)
    try:
        shown = desk.wait_log("settings shown", mark)["event"]
        assert shown["overlay_visible"] is False  # hidden before Settings came up
        assert not desk.visible(OVERLAY_TITLE)
        desk.wait_active(settings.window, "Settings to have the focus")
        order = stacking(desk.desktop)
        assert settings.window in order and term.window in order
        assert order.index(settings.window) > order.index(term.window)
        screenshot(desk.desktop, "settings-from-overlay.png")
    finally:
        settings.close()
    term.wait_focus()  # closing Settings gives the terminal its focus back
