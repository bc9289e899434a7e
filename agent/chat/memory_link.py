"""The agent's side of memory: feeds finished commands in, gives model work to the `memory` task.

`memory/` may not call a model; this link injects the summariser and the profile
writer, redacts every text before it reaches the model, and keeps secrets out of what
is written.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol

from termwise.agent.base.config_schema import Config
from termwise.agent.base.prompts import load_prompt
from termwise.agent.llm.base import LlmClient
from termwise.memory import retrieve_snippets
from termwise.memory.errors import MemoryStoreError
from termwise.memory.extract import Extraction, remember_statements
from termwise.memory.store import MemoryStore
from termwise.memory.tiers import CommandRecord, MemoryTiers

log = logging.getLogger(__name__)


class FinishedCommand(Protocol):
    """What memory reads of a finished command (the host's block or the agent's Block)."""

    @property
    def command(self) -> str: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def cwd(self) -> str | None: ...
    @property
    def ended(self) -> float | None: ...


def make_redactor(config: Config) -> Callable[[str], tuple[str, bool]]:
    """text → (text with secrets replaced, whether any were found), with the user's patterns."""
    from termwise.agent.privacy.redact import redact

    patterns = tuple(config.privacy.patterns)

    def run(text: str) -> tuple[str, bool]:
        result = redact(text, patterns)
        return result.text, bool(result.found)

    return run


class MemoryLink:
    """Connects sessions and the model to the memory store; never blocks its caller."""

    def __init__(
        self,
        store: MemoryStore,
        client: LlmClient | None,
        config: Config,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.client = client
        self.config = config
        self.enabled = config.memory.enabled
        self._redact = make_redactor(config)
        model = client is not None
        self.tiers = MemoryTiers(
            store,
            summarize=self._summarize if model else None,
            rewrite_profile=self._rewrite_profile if model else None,
            short_term=config.memory.short_term,
            summary_every=config.memory.summary_every,
            clock=clock,
        )

    # -- called by the tray -----------------------------------------------------------

    def on_block(self, session_id: str, block: FinishedCommand) -> None:
        """A command finished in a session (called on a reader thread; returns at once).

        Only the command line, exit code, folder and time are read: the output is never
        cleaned here, so a big block costs the reader nothing.
        """
        if not self.enabled or not block.command.strip():
            return
        record = CommandRecord(block.command.strip(), block.exit_code, block.cwd, block.ended)
        self.tiers.on_command(session_id, record)

    def on_session_end(self, session_id: str) -> None:
        if self.enabled:
            self.tiers.on_session_end(session_id)

    def close(self, timeout: float = 30.0) -> bool:
        """End every session's memory and let the queued model work finish (tray quit)."""
        if self.enabled:
            self.tiers.end_all()
        return self.tiers.close(timeout)

    def flush(self, timeout: float = 30.0) -> bool:
        return self.tiers.flush(timeout)

    # -- called by turns, the overlay and chat --------------------------------------------

    def snippets(self, query: str, n: int) -> list[str]:
        """The agent's memory callable: the n best memories for a question, as prompt lines."""
        if not self.enabled:
            return []
        try:
            return retrieve_snippets(self.store, query, n)
        except MemoryStoreError as exc:
            log.warning("memory unavailable for retrieval: %s", exc)
            return []

    def recent_commands(self, session_id: str) -> list[CommandRecord]:
        return self.tiers.short.recent(session_id)

    def remember(self, text: str) -> Extraction:
        """Upsert what the user said about themselves ("I like …"); secrets are withheld."""
        if not self.enabled:
            return Extraction()
        return remember_statements(self.store, text, self.is_secret)

    def is_secret(self, text: str) -> bool:
        return self._redact(text)[1]

    # -- model work (background thread) ---------------------------------------------------

    def _complete(self, prompt: str, material: str) -> str:
        assert self.client is not None
        text, _ = self._redact(material)
        messages = [
            {"role": "system", "content": load_prompt(prompt)},
            {"role": "user", "content": text},
        ]
        answer = self.client.complete(messages, task="memory")
        # A model may echo something secret-looking; it is never written as is.
        return self._redact(answer)[0].strip()

    def _summarize(self, material: str) -> str:
        return self._complete("memory_summary", material)

    def _rewrite_profile(self, old_profile: str, summaries: list[str]) -> str:
        material = "Current profile:\n" + (old_profile or "(empty)") + "\n\nSession summaries:\n"
        material += "\n\n".join(summaries)
        return self._complete("memory_profile", material)
