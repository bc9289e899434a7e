"""The overlay's own Qt adapters: a safe `emit`, a worker-thread job runner and a thread relay."""

from __future__ import annotations

import ctypes
import functools
import logging
import sys
import threading
from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, Qt, Signal, SignalInstance
from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.events import Error, Finished

log = logging.getLogger(__name__)

Job = Callable[[CancelToken], Iterable[object]]
PROBE_EMITS = 64  # emits measured once to learn whether this PySide6 steals bool references


def emit(signal: SignalInstance, *args: object) -> None:
    """`signal.emit(*args)`, keeping Python's True/False alive where PySide6 would not.

    PySide6 6.12's `SignalInstance.emit` returns a bool without taking a reference, so each
    call from Python drops one reference of True; on Python < 3.12 (bools are not immortal)
    a few hundred emits crash the process ("bool_dealloc"). Whether this PySide6 does that is
    measured once (`emit_steals_bools`); the reference is given back only then.
    """
    send: Callable[..., object] = signal.emit  # typed None by the stubs; really a bool
    result = send(*args)
    if isinstance(result, bool) and emit_steals_bools():
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(result))


class _Probe(QObject):
    fired = Signal()


@functools.cache
def emit_steals_bools() -> bool:
    """Whether `SignalInstance.emit` returns a bool it holds no reference for (measured)."""
    probe = _Probe()
    probe.fired.connect(_ignore)
    send: Callable[[], object] = probe.fired.emit
    returned = send()  # held here for the whole measurement
    if not isinstance(returned, bool):
        return False
    before = sys.getrefcount(returned)
    for _ in range(PROBE_EMITS):
        send()
    return sys.getrefcount(returned) <= before - PROBE_EMITS // 2


def _ignore() -> None:
    pass


class ThreadRelay(QObject):
    """Calls `slot(item)` on this object's (GUI) thread for each `post(item)` from any thread."""

    _posted = Signal(object)

    def __init__(self, slot: Callable[[object], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._posted.connect(slot, Qt.ConnectionType.QueuedConnection)

    def post(self, item: object) -> None:
        emit(self._posted, item)


class TurnRunner(QObject):
    """Runs one job at a time (an agent turn, an explanation) on a worker thread.

    Each item the job yields arrives as `turn_event(item)` on the GUI thread; `done()` follows the
    last one. Starting a new job or `cancel()` sets the running job's CancelToken (which closes
    its HTTP stream); items a superseded job still yields are dropped.
    """

    turn_event = Signal(object)
    done = Signal(object)  # cancelled (bool; object: queued bool args break refcounts)
    _item = Signal(int, object)
    _end = Signal(int, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._generation = 0
        self._cancel: CancelToken | None = None
        self._thread: threading.Thread | None = None
        self._item.connect(self._on_item, Qt.ConnectionType.QueuedConnection)
        self._end.connect(self._on_end, Qt.ConnectionType.QueuedConnection)

    @property
    def busy(self) -> bool:
        return self._cancel is not None

    def start(self, job: Job) -> CancelToken:
        """Cancel whatever runs and start `job(cancel)` on a new worker thread."""
        self.cancel()
        self._generation += 1
        cancel = CancelToken()
        self._cancel = cancel
        thread = threading.Thread(
            target=self._work,
            args=(self._generation, job, cancel),
            name="termwise-turn",
            daemon=True,
        )
        self._thread = thread
        thread.start()
        return cancel

    def cancel(self) -> bool:
        """Cancel the running job; True when one was running. `done(True)` follows at once."""
        cancel, self._cancel = self._cancel, None
        if cancel is None:
            return False
        self._generation += 1  # late items of the cancelled job are dropped
        cancel.cancel()
        emit(self.done, True)
        return True

    def join(self, timeout: float = 5.0) -> bool:
        """Wait for the worker thread to end (tests, shutdown); True when it has."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _work(self, generation: int, job: Job, cancel: CancelToken) -> None:
        try:
            for item in job(cancel):
                emit(self._item, generation, item)
                if cancel.cancelled:
                    break
        except Exception as exc:  # the GUI must hear that the job died
            log.exception("background job failed")
            emit(self._item, generation, Error(f"{type(exc).__name__}: {exc}", retryable=True))
            emit(self._item, generation, Finished())
        emit(self._end, generation, cancel.cancelled)

    def _on_item(self, generation: int, item: object) -> None:
        if generation == self._generation:
            emit(self.turn_event, item)

    def _on_end(self, generation: int, cancelled: bool) -> None:
        if generation == self._generation:
            self._cancel = None
            emit(self.done, cancelled)
