"""A real SessionHost, approval store and OverlayController for the overlay tests."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import Paths, resolve_paths
from termwise.agent.safety.approvals import ApprovalStore
from termwise.overlay.i18n import set_language
from termwise.tray.app.session_port import HostPort
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy

from tests.support.tools import require

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)
ENV_INFO = {"os": "Linux", "os_version": "Debian 12", "tools": {}}


@pytest.fixture(autouse=True)
def plain_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shells start from an empty HOME: the machine's dotfiles stay out of the tests."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    """Every test starts (and ends) in English, whatever the one before switched to."""
    set_language("en")
    yield
    set_language("en")


@pytest.fixture
def paths() -> Paths:
    return resolve_paths().ensure()


@pytest.fixture
def host(paths: Paths) -> Iterator[SessionHost]:
    h = SessionHost(Config(), paths, termination=FAST_END)
    try:
        yield h
    finally:
        h.shutdown()


@pytest.fixture
def approvals(paths: Paths) -> ApprovalStore:
    return ApprovalStore(paths.approvals_file)


@pytest.fixture
def model_env(llm_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Point make_client at the loopback model server."""
    monkeypatch.setenv("TERMWISE_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("TERMWISE_MODEL", "test")
    monkeypatch.setenv("TERMWISE_API_KEY", "x")
    return llm_server


def no_model(_config: Config) -> None:
    return None


@pytest.fixture
def make_controller(
    qtbot: Any, host: SessionHost, paths: Paths, approvals: ApprovalStore
) -> Iterator[Callable[..., Any]]:
    """Build an OverlayController over the real host; closed after the test."""
    from termwise.overlay.controller import OverlayController

    made: list[Any] = []

    def make(**kwargs: Any) -> Any:
        config = kwargs.pop("config", None) or Config()
        config.llm.first_token_timeout = 10.0
        config.llm.max_retries = 0
        config.llm.probe_ollama = False
        kwargs.setdefault("approvals", approvals)
        c = OverlayController(HostPort(host), config, paths, env_info=ENV_INFO, **kwargs)
        qtbot.addWidget(c.window)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()
        c.runner.join(5)


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    """Poll a non-Qt condition (a PTY, a subprocess) until it holds or the deadline passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def finished_block(session: Any, command: str, timeout: float = 15.0) -> Any:
    """Run `command` in the session and return its finished block."""
    before = session.last_block()
    after = before.index if before is not None else -1
    session.send_text(command, enter=True)
    block = session.wait_for_block(after, timeout)
    assert block is not None, f"no block for {command!r}"
    return block


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY")) and shutil.which("xclip") is not None


def need_display() -> None:
    require("display", "xclip")


def tmp_cwd(tmp_path: Path) -> str:
    return str(tmp_path)
