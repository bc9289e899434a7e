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
