"""A real SessionHost with real shells for the host tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from termwise.agent.config_schema import Config
from termwise.agent.paths import resolve_paths
from termwise.tray.host.host import SessionHost
from termwise.tray.pty import TerminationPolicy

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)


@pytest.fixture
def host() -> Iterator[SessionHost]:
    h = SessionHost(Config(), resolve_paths().ensure(), termination=FAST_END)
    try:
        yield h
    finally:
        h.shutdown()
