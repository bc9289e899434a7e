"""Pair the foreground window with attached clients: which sessions are shown in it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from termwise.tray.host.foreground import ClientWindow, Foreground
from termwise.tray.host.foreground.procs import ancestry


@dataclass(frozen=True)
class AttachedClient:
    """One attached client of a session, with its process ancestry worked out once."""

    session_id: str
    window: ClientWindow
    chain: tuple[int, ...] = field(default=())

    @classmethod
    def of(cls, session_id: str, window: ClientWindow) -> AttachedClient:
        # Walked at attach time, not on the hotkey: a live process's ancestors stay put.
        chain = ancestry(window.pid) if window.pid else ()
        return cls(session_id, window, chain)


def in_window(foreground: Foreground, client: AttachedClient) -> bool:
    """Whether the client's terminal is the foreground window."""
    if (
        client.window.console_window is not None
        and client.window.console_window in foreground.handles
    ):
        return True
    return foreground.pid is not None and foreground.pid in client.chain


def sessions_in(foreground: Foreground, clients: Iterable[AttachedClient]) -> list[str]:
    """Ids of the sessions attached in the foreground window (several when it has tabs)."""
    found: list[str] = []
    for client in clients:
        if client.session_id not in found and in_window(foreground, client):
            found.append(client.session_id)
    return found


def most_recent(ids: Sequence[str], order: Mapping[str, int]) -> str | None:
    """The id that last received input (`order` holds increasing numbers); ties → the later id."""
    best: str | None = None
    best_seq = -1
    for session_id in ids:
        seq = order.get(session_id, -1)
        if best is None or seq >= best_seq:
            best, best_seq = session_id, seq
    return best
