"""Global hotkey: one interface; the combination is taken, not watched.

X11 grabs it on the root window (`x11_backend`), Windows registers it with RegisterHotKey
(`windows_backend`): the focused terminal never receives the keys, so no stray byte reaches
a session. macOS keeps pynput's listener. A combination another program holds fails at
registration with a HotkeyError saying so. Backends call `on_press` on their own listener
thread; `HotkeyBridge` turns that into a queued Qt signal, so the listener never touches widgets.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Protocol

MODIFIERS = ("ctrl", "alt", "shift", "cmd")
ALIASES = {
    "control": "ctrl",
    "option": "alt",
    "meta": "cmd",
    "super": "cmd",
    "win": "cmd",
    "windows": "cmd",
    "command": "cmd",
    "return": "enter",
    "escape": "esc",
    "spacebar": "space",
}


class HotkeyError(Exception):
    """The hotkey could not be registered (message written for the user)."""


class HotkeyBackend(Protocol):
    combo: str

    def start(self, on_press: Callable[[], None]) -> None:
        """Register the combination (raises HotkeyError); `on_press` runs on a listener thread."""

    def stop(self) -> None:
        """Unregister and end the listener thread (idempotent)."""


def parse_combo(combo: str) -> tuple[list[str], str]:
    """'Ctrl+Alt+Space' -> (['ctrl', 'alt'], 'space'); raises HotkeyError when malformed."""
    parts = [p.strip().lower() for p in combo.replace(" ", "").split("+")]
    if not combo.strip() or any(not p for p in parts):
        raise HotkeyError(f"hotkey {combo!r} is not a combination like ctrl+alt+space")
    parts = [ALIASES.get(p, p) for p in parts]
    *mods, key = parts
    if key in MODIFIERS:
        raise HotkeyError(f"hotkey {combo!r} needs a key after its modifiers")
    unknown = [m for m in mods if m not in MODIFIERS]
    if unknown:
        raise HotkeyError(f"hotkey {combo!r}: {unknown[0]!r} is not ctrl, alt, shift or cmd")
    if not mods:
        raise HotkeyError(f"hotkey {combo!r} needs at least one of ctrl, alt, shift, cmd")
    if len(set(mods)) != len(mods):
        raise HotkeyError(f"hotkey {combo!r} repeats a modifier")
    ordered = [m for m in MODIFIERS if m in mods]
    return ordered, key


def to_pynput(combo: str) -> str:
    """'ctrl+alt+space' -> '<ctrl>+<alt>+<space>' (single characters stay bare)."""
    mods, key = parse_combo(combo)
    keypart = key if len(key) == 1 else f"<{key}>"
    return "+".join([f"<{m}>" for m in mods] + [keypart])


def make_backend(combo: str, platform: str = sys.platform) -> HotkeyBackend:
    """The backend for this platform (raises HotkeyError when the combination is malformed)."""
    parse_combo(combo)
    if platform == "win32":
        from termwise.tray.app.hotkey.windows_backend import WindowsHotkeyBackend

        return WindowsHotkeyBackend(combo)
    if platform == "darwin":
        from termwise.tray.app.hotkey.pynput_backend import PynputBackend

        return PynputBackend(combo)
    from termwise.tray.app.hotkey.x11_backend import X11GrabBackend

    return X11GrabBackend(combo)


def describe(combo: str) -> str:
    """How to show the combination to a user: 'Ctrl+Alt+Space'."""
    try:
        mods, key = parse_combo(combo)
    except HotkeyError:
        return combo
    return "+".join([m.capitalize() for m in mods] + [key.capitalize()])
