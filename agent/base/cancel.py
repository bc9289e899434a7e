"""A thread-safe cancellation flag that can run callbacks (e.g. close an HTTP stream)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class CancelToken:
    """Set once by `cancel()`; callbacks run at that moment (or at once if already set)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for fn in callbacks:
            _run(fn)

    def add_callback(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Run `fn` on cancel; returns a function that removes it again."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(fn)
                return lambda: self._remove(fn)
        _run(fn)
        return lambda: None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled or `timeout` passes; True when cancelled."""
        return self._event.wait(timeout)

    def _remove(self, fn: Callable[[], None]) -> None:
        with self._lock:
            if fn in self._callbacks:
                self._callbacks.remove(fn)


def _run(fn: Callable[[], None]) -> None:
    try:
        fn()
    except Exception:  # a failing callback must not keep the others from running
        log.exception("cancel callback failed")
