"""Host events and background jobs reach the GUI thread as queued signals, in order."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, QThread, Signal
from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.tray.app.qt_bridge import HostBridge, TurnRunner, emit
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionHost]:
    monkeypatch.setenv("HOME", str(tmp_path))  # no machine dotfiles in the shell
    h = SessionHost(Config(), resolve_paths().ensure(), termination=FAST_END)
    try:
        yield h
    finally:
        h.shutdown()


def test_host_events_arrive_on_the_gui_thread(qtbot: Any, host: SessionHost) -> None:
    """A real shell's finished block and its end arrive as signals on the GUI thread."""
    bridge = HostBridge(host)
    gui = QThread.currentThread()
    seen: list[tuple[str, bool]] = []
    bridge.block_finished.connect(
        lambda _s, block: seen.append((block.command, QThread.currentThread() is gui))
    )
    with qtbot.waitSignal(bridge.session_started, timeout=10000):
        session = host.create("bash")
    with qtbot.waitSignal(bridge.block_finished, timeout=15000):
        session.send_text("echo bridged", enter=True)
    assert ("echo bridged", True) in seen
    with qtbot.waitSignal(bridge.session_ended, timeout=15000) as ended:
        host.kill(session.id)
    assert ended.args[0].id == session.id
    bridge.close()
    bridge.close()  # idempotent


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


def test_emit_keeps_the_refcount_of_true(qtbot: Any) -> None:
    """Many emits leave Python's True with its references (PySide6 6.12 steals one per emit)."""
    source = _Source()
    source.fired.connect(lambda _x: None)
    before = sys.getrefcount(True)
    for i in range(1000):
        emit(source.fired, i)
    assert sys.getrefcount(True) >= before
