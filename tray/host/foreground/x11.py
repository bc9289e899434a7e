"""The X11 foreground window and its process: `_NET_ACTIVE_WINDOW`, else the input focus.

With an EWMH window manager the root window's `_NET_ACTIVE_WINDOW` names the active
client window (0: none of the X clients is active, e.g. a Wayland window under
XWayland → cannot tell). Without one (bare Xvfb, some tiling setups) the input
focus is walked up towards the root until a window carries `_NET_WM_PID`.

Use it through `TimeBoxedProbe`: python-xlib waits for replies without a timeout,
and a lost connection raises here so the wrapper can reconnect.
"""

from __future__ import annotations

import logging
from typing import Any

from termwise.tray.host.foreground import Foreground
from Xlib import X, display, error

log = logging.getLogger(__name__)

MAX_WALK = 32  # window nesting depth we follow up from the focus


class X11Probe:
    """Asks one X display which top-level window is in the foreground, and its pid."""

    def __init__(self, display_name: str | None = None) -> None:
        self._display = display.Display(display_name)
        # Errors of requests without replies arrive asynchronously; the default handler prints them.
        self._display.set_error_handler(_ignore_error)
        self._root = self._display.screen().root
        self._active = self._display.intern_atom("_NET_ACTIVE_WINDOW")
        self._wm_pid = self._display.intern_atom("_NET_WM_PID")

    def foreground(self) -> Foreground | None:
        try:
            window = self._focused()
            if window is None:
                return None
            return self._owner(window)
        except error.XError as exc:  # the window went away mid-query
            log.debug("foreground: X error while probing: %s", exc)
            return None

    def _focused(self) -> Any:
        active = self._root.get_full_property(self._active, X.AnyPropertyType)
        if active is not None:
            wid = int(active.value[0]) if len(active.value) else 0
            return self._display.create_resource_object("window", wid) if wid else None
        focus = self._display.get_input_focus().focus
        if isinstance(focus, int):  # X.NONE or X.PointerRoot: no window has the focus
            return None
        return focus

    def _owner(self, window: Any) -> Foreground | None:
        root_id = self._root.id
        for _ in range(MAX_WALK):
            if window.id == root_id:
                return None
            prop = window.get_full_property(self._wm_pid, X.AnyPropertyType)
            if prop is not None and len(prop.value):
                return Foreground(pid=int(prop.value[0]), window=window.id)
            parent = window.query_tree().parent
            if isinstance(parent, int) or parent.id in (0, root_id):
                return Foreground(window=window.id)  # a top-level window without a pid
            window = parent
        return None

    def close(self) -> None:
        try:
            self._display.close()
        except Exception as exc:
            log.debug("foreground: closing the X display failed: %s", exc)


def _ignore_error(*args: object) -> None:
    pass
