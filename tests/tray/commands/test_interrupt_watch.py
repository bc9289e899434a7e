"""The Ctrl-C watch puts Python's signal wake-up descriptor back, even a dead one."""

from __future__ import annotations

import signal
import socket

from termwise.tray.commands.interrupt_watch import InterruptWatch


def test_the_wake_up_descriptor_before_is_put_back() -> None:
    a, b = socket.socketpair()
    b.setblocking(False)
    before = signal.set_wakeup_fd(b.fileno())
    try:
        with InterruptWatch():
            assert signal.set_wakeup_fd(signal.set_wakeup_fd(-1)) != b.fileno()
        assert signal.set_wakeup_fd(-1) == b.fileno()
    finally:
        signal.set_wakeup_fd(before)
        a.close()
        b.close()


def test_one_closed_while_it_watched_is_not_put_back() -> None:
    """Left behind by an event loop that closed without putting its own back."""
    a, b = socket.socketpair()
    b.setblocking(False)
    before = signal.set_wakeup_fd(b.fileno())
    try:
        with InterruptWatch():
            a.close()
            b.close()  # the descriptor to put back is gone
        assert signal.set_wakeup_fd(-1) == -1
    finally:
        signal.set_wakeup_fd(before)
