"""Failure nudge: a non-zero exit in any session marks the tray icon and (optionally) notifies."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from termwise.tray.host.events import BlockFinished, HostEvent, SessionEnded

log = logging.getLogger(__name__)

# Exit codes that mean the user stopped the command, not that it failed.
INTERRUPTED = (130, -2)
MAX_SHOWN = 60  # characters of the failed command shown in the notification


def nudge_text(command: str, hotkey: str) -> str:
    """'`npm install` failed — press Ctrl+Alt+Space for a fix' (secrets in it redacted)."""
    from termwise.agent.privacy.redact import redact
    from termwise.tray.app.hotkey import describe

    # A notification is seen over a shoulder and kept by the desktop: no tokens in it.
    shown = " ".join(redact(command).text.split())
    if len(shown) > MAX_SHOWN:
        shown = shown[: MAX_SHOWN - 1] + "…"
    from termwise.overlay.i18n import tr

    return tr(
        "`{command}` failed — press {hotkey} for a fix", command=shown, hotkey=describe(hotkey)
    )


class FailureNudge(QObject):
    """Hears host events on the GUI thread (from the tray's one HostBridge relay)."""

    failed = Signal(str, str)  # session id, notification text
    cleared = Signal()

    def __init__(
        self,
        notify: Callable[[str, str], None],
        set_failed: Callable[[bool, str], None],
        *,
        enabled: bool = True,
        hotkey: str = "ctrl+alt+space",
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.notify = notify
        self.set_failed = set_failed
        self.enabled = enabled
        self.hotkey = hotkey
        self.failing: dict[str, str] = {}  # session id -> failed command

    def on_host_event(self, event: HostEvent) -> None:
        """A host event, on the GUI thread."""
        if isinstance(event, BlockFinished):
            self._on_block(event.session, event.block)
        elif isinstance(event, SessionEnded):
            self._on_ended(event.session)

    def _on_block(self, session: Any, block: Any) -> None:
        code = block.exit_code
        if code in (None, 0) or code in INTERRUPTED or not block.command.strip():
            if self.failing.pop(session.id, None) is not None:
                self._refresh()
            return
        self.failing[session.id] = block.command
        text = nudge_text(block.command, self.hotkey)
        log.info("command failed in session %s (exit %s): %s", session.id, code, block.command)
        self.set_failed(True, text)
        if self.enabled:
            self.notify("Termwise", text)
        self.failed.emit(session.id, text)

    def _on_ended(self, session: Any) -> None:
        if self.failing.pop(session.id, None) is not None:
            self._refresh()

    def _refresh(self) -> None:
        if not self.failing:
            self.set_failed(False, "")
            self.cleared.emit()
