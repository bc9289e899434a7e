"""The tray's one relay: host events (raised on reader threads) reach the GUI thread as queued signals."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from termwise.overlay.qt_bridge import emit
from termwise.tray.host.events import (
    ActiveChanged,
    BlockFinished,
    HostEvent,
    SessionEnded,
    SessionStarted,
)

log = logging.getLogger(__name__)


class HostBridge(QObject):
    """Re-emits a SessionHost's events (raised on reader threads) as signals on the GUI thread."""

    host_event = Signal(object)  # any HostEvent
    session_started = Signal(object)  # Session
    session_ended = Signal(object, object)  # Session, exit code
    block_finished = Signal(object, object)  # Session, CommandBlock
    active_changed = Signal(object)  # Session | None
    _relay = Signal(object)

    def __init__(self, host: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Queued: the reader thread only posts; the slot runs on this object's thread.
        self._relay.connect(self._dispatch, Qt.ConnectionType.QueuedConnection)
        self._unsubscribe: Callable[[], None] | None = host.subscribe(
            lambda e: emit(self._relay, e)
        )

    def close(self) -> None:
        """Stop listening to the host (idempotent)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _dispatch(self, event: HostEvent) -> None:
        emit(self.host_event, event)
        if isinstance(event, SessionStarted):
            emit(self.session_started, event.session)
        elif isinstance(event, SessionEnded):
            emit(self.session_ended, event.session, event.exit_code)
        elif isinstance(event, BlockFinished):
            emit(self.block_finished, event.session, event.block)
        elif isinstance(event, ActiveChanged):
            emit(self.active_changed, event.session)
