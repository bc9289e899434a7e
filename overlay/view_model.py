"""The overlay's state as plain Python: context shown, suggestions, selection, status.

Widgets render it and never reach into sessions or the agent; the tray's controller
feeds it contexts and turn events.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from termwise.agent.base.events import (
    Error,
    Event,
    Finished,
    Question,
    Status,
    SuggestionReady,
    VerdictReady,
)
from termwise.agent.base.types import SessionContext, Suggestion, Verdict

OUTPUT_TAIL_LINES = 14
CLIPBOARD_CHARS = 2000

# Lines a user would read as "this is what went wrong".
_ERROR_LINE = re.compile(
    r"error|\berr\b|fail|fatal|denied|not found|no such|cannot|can't|could not|exception|"
    r"traceback|panic|refused|invalid|unknown|missing|unable to",
    re.IGNORECASE,
)


def is_error_line(line: str) -> bool:
    """Whether an output line looks like an error message."""
    return bool(_ERROR_LINE.search(line))


@dataclass(frozen=True)
class OutputLine:
    text: str
    error: bool


@dataclass
class Header:
    """What the overlay says about its context (the session or the clipboard)."""

    source: str = "none"  # "session" | "clipboard" | "none"
    session_id: str | None = None
    shell: str = ""
    cwd: str = ""
    command: str = ""
    exit_code: int | None = None
    position: int = 0  # 1-based index among the sessions (0: none)
    count: int = 0


@dataclass
class SuggestionRow:
    """One suggestion with its current verdict."""

    suggestion: Suggestion
    verdict: Verdict | None = None

    @property
    def command(self) -> str:
        return self.suggestion.command

    @property
    def risk(self) -> str:
        return self.verdict.level if self.verdict is not None else "unknown"

    @property
    def risk_tooltip(self) -> str:
        if self.verdict is None:
            return ""
        lines = list(self.verdict.reasons)
        if self.verdict.explanation:
            lines.append(self.verdict.explanation)
        return "\n".join(lines)


Listener = Callable[[str], None]


@dataclass
class OverlayViewModel:
    """State of the overlay; `listeners` hear which part changed ("context", "suggestions", …)."""

    header: Header = field(default_factory=Header)
    output: list[OutputLine] = field(default_factory=list)
    context: SessionContext | None = None
    rows: list[SuggestionRow] = field(default_factory=list)
    selected: int = -1
    busy: bool = False
    status: str = ""
    question: str = ""
    asked: str = ""  # what the user asked, shown while the answer streams
    error: str = ""
    error_retryable: bool = False
    explanation: str = ""
    model_available: bool = True
    listeners: list[Listener] = field(default_factory=list)
    _status_stale: bool = False

    def _changed(self, part: str) -> None:
        for listener in list(self.listeners):
            listener(part)

    # context -----------------------------------------------------------------
    def show_session(self, context: SessionContext, *, position: int, count: int) -> None:
        """Show a session's latest block (the last one in `context.blocks`)."""
        last = context.blocks[-1] if context.blocks else None
        self.context = context
        self.header = Header(
            source="session",
            session_id=context.session_id,
            shell=context.shell,
            cwd=(last.cwd if last and last.cwd else context.cwd) or "",
            command=last.command if last else "",
            exit_code=last.exit_code if last else None,
            position=position,
            count=count,
        )
        text = last.output if last else context.screen_text
        self.output = _tail(text)
        self._changed("context")

    def show_clipboard(self, context: SessionContext) -> None:
        """No session is active: the clipboard text is the context."""
        self.context = context
        self.header = Header(source="clipboard")
        self.output = _tail(context.clipboard_text[-CLIPBOARD_CHARS:])
        self._changed("context")

    @property
    def last_failed(self) -> bool:
        code = self.header.exit_code
        return self.header.source == "session" and code is not None and code != 0

    # turns -------------------------------------------------------------------
    def reset(self) -> None:
        """A fresh open: no suggestion, selection, question, answer or message of the last one."""
        self.asked = ""
        self.begin_turn()
        self.busy = False
        self._changed("status")

    def begin_turn(self, asked: str = "") -> None:
        """A new request: earlier suggestions, question and error go away."""
        self.asked = asked
        self.rows = []
        self.selected = -1
        self.busy = True
        self.status = ""
        self.question = ""
        self.error = ""
        self.explanation = ""
        self._status_stale = False
        self._changed("suggestions")
        self._changed("status")

    def apply(self, event: Event) -> None:
        """Render one turn event."""
        if isinstance(event, Status):
            self._status_stale = False
        elif not isinstance(event, Finished):
            self._status_stale = True  # progress ("asking the model…") was overtaken by results
        if isinstance(event, SuggestionReady):
            row = SuggestionRow(event.suggestion, event.suggestion.verdict)
            if event.index < len(self.rows):
                self.rows[event.index] = row
            else:
                self.rows.append(row)
            if self.selected < 0:
                self.selected = 0
            self._changed("suggestions")
        elif isinstance(event, VerdictReady):
            if 0 <= event.index < len(self.rows):
                self.rows[event.index].verdict = event.verdict
                self._changed("suggestions")
        elif isinstance(event, Question):
            self.question = event.text
            self._changed("status")
        elif isinstance(event, Status):
            self.status = event.text
            self._changed("status")
        elif isinstance(event, Error):
            self.error = event.message
            self.error_retryable = event.retryable
            self._changed("status")
        elif isinstance(event, Finished):
            self.busy = False
            if event.cancelled or self._status_stale:
                self.status = ""
            self._changed("status")

    def end_turn(self) -> None:
        """The request stopped (cancelled or its worker ended) without a Finished event."""
        if self.busy:
            self.busy = False
            self._changed("status")

    def show_error(self, message: str, *, retryable: bool = False) -> None:
        self.error = message
        self.error_retryable = retryable
        self._changed("status")

    def show_explanation(self, text: str) -> None:
        self.explanation = text
        self._changed("status")

    # selection ---------------------------------------------------------------
    def move(self, delta: int) -> None:
        """↑/↓: move the selection, staying inside the list."""
        if not self.rows:
            return
        self.selected = max(0, min(len(self.rows) - 1, self.selected + delta))
        self._changed("selection")

    def select(self, index: int) -> None:
        if 0 <= index < len(self.rows):
            self.selected = index
            self._changed("selection")

    def selected_row(self) -> SuggestionRow | None:
        if 0 <= self.selected < len(self.rows):
            return self.rows[self.selected]
        return None


def _tail(text: str, lines: int = OUTPUT_TAIL_LINES) -> list[OutputLine]:
    kept = text.rstrip("\n").splitlines()[-lines:] if text.strip() else []
    return [OutputLine(line, is_error_line(line)) for line in kept]
