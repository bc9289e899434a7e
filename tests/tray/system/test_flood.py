"""FloodYield: a relay thread gives up wake-up preemption during a flood, and only then.

Real scheduler calls on the calling thread; a thread of its own per test keeps the
runner's thread as it was."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import pytest
from termwise.tray.system import flood
from termwise.tray.system.flood import FLOOD_BYTES, WINDOW, FloodYield

linux_only = pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="SCHED_BATCH is Linux's")


def in_thread(body: Callable[[], object]) -> object:
    """Run `body` in a new thread and return what it returned (or raise what it raised)."""
    out: list[object] = []

    def run() -> None:
        try:
            if hasattr(os, "SCHED_OTHER"):  # threads inherit their creator's policy
                os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
            out.append(body())
        except BaseException as exc:  # handed to the test's thread
            out.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


@linux_only
def test_a_flood_makes_the_thread_batch_and_idle_gives_it_back() -> None:
    def body() -> list[int]:
        watch = FloodYield()
        seen = [os.sched_getscheduler(0)]
        watch.saw(FLOOD_BYTES // 2)
        seen.append(os.sched_getscheduler(0))
        watch.saw(FLOOD_BYTES // 2)
        seen.append(os.sched_getscheduler(0))
        assert watch.flooding
        watch.idle()
        seen.append(os.sched_getscheduler(0))
        assert not watch.flooding
        return seen

    before = os.sched_getscheduler(0)
    assert in_thread(body) == [os.SCHED_OTHER, os.SCHED_OTHER, os.SCHED_BATCH, os.SCHED_OTHER]
    assert os.sched_getscheduler(0) == before  # other threads are left alone


@linux_only
def test_output_spread_over_time_is_not_a_flood() -> None:
    def body() -> bool:
        watch = FloodYield()
        for _ in range(4):
            watch.saw(FLOOD_BYTES // 2)
            time.sleep(WINDOW * 1.5)
        return watch.flooding or os.sched_getscheduler(0) != os.SCHED_OTHER

    assert in_thread(body) is False


@linux_only
def test_a_second_flood_after_idle_is_seen_again() -> None:
    def body() -> bool:
        watch = FloodYield()
        watch.saw(FLOOD_BYTES)
        watch.idle()
        watch.saw(FLOOD_BYTES)
        again = watch.flooding and os.sched_getscheduler(0) == os.SCHED_BATCH
        watch.idle()
        return again

    assert in_thread(body) is True


def test_where_the_policy_cannot_change_nothing_happens(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sandbox that refuses sched_setscheduler (a fault we cannot cause here): the
    relay stays as it was and stops asking."""
    calls: list[int] = []

    def refuse(pid: int, policy: int, param: object) -> None:
        calls.append(policy)
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(flood.os, "sched_setscheduler", refuse, raising=False)
    monkeypatch.setattr(flood.os, "SCHED_BATCH", 3, raising=False)
    monkeypatch.setattr(flood.os, "SCHED_OTHER", 0, raising=False)
    watch = FloodYield()
    for _ in range(3):
        watch.saw(FLOOD_BYTES)
    watch.idle()
    assert not watch.flooding
    assert calls == [3]  # asked once, never again


def test_without_the_policy_a_flood_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS and Windows have no SCHED_BATCH: counting bytes is all that happens."""
    monkeypatch.delattr(flood.os, "SCHED_BATCH", raising=False)
    watch = FloodYield()
    watch.saw(FLOOD_BYTES * 4)
    assert not watch.flooding
    watch.idle()
