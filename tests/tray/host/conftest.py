"""A real SessionHost with real shells for the host tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)


@pytest.fixture(autouse=True)
def plain_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shells start from an empty HOME: the machine's own dotfiles stay out of the tests."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture
def host() -> Iterator[SessionHost]:
    h = SessionHost(Config(), resolve_paths().ensure(), termination=FAST_END)
    try:
        yield h
    finally:
        h.shutdown()
