"""One shell in a PTY: its reader thread, stream parser, attached clients and blocks."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable

from termwise.agent.base.types import RunOutcome, SessionContext
from termwise.tray.host.errors import CommandRefused, SessionEnded
from termwise.tray.host.events import BlockFinished, HostEvent
from termwise.tray.host.events import SessionEnded as SessionEndedEvent
from termwise.tray.host.line import (
    LINE_PROPERTY,
    READLINE_REDRAW,
    line_keys,
    parse_line_report,
    refusal_for_text,
)
from termwise.tray.host.pty import DEFAULT_TERMINATION, PtyProcess, TerminationPolicy
from termwise.tray.host.stream import CommandBlock, StreamParser

log = logging.getLogger(__name__)

MAX_SIDE = 9999  # rows or columns: more than any screen, less than a winsize's 65535

READ_SIZE = 65536
# Raw output replayed to a newly attached client so its window shows the session again.
REPLAY_MIN = 16 * 1024
REPLAY_MAX = 256 * 1024
CLEAR_SCREEN = b"\x1b[H\x1b[2J"
ENTER_ALT_SCREEN = b"\x1b[?1049h"
EXIT_WAIT = 5.0
ENDED_RING_BYTES = 64 * 1024
FIRST_PROMPT_WAIT = 15.0  # how long a new shell's first prompt is awaited before typing

DataCallback = Callable[[bytes], None]
EndCallback = Callable[[int | None], None]


def os_name() -> str:
    """What platform.system() says ("Linux", "Windows", "Darwin"), without importing platform
    into the host for one word."""
    if sys.platform == "win32":
        return "Windows"
    return os.uname().sysname


class Session:
    """A running (or ended) shell owned by the host."""

    def __init__(
        self,
        session_id: str,
        shell: str,
        pty: PtyProcess,
        *,
        cwd: str | None,
        rows: int,
        cols: int,
        max_blocks: int,
        ring_bytes: int,
        emit: Callable[[HostEvent], None],
        clock: Callable[[], float] = time.time,
        termination: TerminationPolicy = DEFAULT_TERMINATION,
    ) -> None:
        self.id = session_id
        self.shell = shell
        self.pid = pty.pid
        self.created = clock()
        self.termination = termination
        self._pty = pty
        self._start_cwd = cwd
        self._emit = emit
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._write_lock = threading.Lock()
        self._listeners: tuple[tuple[DataCallback, EndCallback], ...] = ()
        self._size = (rows, cols)
        self._ended = False
        self._exit_code: int | None = None
        self._parser = StreamParser(
            max_blocks=max_blocks,
            ring_bytes=ring_bytes,
            clock=clock,
            on_line_report=self._on_line_report,
        )
        self._line_lock = threading.Lock()  # one type/run at a time per session
        self._line_report = b""  # the newest OSC 633;TermwiseBuffer payload
        self._line_report_count = 0
        self._born = time.monotonic()
        self._thread = threading.Thread(
            target=self._read_loop, name=f"session-{session_id}-reader", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    # state ----------------------------------------------------------------------------
    @property
    def cwd(self) -> str | None:
        return self._parser.cwd or self._start_cwd

    @property
    def alive(self) -> bool:
        return not self._ended

    @property
    def exit_code(self) -> int | None:
        return self._exit_code

    @property
    def shell_path(self) -> str | None:
        """PATH as the shell's integration last reported it (None before it did)."""
        return self._parser.shell_path

    @property
    def has_marks(self) -> bool:
        return bool(self._parser.has_marks)

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    @property
    def client_count(self) -> int:
        return len(self._listeners)

    # the hot path ------------------------------------------------------------------------
    def _read_loop(self) -> None:
        read = self._pty.read
        feed = self._parser.feed
        lock = self._lock
        while True:
            try:
                chunk = read(READ_SIZE)
            except Exception as exc:  # the PTY itself failed: nothing more can be read
                log.exception("session %s: reading the terminal failed", self.id)
                self._tell_clients(f"termwise: this session's terminal failed ({exc})")
                break
            if not chunk:
                break
            with lock:
                finished = feed(chunk)  # never raises
                if finished:
                    self._cond.notify_all()
                listeners = self._listeners
            # Fan out outside the lock: a slow client must not block readers of blocks.
            for entry in listeners:
                try:
                    entry[0](chunk)
                except Exception:  # one broken client is detached; the others go on
                    log.exception("session %s: a client failed; detaching it", self.id)
                    self._drop_listener(entry)
            for block in finished:
                self._emit(BlockFinished(self, block))
        self._finish()

    def _tell_clients(self, message: str) -> None:
        line = f"\r\n[{message}]\r\n".encode("utf-8", "replace")
        for on_data, _ in self._listeners:
            try:
                on_data(line)
            except Exception:
                log.debug("could not tell a client why the session stops", exc_info=True)

    def _drop_listener(self, entry: tuple[DataCallback, EndCallback]) -> None:
        with self._lock:
            self._listeners = tuple(x for x in self._listeners if x is not entry)

    def _finish(self) -> None:
        code = self._pty.wait(EXIT_WAIT)
        if code is None:
            code = self._pty.terminate(self.termination)
        with self._lock:
            # The command that ended the shell (`exit 3`, a crash) becomes its last block.
            last = self._parser.end_of_stream(code)
            # Nothing will attach again: a small tail of raw output is enough.
            self._parser.limit(ENDED_RING_BYTES)
            self._exit_code = code
            self._ended = True
            listeners = self._listeners
            self._listeners = ()
            self._cond.notify_all()
        for _, on_end in listeners:
            try:
                on_end(code)
            except Exception:
                log.exception("session %s: end callback failed", self.id)
        log.info("session %s ended (exit code %s)", self.id, code)
        if last is not None:
            self._emit(BlockFinished(self, last))
        self._emit(SessionEndedEvent(self, code))
        try:
            self._pty.close()
        except OSError:
            pass

    # input --------------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        """Raw input, as if typed."""
        if self._ended:
            raise SessionEnded(f"session {self.id} has ended (exit code {self._exit_code})")
        with self._write_lock:
            try:
                self._pty.write(data)
            except OSError as exc:
                raise SessionEnded(f"session {self.id} does not take input ({exc})") from None

    def send_text(self, text: str, enter: bool = False) -> None:
        """Type `text`; with `enter`, also press Enter."""
        data = text.encode("utf-8")
        self.write(data + b"\r" if enter else data)

    # replacing the prompt's line ------------------------------------------------------------
    @property
    def line_support(self) -> str:
        """How this shell's line can be handled: "report" (clear, and say what it holds),
        "clear" (clear only) or "" (neither: Termwise cannot replace pending text)."""
        if self.shell == "cmd":
            return "clear"  # cmd's line editor clears on Esc; it cannot report
        with self._lock:
            announced = self._parser.properties.get(LINE_PROPERTY, "")
        return announced if announced in ("clear", "report") else ""

    @property
    def can_run_exact(self) -> bool:
        """Whether `run_command` can check the line before pressing Enter (else only type)."""
        return self.line_support == "report"

    def type_command(self, text: str) -> None:
        """Replace whatever is pending on the prompt by `text`, without pressing Enter.

        Raises CommandRefused (control characters, a command still running, a shell
        whose line Termwise cannot clear) and SessionEnded.
        """
        refusal = refusal_for_text(text) or self._line_refusal()
        if refusal:
            raise CommandRefused(refusal)
        clear, _ = line_keys(self.shell)
        with self._line_lock:
            self.write(clear + text.encode("utf-8"))

    def run_command(self, text: str, timeout: float = 2.0) -> RunOutcome:
        """Replace the prompt's line by `text` and press Enter only once the shell has
        reported that its line is exactly `text`; otherwise clear it and say why."""
        refusal = refusal_for_text(text) or self._line_refusal()
        if not refusal and not self.can_run_exact:
            refusal = (
                f"session {self.id} ({self.shell}) cannot show Termwise what its prompt holds, "
                "so it cannot be sure what would run; type the command instead and press Enter "
                "yourself"
            )
        if refusal:
            return RunOutcome(False, refusal)
        clear, report = line_keys(self.shell)
        with self._line_lock:
            try:
                with self._lock:
                    seen = self._line_report_count
                self.write(clear + text.encode("utf-8") + report)
                answer = self._wait_line_report(seen, timeout)
                if answer is None:
                    self.write(clear)
                    return RunOutcome(
                        False,
                        f"the shell did not report its line within {timeout:g} s; nothing ran",
                    )
                line, changed = parse_line_report(answer)
                if line != text.encode("utf-8"):
                    self.write(clear)
                    shown = line.decode("utf-8", errors="replace")
                    return RunOutcome(
                        False, f"the prompt held {shown!r} instead of the command; nothing ran"
                    )
                if changed:
                    self.write(clear)
                    return RunOutcome(
                        False,
                        f"{self.shell} would rewrite this line before running it (history "
                        "expansion of '!'); type it instead and press Enter yourself",
                    )
                self.write(b"\r")
            except SessionEnded as exc:
                return RunOutcome(False, str(exc))
        return RunOutcome(True, "")

    def show_notice(self, text: str) -> None:
        """Show one line from Termwise in the attached terminals (not typed: the shell never
        sees it), then have the shell redraw its prompt below it where it can."""
        clean = "".join(ch if ch.isprintable() else " " for ch in text)
        line = f"\r\n[{clean}]\r\n".encode("utf-8", "replace")
        for on_data, _ in self._listeners:
            try:
                on_data(line)
            except Exception:
                log.debug("could not show a notice to a client", exc_info=True)
        # Only a prompt that is up can redraw. Between a command's end and its next prompt
        # the terminal driver would echo the key as `^[[9274~` (the prompt, still to come,
        # is drawn below the notice anyway); a running command would read it.
        with self._lock:
            prompt_up = self._parser.prompt_up
        if self.line_support and prompt_up and self.shell in ("bash", "zsh"):
            try:
                self.write(READLINE_REDRAW)
            except SessionEnded:
                pass

    def _await_first_prompt(self) -> None:
        """A shell that has only just started has not yet announced its line keys; keys
        typed before its first prompt would land as junk. Wait for that prompt (briefly)."""
        deadline = time.monotonic() + FIRST_PROMPT_WAIT
        while (
            not self._ended
            and not self.has_marks
            and not self.line_support
            and time.monotonic() < min(deadline, self._born + FIRST_PROMPT_WAIT)
        ):
            time.sleep(0.02)

    def _line_refusal(self) -> str:
        self._await_first_prompt()
        if self._ended:
            return f"session {self.id} has ended (exit code {self._exit_code})"
        if not self.line_support:
            return (
                f"session {self.id} ({self.shell}) has no Termwise integration that can clear "
                "its prompt, so typing would add to whatever is there; copy the command instead"
            )
        with self._lock:
            running = self._parser.command_running
        if running:
            return (
                f"a command is still running in session {self.id}; wait for its prompt "
                "(typing now would go to that program)"
            )
        return ""

    def _on_line_report(self, payload: bytes) -> None:
        # Called by the parser inside feed(), under self._lock.
        self._line_report = payload
        self._line_report_count += 1
        self._cond.notify_all()

    def _wait_line_report(self, seen: int, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                if self._line_report_count > seen:
                    return self._line_report
                remaining = deadline - time.monotonic()
                if self._ended or remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def resize(self, rows: int, cols: int) -> None:
        # Sizes come from clients: clamp to what a winsize holds and any screen shows.
        rows, cols = min(max(1, rows), MAX_SIDE), min(max(1, cols), MAX_SIDE)
        with self._lock:
            if (rows, cols) == self._size or self._ended:
                return
            self._size = (rows, cols)
            self._pty.resize(rows, cols)

    # attached clients ------------------------------------------------------------------------
    def attach(
        self,
        on_data: DataCallback,
        on_end: EndCallback,
        *,
        rows: int | None = None,
        cols: int | None = None,
    ) -> Callable[[], None]:
        """Relay output to a client: a redraw first, then live bytes; returns `detach`.

        The newest attach or resize sets the terminal size (last one wins).
        """
        with self._lock:
            if self._ended:
                raise SessionEnded(f"session {self.id} has ended (exit code {self._exit_code})")
            if rows and cols:
                self.resize(rows, cols)
            in_alt = bool(self._parser.in_alt_screen)
            # Snapshot and subscribe under the reader's lock: no byte is lost or doubled.
            on_data(self._replay(in_alt))
            entry = (on_data, on_end)
            self._listeners = (*self._listeners, entry)
        if in_alt:
            self._nudge_redraw()

        def detach() -> None:
            with self._lock:
                self._listeners = tuple(x for x in self._listeners if x is not entry)

        return detach

    def _replay(self, in_alt: bool) -> bytes:
        if in_alt:
            # A full-screen program redraws itself on SIGWINCH (see _nudge_redraw).
            return ENTER_ALT_SCREEN + CLEAR_SCREEN
        rows, cols = self._size
        want = min(REPLAY_MAX, max(REPLAY_MIN, rows * cols * 4))
        tail = self._parser.raw_tail(want)
        if len(tail) >= want:
            # Start at a line boundary, never inside an escape sequence.
            cut = tail.find(b"\n")
            if cut >= 0:
                tail = tail[cut + 1 :]
        return CLEAR_SCREEN + tail

    def _nudge_redraw(self) -> None:
        rows, cols = self._size
        with self._lock:
            if self._ended:
                return
            self._pty.resize(rows, max(1, cols - 1))
            self._pty.resize(rows, cols)

    # what happened -------------------------------------------------------------------------------
    def blocks(self, n: int | None = None) -> list[CommandBlock]:
        """Finished command blocks, oldest first (the last `n` when given)."""
        with self._lock:
            return list(self._parser.blocks(n))

    def last_block(self) -> CommandBlock | None:
        found = self.blocks(1)
        return found[-1] if found else None

    def wait_for_block(self, after_index: int, timeout: float) -> CommandBlock | None:
        """The first block with an index above `after_index`; None at the timeout or exit."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for block in self._parser.blocks():
                    if block.index > after_index:
                        return block
                remaining = deadline - time.monotonic()
                if self._ended or remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def screen_text(self) -> str:
        """The last screenful as clean text (what a user would see without marks)."""
        rows, cols = self._size
        with self._lock:
            return str(self._parser.screen_text(rows, cols))

    # memory ------------------------------------------------------------------------------
    def retained(self) -> int:
        """Bytes of output this session holds (rings and blocks)."""
        return self._parser.retained()

    def limit(self, ring_bytes: int) -> None:
        """Hold at most `ring_bytes` of raw output from now on."""
        self._parser.limit(ring_bytes)

    def drop_oldest_block(self) -> bool:
        return self._parser.drop_oldest_block()

    def raw_tail(self, n: int) -> bytes:
        with self._lock:
            return bytes(self._parser.raw_tail(n))

    def context(
        self,
        n: int = 5,
        blocks: list[CommandBlock] | None = None,
        screen_text: str | None = None,
    ) -> SessionContext:
        """What a suggestion turn needs to know about this session: its last `n` blocks,
        or the `blocks` (and `screen_text`) the caller already took."""
        # Imported here: an idle host (`termwise serve`) never builds a context.
        from termwise.agent.suggest.wire import session_context

        return session_context(
            [b.to_agent_block() for b in (self.blocks(n) if blocks is None else blocks)],
            shell=self.shell,
            cwd=self.cwd,
            session_id=self.id,
            os_name=os_name(),
            path=self.shell_path,
            has_marks=self.has_marks,
            screen_text=""
            if self.has_marks
            else (self.screen_text() if screen_text is None else screen_text),
        )

    # ending ------------------------------------------------------------------------------
    def terminate(self, policy: TerminationPolicy | None = None, timeout: float = 10.0) -> None:
        """End the shell with the named policy and wait for the reader to finish."""
        if not self._ended:
            try:
                self._pty.terminate(policy or self.termination)
            except OSError as exc:
                log.warning("session %s: terminate failed: %s", self.id, exc)
        if threading.current_thread() is not self._thread and self._thread.is_alive():
            self._thread.join(timeout)

    def __repr__(self) -> str:
        state = "alive" if self.alive else f"ended({self._exit_code})"
        return f"<Session {self.id} {self.shell} pid={self.pid} {state} cwd={os.fspath(self.cwd or '')!r}>"
