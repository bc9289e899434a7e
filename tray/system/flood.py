"""Let a flooding program keep its CPU: a relay thread that copies a flood of output
stops preempting the program that writes it.

A relay wakes for nearly every write of a program like `seq` (100 bytes at a time).
Linux places a woken thread beside its waker and lets it preempt the waker, so the
writer spends much of a flood runnable but not running (5x the involuntary context
switches of the same program under a plain terminal, measured). SCHED_BATCH keeps the
relay's share of the CPU but gives up preemption on wake-up: the relay then reads
when a core is free, in larger chunks, and the writer runs on.

Only during a flood: keys and their echo keep the normal policy, and the first wait
that finds nothing for IDLE_AFTER seconds gives it back. Linux only; elsewhere, or
where the policy cannot be changed (a sandbox), this does nothing.
"""

from __future__ import annotations

import os
import time

FLOOD_BYTES = 256 * 1024  # this much within WINDOW seconds is a flood
WINDOW = 0.05
IDLE_AFTER = 0.02  # seconds without output that end a flood


def _set_policy(policy: int) -> None:
    """The calling thread's scheduling policy (pid 0 is the calling thread on Linux)."""
    set_scheduler = getattr(os, "sched_setscheduler")  # noqa: B009 - absent on Windows
    set_scheduler(0, policy, getattr(os, "sched_param")(0))  # noqa: B009


def _policies() -> tuple[int, int] | None:
    batch = getattr(os, "SCHED_BATCH", None)
    other = getattr(os, "SCHED_OTHER", None)
    if batch is None or other is None or not hasattr(os, "sched_setscheduler"):
        return None
    return other, batch


class FloodYield:
    """Per relay thread: `saw(n)` after each read; while `flooding`, wait for output with
    `IDLE_AFTER` as the timeout and call `idle()` when it expires."""

    def __init__(self) -> None:
        self._policies = _policies()
        self.flooding = False
        self._since = 0.0
        self._bytes = 0

    def saw(self, n: int) -> None:
        if self.flooding or self._policies is None:
            return
        now = time.monotonic()
        if now - self._since > WINDOW:
            self._since, self._bytes = now, 0
        self._bytes += n
        if self._bytes >= FLOOD_BYTES:
            self.flooding = self._set(self._policies[1])

    def idle(self) -> None:
        if self.flooding and self._policies is not None:
            self._set(self._policies[0])
            self.flooding = False
            self._since, self._bytes = 0.0, 0

    def _set(self, policy: int) -> bool:
        try:
            _set_policy(policy)
        except OSError:  # not allowed here: stay as we are, and stop trying
            self._policies = None
            return False
        return True
