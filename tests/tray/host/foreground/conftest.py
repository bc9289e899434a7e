"""A real SessionHost whose foreground probe the test points at a window (a real process)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.tray.host.foreground import Foreground
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)


@dataclass
class PointedProbe:
    """Says the window owned by `now.pid` is in front: the test plays the window manager."""

    now: Foreground | None = None
    closed: bool = False

    def foreground(self) -> Foreground | None:
        return self.now

    def close(self) -> None:
        self.closed = True


@pytest.fixture(autouse=True)
def plain_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shells start from an empty HOME; the test itself is not inside a session."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.delenv("TERMWISE_SESSION", raising=False)


@pytest.fixture
def probe() -> PointedProbe:
    return PointedProbe()


@pytest.fixture
def host(probe: PointedProbe) -> Iterator[SessionHost]:
    h = SessionHost(Config(), resolve_paths().ensure(), termination=FAST_END, foreground=probe)
    try:
        yield h
    finally:
        h.shutdown()
