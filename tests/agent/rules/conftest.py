"""Rules tests run with a known OS package manager so install suggestions are predictable."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def apt_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend to be a Debian-family machine unless a test says otherwise."""
    monkeypatch.setenv("TERMWISE_PKG_MANAGER", "apt")
