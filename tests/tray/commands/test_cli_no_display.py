"""`termwise` (the tray) on a machine without a display: one clear line and exit 3, never Qt's abort."""

from __future__ import annotations

import os
import sys

import pytest
from termwise.tray.commands.cli import no_display

from tests.tray.serve_support import termwise


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland displays are Linux")
def test_tray_without_a_display_names_serve_and_doctor_and_exits_3(tmp_path: object) -> None:
    """With DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM unset the tray says what to run instead."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env["TERMWISE_HOME"] = str(tmp_path)
    result = termwise(env=env, timeout=60)
    assert result.returncode == 3, (result.returncode, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "termwise serve" in lines[0] and "termwise doctor" in lines[0]
    assert "reinstall" not in result.stderr.lower()


def test_no_display_rules() -> None:
    """A display or a headless Qt platform lets the tray start; Windows and macOS always can."""
    assert no_display({}, "linux") is not None
    assert no_display({"DISPLAY": ":0"}, "linux") is None
    assert no_display({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert no_display({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert no_display({"QT_QPA_PLATFORM": "xcb"}, "linux") is not None
    assert no_display({}, "win32") is None and no_display({}, "darwin") is None
