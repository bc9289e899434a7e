"""A host killed with its sessions running is noticed by the next one: told, and no id reused."""

from __future__ import annotations

import signal
from pathlib import Path

from tests.support.wine_limits import wine_limit
from tests.tray.serve_support import ServeProcess, termwise, wait_until


@wine_limit("no-posix-tools")
def test_the_next_host_says_sessions_were_lost_and_numbers_after_them(termwise_home: Path) -> None:
    first = ServeProcess(termwise_home)
    ids = [first.client.create("bash")["id"] for _ in range(2)]
    first.stop(signal.SIGKILL)  # the host dies; its shells go with it

    second = ServeProcess(termwise_home)
    try:
        assert wait_until(lambda: "its 2 sessions were lost" in second.stderr(), 10)
        listed = termwise("sessions")
        assert "the previous Termwise host ended unexpectedly; its 2 sessions were lost" in (
            listed.stderr
        )
        new_id = second.client.create("bash")["id"]
        assert int(new_id) > max(map(int, ids)), "an old id must not name a new shell"
    finally:
        second.stop()

    third = ServeProcess(termwise_home)  # the second ended cleanly: nothing to report
    try:
        assert "lost" not in third.stderr()
        assert "lost" not in termwise("sessions").stderr
    finally:
        third.stop()
