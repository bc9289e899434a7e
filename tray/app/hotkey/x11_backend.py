"""The X11 hotkey backend: `XGrabKey` on the root window, so the focused window never gets the keys.

The combination is grabbed under every lock-key state (NumLock, CapsLock and both), since X
matches modifiers exactly. A grab another client already holds fails with BadAccess at
registration: that is reported as "taken by another program", not discovered later.
A listener thread waits on the connection (and a wake-up pipe for `stop`).
"""

from __future__ import annotations

import logging
import os
import select
import threading
from collections.abc import Callable
from typing import Any

from termwise.tray.app.hotkey import HotkeyError, describe, parse_combo

log = logging.getLogger(__name__)

JOIN_TIMEOUT = 2.0
# Key names of our combo syntax that differ from X keysym names.
KEYSYM_NAMES = {
    "space": "space",
    "enter": "Return",
    "esc": "Escape",
    "tab": "Tab",
    "backspace": "BackSpace",
    "delete": "Delete",
    "insert": "Insert",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "pagedown": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
}


def keysym_name(key: str) -> str:
    """Our key name ('space', 'f12', 'k') as an X keysym name ('space', 'F12', 'k')."""
    if key in KEYSYM_NAMES:
        return KEYSYM_NAMES[key]
    if len(key) > 1 and key[0] == "f" and key[1:].isdigit():
        return "F" + key[1:]
    return key


class X11GrabBackend:
    """Grabs one combination on the root window of the default display."""

    def __init__(self, combo: str) -> None:
        self.combo = combo
        self._display: Any = None
        self._thread: threading.Thread | None = None
        self._wake_r = -1
        self._wake_w = -1
        self._grabs: list[tuple[int, int]] = []  # (keycode, modifiers) actually grabbed

    def start(self, on_press: Callable[[], None]) -> None:
        mods, key = parse_combo(self.combo)
        try:
            from Xlib import XK, X, error
            from Xlib.display import Display
        except ImportError as exc:
            raise HotkeyError(f"cannot listen for {self.combo}: {exc}") from None
        try:
            display = Display()
        except (error.DisplayError, error.ConnectionClosedError, OSError) as exc:
            raise HotkeyError(f"cannot listen for {self.combo}: {exc}") from None
        keysym = XK.string_to_keysym(keysym_name(key))
        keycode = display.keysym_to_keycode(keysym) if keysym else 0
        if not keycode:
            display.close()
            raise HotkeyError(f"hotkey {self.combo!r}: this keyboard has no key {key!r}")
        mask_of = {
            "ctrl": X.ControlMask,
            "alt": X.Mod1Mask,
            "shift": X.ShiftMask,
            "cmd": X.Mod4Mask,
        }
        modifiers = 0
        for m in mods:
            modifiers |= mask_of[m]
        root = display.screen().root
        taken = False
        for extra in (0, X.LockMask, X.Mod2Mask, X.LockMask | X.Mod2Mask):
            catch = error.CatchError(error.BadAccess)
            root.grab_key(
                keycode, modifiers | extra, False, X.GrabModeAsync, X.GrabModeAsync, onerror=catch
            )
            display.sync()  # the BadAccess of a taken grab arrives now, not later
            if catch.get_error() is not None:
                taken = True
                break
            self._grabs.append((keycode, modifiers | extra))
        if taken:
            self._ungrab(display)
            display.close()
            raise HotkeyError(f"{describe(self.combo)} is taken by another program")
        root.change_attributes(event_mask=X.KeyPressMask | X.KeyReleaseMask)
        display.sync()
        self._display = display
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(
            target=self._listen,
            args=(display, keycode, modifiers, on_press),
            name="hotkey-x11",
            daemon=True,
        )
        self._thread.start()
        log.info("hotkey %s grabbed (X11)", self.combo)

    def _ungrab(self, display: Any) -> None:
        root = display.screen().root
        for keycode, modifiers in self._grabs:
            root.ungrab_key(keycode, modifiers)
        self._grabs = []
        display.sync()

    def _listen(
        self, display: Any, keycode: int, modifiers: int, on_press: Callable[[], None]
    ) -> None:
        from Xlib import X

        relevant = X.ControlMask | X.Mod1Mask | X.ShiftMask | X.Mod4Mask
        released_at = -1
        fd = display.fileno()
        while True:
            try:
                ready, _, _ = select.select([fd, self._wake_r], [], [])
            except (OSError, ValueError):
                return
            if self._wake_r in ready:
                return
            try:
                while display.pending_events():
                    event = display.next_event()
                    if getattr(event, "detail", None) != keycode:
                        continue
                    if event.type == X.KeyRelease:
                        released_at = event.time
                    elif event.type == X.KeyPress and event.state & relevant == modifiers:
                        if event.time == released_at:
                            continue  # auto-repeat: a release and a press at the same instant
                        on_press()
            except Exception:  # a broken connection ends the listener, never the tray
                log.exception("hotkey listener stopped")
                return

    def stop(self) -> None:
        display, self._display = self._display, None
        if display is None:
            return
        os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(JOIN_TIMEOUT)
            self._thread = None
        try:
            self._ungrab(display)
        finally:
            display.close()
            os.close(self._wake_r)
            os.close(self._wake_w)
            self._wake_r = self._wake_w = -1
