"""SessionHost: creates, lists and ends sessions, tracks the active one, fans out events."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Literal

from termwise.tray.host import memory
from termwise.tray.host.errors import SessionStartFailed, UnknownSession
from termwise.tray.host.events import (
    ActiveChanged,
    BlockFinished,
    HostEvent,
    SessionEnded,
    SessionStarted,
)
from termwise.tray.host.foreground import ClientWindow, Foreground, ForegroundProbe, platform_probe
from termwise.tray.host.foreground.match import AttachedClient, most_recent, sessions_in
from termwise.tray.host.pty import DEFAULT_TERMINATION, TerminationPolicy, spawn_pty
from termwise.tray.host.session import MAX_SIDE, Session

if TYPE_CHECKING:
    from termwise.agent.base.config_schema import Config
    from termwise.agent.base.paths import Paths

log = logging.getLogger(__name__)

# Ended sessions stay readable (context, exit code) until this many have piled up.
KEEP_ENDED = 20
# Under the host-wide budget, a live session's raw ring never shrinks below this.
MIN_RING_BYTES = 64 * 1024

Subscriber = Callable[[HostEvent], None]


def check_size(rows: object, cols: object) -> None:
    """Raise SessionStartFailed unless rows and cols are whole numbers in 1..MAX_SIDE."""
    for name, value in (("rows", rows), ("cols", cols)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SIDE:
            raise SessionStartFailed(
                f"{name} must be a whole number from 1 to {MAX_SIDE} (got {value!r})"
            )


class SessionHost:
    """The owner of every session; thread-safe; events arrive on reader threads."""

    def __init__(
        self,
        config: Config,
        paths: Paths,
        *,
        clock: Callable[[], float] = time.time,
        termination: TerminationPolicy = DEFAULT_TERMINATION,
        base_env: Mapping[str, str] | None = None,
        foreground: ForegroundProbe | Literal["platform"] | None = "platform",
    ) -> None:
        self.config = config
        self.paths = paths
        self.termination = termination
        self._clock = clock
        self._base_env = base_env
        self._lock = threading.Lock()
        self._sessions: dict[str, Session] = {}
        self._next_id = 1
        self._active_id: str | None = None
        self._subscribers: tuple[Subscriber, ...] = ()
        # Which session is active: the foreground window's, else the last to get input.
        self._probe: ForegroundProbe | Literal["platform"] | None = foreground
        self._clients: dict[int, AttachedClient] = {}
        self._next_client = 0
        self._seq = 0  # orders inputs and foreground sightings
        self._input_seq: dict[str, int] = {}
        self._focus: tuple[str, int] | None = None  # last session seen in the foreground
        self._own_pid = os.getpid()
        self._input_newest = True  # no foreground sighting since the last input was ordered
        self._budget_lock = threading.Lock()
        memory.limit_arenas()  # before any reader thread allocates

    def skip_ids_below(self, next_id: int) -> None:
        """Number new sessions from `next_id` on (ids a crashed host handed out stay unused)."""
        with self._lock:
            self._next_id = max(self._next_id, next_id)

    # sessions ------------------------------------------------------------------------
    def create(
        self,
        shell: str | None = None,
        cwd: str | None = None,
        rows: int | None = None,
        cols: int | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Session:
        """Start a shell (raises UnknownShell, ShellNotFound or SessionStartFailed)."""
        from termwise.tray.host.shells import launch_command

        rows = rows or self.config.session.rows
        cols = cols or self.config.session.cols
        check_size(rows, cols)  # before the fork: a bad size must not fail in the child
        if cwd:
            cwd = os.path.abspath(os.path.expanduser(cwd))
            if not os.path.isdir(cwd):
                raise SessionStartFailed(f"cannot start a shell in {cwd}: no such folder")
        with self._lock:
            session_id = str(self._next_id)
            self._next_id += 1
        base_env = dict(os.environ if self._base_env is None else self._base_env)
        base_env.update(env or {})
        spec = launch_command(
            shell,
            session_id=session_id,
            base_env=base_env,
            config_default=self.config.terminal.default_shell,
        )
        try:
            pty = spawn_pty(list(spec.argv), cwd=cwd, env=dict(spec.env), rows=rows, cols=cols)
        except OSError as exc:
            raise SessionStartFailed(
                f"could not start {spec.name} ({spec.argv[0]}): {exc}"
            ) from None
        session = Session(
            session_id,
            spec.name,
            pty,
            cwd=cwd or os.getcwd(),
            rows=rows,
            cols=cols,
            max_blocks=self.config.session.max_blocks,
            ring_bytes=self.config.session.ring_bytes,
            emit=self._emit,
            clock=self._clock,
            termination=self.termination,
        )
        with self._lock:
            self._sessions[session_id] = session
            self._prune()
        log.info("session %s: started %s (pid %s) in %s", session_id, spec.name, session.pid, cwd)
        self._emit(SessionStarted(session))
        session.start()
        return session

    def _prune(self) -> None:
        ended = [s for s in self._sessions.values() if not s.alive]
        for session in ended[: max(0, len(ended) - KEEP_ENDED)]:
            del self._sessions[session.id]
            self._input_seq.pop(session.id, None)

    def get(self, session_id: str) -> Session:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None:
                return session
            running = [s.id for s in self._sessions.values() if s.alive]
        listing = ", ".join(running) if running else "none"
        raise UnknownSession(f"no session {session_id!r}; running: {listing}")

    def list(self) -> list[Session]:
        """All sessions, oldest first (ended ones too, until pruned)."""
        with self._lock:
            return list(self._sessions.values())

    def kill(self, session_id: str) -> None:
        """End a session's shell with the host's termination policy."""
        self.get(session_id).terminate(self.termination)

    # the active session ------------------------------------------------------------------
    def active(self) -> Session | None:
        """The session in the foreground window, else the last to get input, else the newest.

        Among several sessions in the foreground window (tabs) the one that last got
        input wins. While one of this process's own windows is in front (the overlay),
        the session seen in the foreground before stays active unless input (or
        `set_active`, e.g. Tab in the overlay) came later.
        """
        # No client has told us its window: nothing to match, so don't ask the display.
        foreground = self._foreground() if self._clients else None
        with self._lock:
            if foreground is not None:
                if foreground.pid == self._own_pid:
                    chosen = self._focus_or_input()
                else:
                    alive = [c for c in self._clients.values() if self._is_alive(c.session_id)]
                    chosen = most_recent(sessions_in(foreground, alive), self._input_seq)
                    if chosen is not None:
                        self._seq += 1
                        self._focus = (chosen, self._seq)
                        self._input_newest = False
                if chosen is not None and self._is_alive(chosen):
                    return self._sessions[chosen]
            if self._active_id is not None and self._is_alive(self._active_id):
                return self._sessions[self._active_id]
            for session in reversed(self._sessions.values()):
                if session.alive:
                    return session
        return None

    def _is_alive(self, session_id: str) -> bool:
        session = self._sessions.get(session_id)
        return session is not None and session.alive

    def _focus_or_input(self) -> str | None:
        """The later of: the last session seen in the foreground, the last to get input."""
        if self._focus is None:
            return self._active_id
        focus_id, focus_seq = self._focus
        if self._active_id is not None and self._input_seq.get(self._active_id, -1) > focus_seq:
            return self._active_id
        return focus_id

    def _foreground(self) -> Foreground | None:
        probe = self._probe
        if isinstance(probe, str):
            with self._lock:  # created once, on first use (never at import)
                if isinstance(self._probe, str):
                    self._probe = platform_probe()
                probe = self._probe
        if probe is None or isinstance(probe, str):
            return None
        try:
            return probe.foreground()
        except Exception as exc:  # a probe must not cost the hotkey its answer
            log.debug("foreground probe failed: %s", exc)
            return None

    def set_active(self, session_id: str) -> None:
        """`session_id` got input (typed, sent, or chosen in the overlay)."""
        if session_id == self._active_id and self._input_newest:
            return  # the common case: every keystroke of the same client
        session = self.get(session_id)
        with self._lock:
            changed = session_id != self._active_id
            self._active_id = session_id
            self._seq += 1
            self._input_seq[session_id] = self._seq
            self._input_newest = True
        if changed:
            self._emit(ActiveChanged(session))

    def attach_window(self, session_id: str, window: ClientWindow) -> Callable[[], None]:
        """Remember that a client shows `session_id` in `window`; returns the forget call."""
        if window.pid is None and window.console_window is None:
            return _nothing
        client = AttachedClient.of(session_id, window)
        with self._lock:
            key = self._next_client
            self._next_client += 1
            self._clients[key] = client
        # Start the probe now (its first answer loads libraries, connects), not on the hotkey.
        self._foreground()

        def forget() -> None:
            with self._lock:
                self._clients.pop(key, None)

        return forget

    # events -----------------------------------------------------------------------------
    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(event)` on every host event (on reader threads); returns unsubscribe."""
        with self._lock:
            self._subscribers = (*self._subscribers, callback)

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = tuple(s for s in self._subscribers if s is not callback)

        return unsubscribe

    # memory -----------------------------------------------------------------------------
    def _enforce_budget(self) -> None:
        """Keep the output held by all sessions within `session.budget_bytes`: the oldest
        ended sessions go first; then live rings shrink to a fair share and the largest
        session's oldest blocks go (each keeps its last block)."""
        budget = self.config.session.budget_bytes
        if budget <= 0:
            return
        with self._budget_lock:
            sessions = self.list()
            sizes = {s.id: s.retained() for s in sessions}
            total = sum(sizes.values())
            for session in [s for s in sessions if not s.alive]:
                if total <= budget:
                    return
                with self._lock:
                    self._sessions.pop(session.id, None)
                    self._input_seq.pop(session.id, None)
                total -= sizes.pop(session.id)
                log.info("session %s: forgotten to stay within the memory budget", session.id)
            live = [s for s in sessions if s.id in sizes]
            if total <= budget or not live:
                return
            # A quarter of each live session's share for its raw ring; the rest is for
            # its screen text and blocks.
            share = max(MIN_RING_BYTES, budget // (4 * len(live)))
            for session in live:
                session.limit(min(self.config.session.ring_bytes, share))
                sizes[session.id] = session.retained()
            total = sum(sizes.values())
            while total > budget:
                biggest = max(live, key=lambda s: sizes[s.id])
                if not biggest.drop_oldest_block():
                    break
                total -= sizes[biggest.id]
                sizes[biggest.id] = biggest.retained()
                total += sizes[biggest.id]

    def _emit(self, event: HostEvent) -> None:
        if isinstance(event, (SessionEnded, BlockFinished)):
            self._enforce_budget()
        if isinstance(event, SessionEnded):
            with self._lock:
                self._prune()
            memory.give_back()
        for callback in self._subscribers:
            try:
                callback(event)
            except Exception:
                log.exception("host event subscriber failed on %s", type(event).__name__)

    def shutdown(self) -> None:
        """End every running session (in parallel, each with the named policy)."""
        probe, self._probe = self._probe, None
        if probe is not None and not isinstance(probe, str):
            probe.close()
        alive = [s for s in self.list() if s.alive]
        threads = [
            threading.Thread(target=s.terminate, args=(self.termination,), daemon=True)
            for s in alive
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30.0)
        log.info("host: shut down %d session(s)", len(alive))


def _nothing() -> None:
    pass
