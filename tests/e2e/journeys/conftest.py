"""Fixtures of the journeys: a desktop with a window manager, the tray, a scripted model, xterms.

Names other journey modules rely on (keep them stable): `desktop` (Xvfb + openbox + trayer),
`script` (the loopback model's `ModelScript`), `model`, `tray_env`, `tray`, `desk` (a `Desk`:
keys, windows, the overlay, `open_terminal`) and `workdir` (an empty folder per test).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import TOOLS, Desktop, TrayProcess
from tests.e2e.journeys.desk import APPROVAL_TITLE, OVERLAY_TITLE, Desk
from tests.e2e.journeys.model_script import ModelScript
from tests.support.llm_server import LlmServer
from tests.support.tools import require

JOURNEY_TOOLS = (*TOOLS, "xterm", "openbox")


@pytest.fixture(scope="module")
def desktop() -> Iterator[Desktop]:
    """Xvfb with openbox (focus, `_NET_ACTIVE_WINDOW`) and trayer, as on a person's desktop."""
    require(*JOURNEY_TOOLS)
    d = Desktop(window_manager="openbox")
    try:
        yield d.start()
    finally:
        d.close()


@pytest.fixture(scope="module")
def script() -> ModelScript:
    return ModelScript()


@pytest.fixture(scope="module")
def model(script: ModelScript) -> Iterator[LlmServer]:
    server = LlmServer().start()
    server.responder = script
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def desk(desktop: Desktop, tray: TrayProcess, tray_env: dict[str, str]) -> Iterator[Desk]:
    """The person's desk for one test; windows the test left open are closed after it."""
    d = Desk(desktop, tray, tray_env)
    try:
        yield d
    finally:
        for title in (APPROVAL_TITLE, OVERLAY_TITLE):  # a failed test may leave them up
            for window in d.visible(title):
                desktop.xdotool("windowactivate", "--sync", window)
                d.key("Escape")
        d.close_terminals()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder
