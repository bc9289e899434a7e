"""Benchmark set-up: a test whose ratios regressed past the recorded table fails after
its body ran (and printed every ratio), not at the first bad one."""

from __future__ import annotations

import compileall
from collections.abc import Generator
from pathlib import Path

import pytest

from tests.bench.sides import REGRESSED


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    REGRESSED.clear()
    yield
    if REGRESSED:
        found = list(REGRESSED)
        REGRESSED.clear()
        pytest.fail("ratios regressed:\n" + "\n".join(found), pytrace=False)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start-up is measured as installed: with our own modules compiled. uv compiles the
    dependencies but not the editable project, and where PYTHONDONTWRITEBYTECODE=1 is set
    (this machine) nothing else would, so every timed start would compile them again."""
    root = Path(__file__).resolve().parents[2]
    for package in ("agent", "memory", "overlay", "tray"):
        compileall.compile_dir(root / package, quiet=1, workers=1)
