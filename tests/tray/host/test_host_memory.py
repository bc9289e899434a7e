"""Host memory: busy sessions that end give their memory back, and all sessions together
stay within the configured byte budget."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.tray.host.host import SessionHost

from tests.tray.host.churn import churn_termwise, produce
from tests.tray.host.conftest import FAST_END
from tests.tray.serve_support import ServeProcess, serve_fixture, wait_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="RSS from /proc")


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_rss_stays_flat_as_busy_sessions_end(serve: ServeProcess) -> None:
    """A real host's RSS after 80 busy sessions ended is within 10 % of its RSS after 20."""
    marks = churn_termwise(serve, 80, 2_000_000, parallel=4, every=20)
    assert marks[80] <= marks[20] * 1.10, marks


def test_sessions_together_stay_within_the_byte_budget() -> None:
    """With a 1 MB budget, ended sessions are forgotten oldest first and the live ones keep less."""
    config = Config()
    config.session = dataclasses.replace(config.session, budget_bytes=1_000_000)
    host = SessionHost(config, resolve_paths().ensure(), termination=FAST_END)
    try:
        ended = []
        for _ in range(3):
            session = host.create("bash")
            session.send_text(produce(600_000), enter=True)
            assert wait_until(lambda s=session: not s.alive, 30)
            ended.append(session)
        live = host.create("bash")
        live.send_text("yes y | head -c 3000000", enter=True)
        assert wait_until(lambda: live.last_block() is not None, 30)
        # The block shows before the host hears of it and trims, so allow it a moment.
        held = lambda: sum(s.retained() for s in host.list())  # noqa: E731
        assert wait_until(lambda: held() <= 1_000_000, 10), held()
        assert ended[0] not in host.list()  # the oldest ended session went first
        assert live in host.list() and live.last_block() is not None  # its last command is kept
    finally:
        host.shutdown()
