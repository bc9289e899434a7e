"""Background jobs reach the GUI thread as queued signals, in order; cross-thread posts too."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal
from termwise.agent.base.cancel import CancelToken
from termwise.overlay.qt_bridge import ThreadRelay, TurnRunner, emit


def test_thread_relay_calls_its_slot_on_the_gui_thread(qtbot: Any) -> None:
    """A post from a worker thread reaches the slot on the GUI thread, item intact."""
    gui = QThread.currentThread()
    got: list[tuple[object, bool]] = []
    relay = ThreadRelay(lambda item: got.append((item, QThread.currentThread() is gui)))
    worker = threading.Thread(target=relay.post, args=("block-7",))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: got == [("block-7", True)])


def test_turn_runner_delivers_items_in_order_then_done(qtbot: Any) -> None:
    """Items a worker yields arrive in order on the GUI thread, followed by done(False)."""
    runner = TurnRunner()
    got: list[object] = []
    runner.turn_event.connect(got.append)
    worker_threads: set[int] = set()

    def job(_cancel: CancelToken) -> Iterator[int]:
        worker_threads.add(threading.get_ident())
        yield from range(50)

    with qtbot.waitSignal(runner.done) as done:
        runner.start(job)
    assert got == list(range(50)) and done.args == [False]
    assert threading.get_ident() not in worker_threads
    assert not runner.busy


def test_cancel_sets_the_token_and_drops_late_items(qtbot: Any) -> None:
    """cancel() trips the job's CancelToken at once; what it yields afterwards is never shown."""
    runner = TurnRunner()
    got: list[object] = []
    runner.turn_event.connect(got.append)
    started = threading.Event()
    release = threading.Event()

    def job(cancel: CancelToken) -> Iterator[str]:
        yield "first"
        started.set()
        cancel.wait(10)
        release.wait(10)
        yield "late"

    token = runner.start(job)
    qtbot.waitUntil(lambda: got == ["first"])
    assert started.wait(5)
    with qtbot.waitSignal(runner.done) as done:
        assert runner.cancel()
    assert done.args == [True] and token.cancelled
    release.set()
    assert runner.join(5)
    qtbot.wait(50)  # let any queued late item be delivered if it were not dropped
    assert got == ["first"]


def test_a_failing_job_reports_an_error_instead_of_dying_silently(qtbot: Any) -> None:
    """An exception in the worker arrives as an Error event followed by Finished."""
    from termwise.agent.base.events import Error, Finished

    runner = TurnRunner()
    got: list[object] = []
    runner.turn_event.connect(got.append)

    def job(_cancel: CancelToken) -> Iterator[int]:
        yield 1
        raise RuntimeError("model exploded")

    with qtbot.waitSignal(runner.done):
        runner.start(job)
    assert got[0] == 1 and isinstance(got[1], Error) and "model exploded" in got[1].message
    assert isinstance(got[2], Finished)


class _Source(QObject):
    fired = Signal(object)


def test_emit_leaves_the_refcount_of_true_unchanged(qtbot: Any) -> None:
    """1000 emits neither drop True's references (PySide6 6.12 steals one per emit, which
    crashes Python < 3.12) nor leak one per emit (compensating where nothing was stolen)."""
    source = _Source()
    source.fired.connect(lambda _x: None)
    emit(source.fired, 0)  # the one-time measurement happens outside the count
    before = sys.getrefcount(True)
    for i in range(1000):
        emit(source.fired, i)
    assert abs(sys.getrefcount(True) - before) < 100  # off by ±1000 when either is wrong
