"""Readable Markdown memory of the user (no Qt, no network)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from termwise.memory.store import MemoryStore


def retrieve_snippets(store: MemoryStore, query: str, n: int = 3) -> list[str]:
    """The n best memories for a query as prompt lines (the agent's memory callable)."""
    return [hit.snippet() for hit in store.search(query, n)]
