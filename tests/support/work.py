"""Counting the work a call does, for linear-growth property tests: Python and C function
calls made while it runs, a measure that no machine load skews (unlike time)."""

from __future__ import annotations

import sys
from collections.abc import Callable


def calls_made(fn: Callable[[], object]) -> int:
    """How many Python and C function calls `fn()` makes."""
    count = 0

    def tally(_frame: object, event: str, _arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(tally)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def assert_linear_work(run: Callable[[str], object], unit: str, times: int) -> None:
    """`run` on `unit` repeated eight times as often makes at most about eight times the
    calls (ten allowed, plus slack for fixed costs): its work grows linearly."""
    small = calls_made(lambda: run(unit * times))
    large = calls_made(lambda: run(unit * times * 8))
    assert large <= 10 * small + 1000, (small, large)
