"""Fixtures shared by the tests that start a host and put terminals on its sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tray.serve_support import ServeProcess, serve_fixture


@pytest.fixture
def plain_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shells start from an empty HOME: the machine's own dotfiles stay out of the tests."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)
