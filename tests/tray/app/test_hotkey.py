"""Global hotkey: combination parsing per backend, and the real pynput listener under X."""

from __future__ import annotations

import os
import subprocess

import pytest
from termwise.tray.app.hotkey import (
    HotkeyError,
    describe,
    make_backend,
    parse_combo,
    to_keyboard,
    to_pynput,
)

from tests.support.tools import require


def test_combos_convert_to_each_backend_syntax() -> None:
    """The config's 'ctrl+alt+space' becomes pynput's and keyboard's own spelling."""
    assert to_pynput("ctrl+alt+space") == "<ctrl>+<alt>+<space>"
    assert to_pynput("Alt + Ctrl + K") == "<ctrl>+<alt>+k"
    assert to_pynput("super+shift+f12") == "<shift>+<cmd>+<f12>"
    assert to_keyboard("ctrl+alt+space") == "ctrl+alt+space"
    assert to_keyboard("win+t") == "windows+t"
    assert describe("ctrl+alt+space") == "Ctrl+Alt+Space"


@pytest.mark.parametrize(
    ("combo", "says"),
    [
        ("", "not a combination"),
        ("ctrl+", "not a combination"),
        ("ctrl+alt", "needs a key"),
        ("space", "at least one of"),
        ("hyper+space", "'hyper' is not"),
        ("ctrl+ctrl+k", "repeats"),
    ],
)
def test_malformed_combos_are_refused_with_a_reason(combo: str, says: str) -> None:
    """A combination the user mistyped gets a message naming what is wrong."""
    with pytest.raises(HotkeyError, match=says):
        parse_combo(combo)


def test_each_platform_gets_its_backend() -> None:
    """Windows uses the keyboard package, everything else pynput."""
    assert type(make_backend("ctrl+alt+space", "win32")).__name__ == "KeyboardBackend"
    assert type(make_backend("ctrl+alt+space", "linux")).__name__ == "PynputBackend"


def _need_x() -> None:
    require("display", "xdotool")


def _press(combo: str) -> None:
    subprocess.run(["xdotool", "key", combo], check=True, timeout=10)


def test_real_hotkey_press_reaches_the_gui_thread(qtbot) -> None:
    """xdotool's Ctrl+Alt+Space under X fires the bridge's signal; pausing swallows presses."""
    _need_x()
    from termwise.tray.app.hotkey.bridge import HotkeyBridge

    bridge = HotkeyBridge()
    got: list[int] = []
    bridge.pressed.connect(lambda: got.append(1))
    assert bridge.register("ctrl+alt+space")
    try:
        with qtbot.waitSignal(bridge.pressed, timeout=5000):
            _press("ctrl+alt+space")
        bridge.paused = True
        _press("ctrl+alt+space")
        bridge.paused = False
        with qtbot.waitSignal(bridge.pressed, timeout=5000):
            _press("ctrl+alt+space")
        assert len(got) == 2  # the paused press never arrived
    finally:
        bridge.unregister()
    assert bridge.backend is None


def test_reregistering_moves_the_hotkey(qtbot) -> None:
    """After Settings changes the combination, only the new one shows the overlay."""
    _need_x()
    from termwise.tray.app.hotkey.bridge import HotkeyBridge

    bridge = HotkeyBridge()
    got: list[int] = []
    bridge.pressed.connect(lambda: got.append(1))
    assert bridge.register("ctrl+alt+space")
    assert bridge.register("ctrl+shift+F9")
    try:
        _press("ctrl+alt+space")
        with qtbot.waitSignal(bridge.pressed, timeout=5000):
            _press("ctrl+shift+F9")
        assert len(got) == 1
    finally:
        bridge.unregister()


def test_failed_registration_is_reported(qtbot) -> None:
    """A combination that cannot be registered emits `failed` with the reason, and no backend runs."""
    from termwise.tray.app.hotkey.bridge import HotkeyBridge

    bridge = HotkeyBridge()
    with qtbot.waitSignal(bridge.failed, timeout=1000) as blocker:
        assert not bridge.register("ctrl+alt")
    assert "needs a key" in blocker.args[0]
    assert bridge.backend is None


def test_no_display_is_a_registration_failure() -> None:
    """Without an X display pynput cannot listen: the user hears why instead of a crash."""
    import sys

    code = (
        "from termwise.tray.app.hotkey import HotkeyError, make_backend\n"
        "try:\n"
        "    make_backend('ctrl+alt+space', 'linux').start(lambda: None)\n"
        "except HotkeyError as exc:\n"
        "    print('refused:', exc)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: cannot listen for ctrl+alt+space")
