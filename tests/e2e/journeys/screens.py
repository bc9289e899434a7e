"""What a person sees: screenshots of the whole desktop, the window stacking order, and the
Settings window's fields clicked where they are on screen.

Screenshots go to test-artifacts/e2e/journeys; with `TERMWISE_UPDATE_SCREENSHOTS=1` they
replace the tracked pictures in docs/screenshots (tests never rewrite tracked files otherwise).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.harness import ARTIFACTS, Desktop, wait_until
from tests.e2e.journeys.desk import WAIT, Desk

DOC_SHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"
SETTINGS_TITLE = {"en": "Termwise settings", "zh_CN": "Termwise 设置"}


def shot_folder() -> Path:
    """Where screenshots go: docs/screenshots only when asked to update them."""
    if os.environ.get("TERMWISE_UPDATE_SCREENSHOTS") == "1":
        return DOC_SHOTS
    return ARTIFACTS / "journeys"


def home_folder(env: dict[str, str], *parts: str) -> Path:
    """A folder under the person's home (the prompt shows it as `~/…`, as in the pictures)."""
    folder = Path(env["HOME"]).joinpath(*parts)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def screenshot(
    desktop: Desktop, name: str, window: str = "root", folder: Path | None = None
) -> Path:
    """The whole virtual screen (or one window) as a PNG: what the person sees at this moment."""
    folder = folder or shot_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    subprocess.run(
        ["import", "-window", window, str(path)], env=desktop.env(), check=True, timeout=60
    )
    assert path.stat().st_size > 0
    return path


def pixel(path: Path, x: int, y: int) -> str:
    """The colour of one pixel of a PNG, as `#rrggbb`."""
    done = subprocess.run(
        ["convert", str(path), "-format", "#%[hex:p{" + f"{x},{y}" + "}]", "info:"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.strip().lower()[:7]


def stacking(desktop: Desktop) -> list[str]:
    """The managed windows bottom to top, as the window manager stacks them (EWMH)."""
    from Xlib import X, display  # python-xlib: a dependency on Linux

    screen = display.Display(desktop.display)
    try:
        atom = screen.intern_atom("_NET_CLIENT_LIST_STACKING")
        prop = screen.screen().root.get_full_property(atom, X.AnyPropertyType)
        return [str(w) for w in (prop.value if prop is not None else [])]
    finally:
        screen.close()


def window_name(desktop: Desktop, window: str) -> str:
    return desktop.xdotool("getwindowname", window)


class SettingsScreen:
    """The Settings window on screen: found by its title, its fields clicked where the tray's
    log says they are (`settings shown` / `settings applied` carry their rectangles)."""

    def __init__(self, desk: Desk, window: str, fields: dict[str, list[int]]) -> None:
        self.desk = desk
        self.window = window
        self.fields = fields

    @classmethod
    def wait(cls, desk: Desk, after: int, language: str = "en") -> SettingsScreen:
        shown = desk.wait_log("settings shown", after)
        title = SETTINGS_TITLE[language]
        window = wait_until(lambda: desk.visible(f"^{title}$"), WAIT, f"the window {title!r}")[0]
        return cls(desk, window, shown["event"]["fields"])

    def click(self, field: str) -> None:
        """A left click in the middle of a field or button."""
        x, y, w, h = self.fields[field]
        self.desk.desktop.xdotool(
            "mousemove", "--window", self.window, str(x + w // 2), str(y + h // 2), "click", "1"
        )

    def choose(self, field: str, keys: tuple[str, ...]) -> None:
        """Open a list (a combo box) with a click, pick an entry with keys."""
        self.click(field)
        self.desk.key(*keys, "Return")

    def choose_language(self, keys: tuple[str, ...]) -> None:
        """The Language list: Automatic, English, 简体中文."""
        self.choose("language", keys)

    def choose_theme(self, keys: tuple[str, ...]) -> None:
        """The Theme list: Follow the system, Light, Dark."""
        self.choose("theme", keys)

    def apply(self, after: int) -> dict[str, Any]:
        """Click Apply; what the tray says the new settings changed (fields re-measured)."""
        self.click("apply")
        applied: dict[str, Any] = self.desk.tray.wait_log(
            lambda e: e.get("message") == "settings applied",
            WAIT,
            "settings applied",
            after=after,
        )["event"]
        self.fields = applied["fields"]
        return applied

    def close(self) -> None:
        """Click Close: the window goes away (the tray keeps running)."""
        self.click("close")
        wait_until(
            lambda: self.window not in self.desk.desktop.search("--onlyvisible", "--name", "."),
            WAIT,
            "the Settings window to close",
        )
