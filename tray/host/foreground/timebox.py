"""Run a probe that talks to a server (X11) on its own thread, never waiting long for it.

The caller waits at most `timeout`; while an earlier query is still stuck (a hung
or unreachable display), it gets None at once instead of queueing behind it. The
inner probe is built and used only on the worker thread, and rebuilt after a
failure no more often than `retry_after`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from termwise.tray.host.foreground import Foreground, ForegroundProbe

log = logging.getLogger(__name__)

TIMEOUT = 0.010  # a local X server answers in well under a millisecond
RETRY_AFTER = 5.0


class _Query:
    __slots__ = ("done", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Foreground | None = None


class TimeBoxedProbe:
    """A ForegroundProbe whose answers come from a worker thread, within a deadline."""

    def __init__(
        self,
        make: Callable[[], ForegroundProbe],
        *,
        name: str = "probe",
        timeout: float = TIMEOUT,
        retry_after: float = RETRY_AFTER,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._make = make
        self._name = name
        self._timeout = timeout
        self._retry_after = retry_after
        self._clock = clock
        self._cond = threading.Condition()
        self._pending: _Query | None = None  # the query the worker has not finished
        self._closed = False
        self._thread: threading.Thread | None = None

    def foreground(self) -> Foreground | None:
        with self._cond:
            if self._closed or self._pending is not None:
                return None  # closed, or the last query is still stuck
            query = _Query()
            self._pending = query
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"foreground-{self._name}", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()
        if not query.done.wait(self._timeout):
            log.debug(
                "foreground: %s probe did not answer within %.0f ms",
                self._name,
                self._timeout * 1000,
            )
            return None
        return query.result

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _run(self) -> None:
        inner: ForegroundProbe | None = None
        failed_at: float | None = None
        while True:
            with self._cond:
                while self._pending is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    break
                query = self._pending
            assert query is not None
            if inner is None and (
                failed_at is None or self._clock() - failed_at >= self._retry_after
            ):
                try:
                    inner = self._make()
                    failed_at = None
                except Exception as exc:
                    log.debug("foreground: cannot start the %s probe: %s", self._name, exc)
                    failed_at = self._clock()
            result: Foreground | None = None
            if inner is not None:
                try:
                    result = inner.foreground()
                except Exception as exc:  # the probe promises not to raise; be sure anyway
                    log.debug("foreground: %s probe failed: %s", self._name, exc)
                    _close_quietly(inner)
                    inner, failed_at = None, self._clock()
            query.result = result
            with self._cond:
                self._pending = None
            query.done.set()
        if inner is not None:
            _close_quietly(inner)


def _close_quietly(probe: ForegroundProbe) -> None:
    try:
        probe.close()
    except Exception as exc:
        log.debug("foreground: closing a probe failed: %s", exc)
