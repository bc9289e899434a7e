"""Fixtures shared by every test folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.llm_server import LlmServer
from tests.support.tools import require


def pytest_runtest_setup(item: pytest.Item) -> None:
    """`@pytest.mark.requires("zsh", ...)`: the one place a missing tool skips or fails."""
    for mark in item.iter_markers("requires"):
        require(*mark.args)


@pytest.fixture
def llm_server() -> Iterator[LlmServer]:
    """A loopback OpenAI-compatible server on 127.0.0.1 (random port), stopped afterwards."""
    server = LlmServer().start()
    try:
        yield server
    finally:
        server.stop()
