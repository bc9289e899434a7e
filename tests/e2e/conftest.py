"""Fixtures of the end-to-end tests: one desktop, one model server and one tray per module."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from termwise.agent.base.paths import Paths, resolve_paths

from tests.e2e.harness import Desktop, TrayProcess, require_tools
from tests.support.llm_server import LlmServer, make_reply

MODEL_COMMAND = "echo fixed-by-termwise"


def model_answer(request: dict[str, Any]) -> Any:
    """The loopback model suggests one command for any fix request, as NDJSON."""
    line = json.dumps(
        {
            "command": MODEL_COMMAND,
            "explanation": "Shows that the model's suggestion arrived.",
            "caveats": "",
        }
    )
    return make_reply({"text": line + "\n", "chunk_size": 12})


@pytest.fixture(scope="module")
def desktop() -> Iterator[Desktop]:
    require_tools()
    d = Desktop()
    try:
        yield d.start()
    finally:
        d.close()


@pytest.fixture(scope="module")
def model() -> Iterator[LlmServer]:
    server = LlmServer().start()
    server.responder = model_answer
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def e2e_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e2e-home")


@pytest.fixture(scope="module")
def tray_env(desktop: Desktop, model: LlmServer, e2e_home: Path) -> dict[str, str]:
    home = e2e_home / "home"
    home.mkdir(exist_ok=True)
    env = desktop.env(
        QT_QPA_PLATFORM="xcb",
        TERMWISE_HOME=str(e2e_home / "tw"),
        HOME=str(home),
        TERMWISE_BASE_URL=model.base_url,
        TERMWISE_MODEL="test",
        TERMWISE_API_KEY="x",
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
    )
    for name in (
        "XDG_CONFIG_HOME",
        "XDG_RUNTIME_DIR",
        "OPENAI_API_KEY",
        "ZDOTDIR",
        "WAYLAND_DISPLAY",
    ):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module")
def tray(tray_env: dict[str, str]) -> Iterator[TrayProcess]:
    app = TrayProcess(tray_env).start()
    try:
        app.wait_log(lambda e: e.get("message") == "tray ready", 60, "tray ready")
        yield app
    finally:
        app.close()


@pytest.fixture(scope="module")
def tray_paths(tray_env: dict[str, str]) -> Paths:
    return resolve_paths({"TERMWISE_HOME": tray_env["TERMWISE_HOME"]})
