"""Short-, mid- and long-term memory: recent commands, session summaries, the profile.

Model work arrives as injected callables and runs on one background thread, so a
caller (a PTY reader, the overlay) never waits for a model. Without a summariser the
mid-term tier writes a plain count of what ran instead.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from termwise.memory.store import MemoryStore

log = logging.getLogger(__name__)

Summarize = Callable[[str], str]  # session material → summary
RewriteProfile = Callable[[str, list[str]], str]  # (old profile, session summaries) → profile
PROFILE_KEY = "profile:overview"


@dataclass(frozen=True)
class CommandRecord:
    """One finished command as memory keeps it."""

    command: str
    exit_code: int | None = None
    cwd: str | None = None
    ended: float | None = None

    def line(self) -> str:
        code = "?" if self.exit_code is None else str(self.exit_code)
        where = f"  (in {self.cwd})" if self.cwd else ""
        return f"[exit {code}] {self.command}{where}"


class BackgroundWorker:
    """Runs jobs one after another on a daemon thread; `submit` never blocks."""

    def __init__(self, name: str = "termwise-memory") -> None:
        self.name = name
        self.failures: list[str] = []
        self._queue: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._closed = False

    def submit(self, job: Callable[[], None]) -> None:
        if self._closed:
            return
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        self._queue.put(job)

    def flush(self, timeout: float) -> bool:
        """Wait until every job submitted so far has run; False on timeout."""
        if self._thread is None:
            return True
        done = threading.Event()
        self._queue.put(done.set)
        return done.wait(timeout)

    def close(self, timeout: float = 10.0) -> bool:
        """Finish queued jobs (up to timeout), then stop the thread."""
        finished = self.flush(timeout)
        self._closed = True
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout if finished else 0.1)
        return finished

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            try:
                job()
            except Exception as exc:  # a failed job must not end the worker
                self.failures.append(f"{type(exc).__name__}: {exc}")
                log.warning("memory job failed: %s", exc, exc_info=True)


class ShortTerm:
    """The last N commands of each session, with exit codes."""

    def __init__(self, size: int = 20) -> None:
        self.size = size
        self._recent: dict[str, deque[CommandRecord]] = {}
        self._lock = threading.Lock()

    def add(self, session_id: str, record: CommandRecord) -> None:
        with self._lock:
            self._recent.setdefault(session_id, deque(maxlen=self.size)).append(record)

    def recent(self, session_id: str) -> list[CommandRecord]:
        with self._lock:
            return list(self._recent.get(session_id, ()))

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._recent.pop(session_id, None)

    def render(self, session_id: str) -> str:
        return "\n".join(r.line() for r in self.recent(session_id))


def plain_summary(records: list[CommandRecord]) -> str:
    """What ran, counted by program, for when no model is available."""
    programs = Counter(r.command.split()[0] for r in records if r.command.split())
    failed = sum(1 for r in records if r.exit_code not in (0, None))
    top = ", ".join(f"{name} ×{n}" for name, n in programs.most_common(8))
    return f"Ran {len(records)} commands ({failed} failed): {top}."


@dataclass
class _Session:
    episode_key: str
    pending: list[CommandRecord] = field(default_factory=list)
    summary: str = ""
    total: int = 0


class MemoryTiers:
    """Feeds finished commands through the three tiers; all model work is in the background."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        summarize: Summarize | None = None,
        rewrite_profile: RewriteProfile | None = None,
        short_term: int = 20,
        summary_every: int = 10,
        clock: Callable[[], float] = time.time,
        worker: BackgroundWorker | None = None,
    ) -> None:
        self.store = store
        self.summarize = summarize
        self.rewrite_profile = rewrite_profile
        self.short = ShortTerm(short_term)
        self.summary_every = max(1, summary_every)
        self.clock = clock
        self.worker = worker or BackgroundWorker()
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()

    def on_command(self, session_id: str, record: CommandRecord) -> None:
        """Record a finished command; every `summary_every` commands a summary is queued."""
        self.short.add(session_id, record)
        with self._lock:
            state = self._sessions.get(session_id)
            if state is None:
                state = _Session(self._episode_key(session_id))
                self._sessions[session_id] = state
            state.pending.append(record)
            state.total += 1
            due = len(state.pending) >= self.summary_every
            batch = self._take(state) if due else []
        if batch:
            self.worker.submit(lambda: self._summarise(state, batch))

    def on_session_end(self, session_id: str) -> None:
        """Summarise what is left of the session, then rewrite the profile (both queued)."""
        self._end([session_id])

    def end_all(self) -> None:
        """Close every open session's memory (the tray is quitting): one profile rewrite."""
        with self._lock:
            ids = list(self._sessions)
        self._end(ids)

    def _end(self, session_ids: list[str]) -> None:
        ended: list[_Session] = []
        for session_id in session_ids:
            with self._lock:
                state = self._sessions.pop(session_id, None)
                batch = self._take(state) if state is not None else []
            self.short.forget(session_id)
            if state is None:
                continue
            ended.append(state)
            if batch:
                self.worker.submit(self._summary_job(state, batch))
        if ended and self.rewrite_profile is not None:
            self.worker.submit(lambda: self._rewrite(ended))

    def flush(self, timeout: float = 30.0) -> bool:
        return self.worker.flush(timeout)

    def close(self, timeout: float = 30.0) -> bool:
        return self.worker.close(timeout)

    # -- background jobs ------------------------------------------------------------------

    def _summary_job(self, state: _Session, batch: list[CommandRecord]) -> Callable[[], None]:
        return lambda: self._summarise(state, batch)

    def _take(self, state: _Session) -> list[CommandRecord]:
        batch, state.pending = state.pending, []
        return batch

    def _episode_key(self, session_id: str) -> str:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.clock()))
        safe = re.sub(r"[^\w.-]+", "_", session_id) or "session"
        return f"episode:{stamp}-{safe}"

    def _summarise(self, state: _Session, batch: list[CommandRecord]) -> None:
        if self.summarize is None:
            summary = plain_summary(batch)
            if state.summary:
                summary = f"{state.summary}\n{summary}"
        else:
            material = _material(state.summary, batch)
            try:
                summary = self.summarize(material).strip()
            except Exception:
                # Keep the commands so the next summary covers them.
                with self._lock:
                    state.pending[:0] = batch
                raise
        if not summary:
            return
        state.summary = summary
        self.store.upsert(state.episode_key, "episode", summary, ("session",))

    def _rewrite(self, states: list[_Session]) -> None:
        summaries = [s.summary for s in states if s.summary]
        if not summaries or self.rewrite_profile is None:
            return
        old = self.store.profile_text()
        profile = self.rewrite_profile(old, summaries).strip()
        if profile:
            self.store.upsert(PROFILE_KEY, "profile", profile, ("profile",))


def _material(previous: str, batch: list[CommandRecord]) -> str:
    parts = []
    if previous:
        parts.append(f"Summary so far:\n{previous}")
    parts.append("Commands since then (oldest first):\n" + "\n".join(r.line() for r in batch))
    return "\n\n".join(parts)
