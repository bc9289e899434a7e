"""A small record of the live sessions, so a host that died is noticed by the next one.

The host process owning sessions writes `sessions.json` in the runtime folder (its pid,
the next session id, the ids still running) whenever a session starts or ends, and removes
it when it shuts down cleanly. A host that starts listening beside such a record knows
the previous one ended unexpectedly: it says how many sessions were lost and goes on
numbering after them, so an old id never names a new, unrelated shell.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from termwise.agent.base.fileio import atomic_write
from termwise.tray.host.events import HostEvent, SessionEnded, SessionStarted

if TYPE_CHECKING:
    from termwise.tray.host.host import SessionHost

log = logging.getLogger(__name__)

LEDGER_NAME = "sessions.json"


class SessionLedger:
    """Tracks live session ids on disk for one host process."""

    def __init__(self, runtime_dir: Path) -> None:
        self.path = runtime_dir / LEDGER_NAME
        self.next_id = 1
        self.lost_notice: str | None = None  # what to tell the user about a crashed host
        self._live: set[str] = set()
        self._lock = threading.Lock()

    def recover(self) -> str | None:
        """Read what a previous host left; a sentence if its sessions were lost. Only reads."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError):
            log.warning("ignoring an unreadable %s", self.path)
            return None
        if not isinstance(data, dict):
            return None
        next_id = data.get("next_id")
        if isinstance(next_id, int) and not isinstance(next_id, bool) and next_id > 0:
            self.next_id = next_id
        live = data.get("live")
        count = len(live) if isinstance(live, list) else 0
        # Only a host that then manages to listen acts on this: had the previous one still
        # run, it would hold the address. A record with live sessions means they died with it.
        if count:
            self.lost_notice = (
                f"the previous Termwise host ended unexpectedly; its {count} "
                f"session{'s were' if count != 1 else ' was'} lost"
            )
            log.warning("%s (ids %s)", self.lost_notice, ", ".join(map(str, live or [])))
        return self.lost_notice

    def on_event(self, event: HostEvent) -> None:
        """Host subscriber: keep the record in step with sessions starting and ending."""
        if isinstance(event, SessionStarted):
            with self._lock:
                self._live.add(event.session.id)
                self.next_id = max(self.next_id, int(event.session.id) + 1)
                self._save()
        elif isinstance(event, SessionEnded):
            with self._lock:
                self._live.discard(event.session.id)
                self._save()

    def close(self) -> None:
        """A clean shutdown: nothing was lost, so nothing is left to report."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("could not remove %s: %s", self.path, exc)

    def _save(self) -> None:
        body = {"pid": os.getpid(), "next_id": self.next_id, "live": sorted(self._live, key=int)}
        try:
            atomic_write(self.path, json.dumps(body), durable=False)
        except OSError as exc:  # the record is a courtesy; sessions go on without it
            log.warning("could not write %s: %s", self.path, exc)


def keep_ledger(host: SessionHost, runtime_dir: Path) -> SessionLedger:
    """Wire a ledger to a host before it starts listening (so no request sees an old id):
    read a crashed predecessor's record and skip its ids. Nothing is written until a
    session starts, so a host that then fails to listen leaves the record alone."""
    ledger = SessionLedger(runtime_dir)
    ledger.recover()
    host.skip_ids_below(ledger.next_id)
    host.subscribe(ledger.on_event)
    return ledger
