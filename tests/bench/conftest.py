"""Benchmark set-up: a test whose ratios regressed past the recorded table fails after
its body ran (and printed every ratio), not at the first bad one."""

from __future__ import annotations

from collections.abc import Generator

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
