"""Global hotkey: combination parsing per backend, and the real X11 grab under Xvfb."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from termwise.tray.app.hotkey import (
    HotkeyError,
    describe,
    make_backend,
    parse_combo,
    to_pynput,
)

from tests.support.tools import require
from tests.support.wine_limits import wine_limit


def test_combos_convert_to_each_backend_syntax() -> None:
    """The config's 'ctrl+alt+space' becomes pynput's, X's and RegisterHotKey's own terms."""
    from termwise.tray.app.hotkey.windows_backend import (
        MOD_ALT,
        MOD_CONTROL,
        MOD_NOREPEAT,
        MOD_SHIFT,
        MOD_WIN,
        hotkey_flags,
    )
    from termwise.tray.app.hotkey.x11_backend import keysym_name

    assert to_pynput("ctrl+alt+space") == "<ctrl>+<alt>+<space>"
    assert to_pynput("Alt + Ctrl + K") == "<ctrl>+<alt>+k"
    assert to_pynput("super+shift+f12") == "<shift>+<cmd>+<f12>"
    assert [keysym_name(k) for k in ("space", "f12", "k", "esc")] == ["space", "F12", "k", "Escape"]
    assert hotkey_flags("ctrl+alt+space") == (MOD_NOREPEAT | MOD_CONTROL | MOD_ALT, 0x20)
    assert hotkey_flags("win+shift+F12") == (MOD_NOREPEAT | MOD_SHIFT | MOD_WIN, 0x7B)
    assert hotkey_flags("ctrl+alt+k")[1] == ord("K")
    with pytest.raises(HotkeyError, match="cannot be a Windows hotkey"):
        hotkey_flags("ctrl+alt+§")
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
    """Windows registers the hotkey, X11 grabs it; only macOS keeps pynput's listener."""
    assert type(make_backend("ctrl+alt+space", "win32")).__name__ == "WindowsHotkeyBackend"
    assert type(make_backend("ctrl+alt+space", "linux")).__name__ == "X11GrabBackend"
    assert type(make_backend("ctrl+alt+space", "darwin")).__name__ == "PynputBackend"


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
    """Without an X display nothing can be grabbed: the user hears why instead of a crash."""
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


class _XWindow:
    """A real X client: a mapped window holding the input focus, recording its key events."""

    def __init__(self) -> None:
        from Xlib import X
        from Xlib.display import Display

        self.display = Display()
        root = self.display.screen().root
        self.window = root.create_window(
            0, 0, 200, 100, 0, X.CopyFromParent, event_mask=X.KeyPressMask | X.KeyReleaseMask
        )
        self.window.map()
        self.display.sync()
        self.window.set_input_focus(X.RevertToParent, X.CurrentTime)
        self.display.sync()

    def keycode(self, name: str) -> int:
        from Xlib import XK

        return int(self.display.keysym_to_keycode(XK.string_to_keysym(name)))

    def key_presses_until(self, sentinel: str) -> list[int]:
        """Keycodes pressed in this window, up to and including the sentinel key's press.

        The X server delivers in order, so anything the hotkey leaked arrives before it.
        """
        from Xlib import X

        stop = self.keycode(sentinel)
        seen: list[int] = []
        while True:
            event = self.display.next_event()
            if event.type == X.KeyPress:
                seen.append(int(event.detail))
                if event.detail == stop:
                    return seen

    def close(self) -> None:
        self.window.destroy()
        self.display.close()


def test_the_focused_window_never_receives_the_hotkey(qtbot) -> None:
    """The combo fires the callback while the focused X window gets no key event for it;
    the same window does get an ordinary key, so it was listening."""
    _need_x()
    from termwise.tray.app.hotkey.bridge import HotkeyBridge

    target = _XWindow()
    bridge = HotkeyBridge()
    try:
        assert bridge.register("ctrl+alt+space")
        with qtbot.waitSignal(bridge.pressed, timeout=5000):
            _press("ctrl+alt+space")
        _press("a")
        seen = target.key_presses_until("a")
        assert target.keycode("space") not in seen
        assert seen[-1] == target.keycode("a")
    finally:
        bridge.unregister()
        target.close()


def test_the_hotkey_fires_with_numlock_on(qtbot) -> None:
    """X matches modifiers exactly: the grab covers the NumLock state too."""
    _need_x()
    from termwise.tray.app.hotkey.bridge import HotkeyBridge

    bridge = HotkeyBridge()
    why: list[str] = []
    bridge.failed.connect(why.append)
    assert bridge.register("ctrl+alt+space"), why
    _press("Num_Lock")
    try:
        with qtbot.waitSignal(bridge.pressed, timeout=5000):
            _press("ctrl+alt+space")
    finally:
        _press("Num_Lock")
        bridge.unregister()


def test_a_combination_another_program_holds_is_reported_taken(qtbot) -> None:
    """Another X client grabbed the combo (with NumLock on, even): registering says "taken"."""
    _need_x()
    from termwise.tray.app.hotkey.bridge import HotkeyBridge
    from Xlib import XK, X
    from Xlib.display import Display

    other = Display()
    root = other.screen().root
    keycode = other.keysym_to_keycode(XK.string_to_keysym("F10"))
    root.grab_key(keycode, X.ControlMask | X.Mod1Mask | X.Mod2Mask, False, 1, 1)
    other.sync()
    bridge = HotkeyBridge()
    try:
        with qtbot.waitSignal(bridge.failed, timeout=5000) as failed:
            assert not bridge.register("ctrl+alt+F10")
        assert "Ctrl+Alt+F10 is taken by another program" in failed.args[0]
        assert bridge.backend is None
    finally:
        other.close()
    assert bridge.register("ctrl+alt+F10")  # free again once the other program let go
    bridge.unregister()


@pytest.mark.windows
@pytest.mark.skipif(sys.platform != "win32", reason="RegisterHotKey")
@wine_limit("hotkey-release")
def test_windows_a_second_registration_of_the_same_combo_is_taken() -> None:
    """RegisterHotKey holds a combination for one owner: the second is told it is taken,
    and it is free again once the first let go (seen under Wine across two processes too)."""
    from termwise.tray.app.hotkey.windows_backend import WindowsHotkeyBackend

    first = WindowsHotkeyBackend("ctrl+alt+shift+F9")
    first.start(lambda: None)
    try:
        with pytest.raises(HotkeyError, match="taken by another program"):
            WindowsHotkeyBackend("ctrl+alt+shift+F9").start(lambda: None)
    finally:
        first.stop()
    again = WindowsHotkeyBackend("ctrl+alt+shift+F9")
    again.start(lambda: None)
    again.stop()
