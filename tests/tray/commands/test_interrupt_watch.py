"""The Ctrl-C watch puts Python's signal wake-up descriptor back, even a dead one."""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator

import pytest
from termwise.tray.commands.interrupt_watch import InterruptWatch


@pytest.fixture
def wake_up() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A wake-up descriptor someone else installed before the watch."""
    a, b = socket.socketpair()
    b.setblocking(False)
    before = signal.set_wakeup_fd(b.fileno())
    yield a, b
    signal.set_wakeup_fd(before)
    a.close()
    b.close()


def test_the_wake_up_descriptor_before_is_put_back(wake_up) -> None:
    theirs = wake_up[1].fileno()
    with InterruptWatch():
        ours = signal.set_wakeup_fd(-1)
        signal.set_wakeup_fd(ours)
        assert ours not in (-1, theirs)
    assert signal.set_wakeup_fd(-1) == theirs


def test_one_closed_while_it_watched_is_not_put_back(wake_up) -> None:
    """Left behind by an event loop that closed without putting its own back."""
    with InterruptWatch():
        for end in wake_up:
            end.close()  # the descriptor to put back is gone
    assert signal.set_wakeup_fd(-1) == -1
