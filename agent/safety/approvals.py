"""The approval policy: once / this session / always / deny, by wildcard pattern per shell.

How `decide(command, shell, verdict)` answers:

1. A matching **deny** entry (saved or for this session) → "deny", whatever the verdict.
   Deny wins over any allow.
2. A `safe` verdict → "allow".
3. A matching allow entry (**always** or **session**) → "allow" — except for a
   `dangerous` verdict, which only an entry for exactly this command (a pattern without
   wildcards) can allow. A broad pattern such as `*` or `git *` never auto-allows a
   dangerous command; the user is asked each time.
4. Otherwise → "ask".

Patterns are fnmatch-style (`*`, `?`, `[abc]`) over the command with runs of blanks
collapsed; a wildcard never matches shell control characters (`;`, `&`, `|`, `<`, `>`,
newline, backtick, `$(`), so `git push *` does not cover `git push x; rm -rf ~`.
PowerShell and cmd patterns ignore case. A pattern's shell is a shell name (bash and
zsh share entries, as do pwsh and powershell) or `*` for every shell.

"once" approves only the run at hand and stores nothing; "session" lives in memory;
"always" and "deny" go to the user's approvals file (YAML, written atomically under a
lock). A file that cannot be read is moved aside, never silently lost, and reported in
`problems`.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from termwise.agent.base.errors import AgentError
from termwise.agent.base.fileio import atomic_write, free_aside_path
from termwise.agent.base.types import Verdict

log = logging.getLogger(__name__)

Choice = Literal["once", "session", "always", "deny"]
Decision = Literal["allow", "ask", "deny"]
Kept = Literal["session", "always", "deny"]
CHOICES: tuple[str, ...] = get_args(Choice)
FILE_VERSION = 1
LOCK_TIMEOUT = 5.0
MAX_PATTERN_INPUT = 4096
_CONTROL = r";&|<>`\x00-\x1f\x7f"  # separators, redirections and terminal control keys
_BLANKS = re.compile(r"[ \t]+")
_STAR = rf"(?:(?!\$\()[^{_CONTROL}])*"
_ONE = rf"[^{_CONTROL}]"
_HEADER = (
    "# Termwise approvals: commands allowed (always) or refused (deny) in every session.\n"
    "# Patterns use * ? [abc]; shell is a shell name or *. Safe to edit by hand.\n"
)


class ApprovalError(AgentError):
    """The approval policy could not be read or saved as asked."""


@dataclass(frozen=True)
class ApprovalEntry:
    """One remembered answer: a pattern, the shell it applies to and the choice."""

    pattern: str
    shell: str
    choice: Kept
    created: str = ""

    @property
    def saved(self) -> bool:
        return self.choice != "session"

    @property
    def exact(self) -> bool:
        """True when the pattern has no wildcard, so it names one command."""
        return not any(ch in self.pattern for ch in "*?[")

    def to_yaml(self) -> dict[str, str]:
        return {
            "pattern": self.pattern,
            "shell": self.shell,
            "choice": self.choice,
            "created": self.created,
        }


def normalize_command(command: str) -> str:
    """The form patterns are matched against: trimmed, runs of spaces and tabs made one space.

    Line breaks stay: they separate commands, and no wildcard may match across them.
    """
    return _BLANKS.sub(" ", command.strip())


def compile_pattern(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    """fnmatch-style pattern → regex whose wildcards stop at shell control characters."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            out.append(_STAR)
        elif ch == "?":
            out.append(_ONE)
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1 : end]
                negate = body.startswith("!")
                body = re.escape(body[1:] if negate else body).replace(r"\-", "-")
                out.append(f"[{'^' if negate else ''}{body}]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out) + r"\Z", re.IGNORECASE if ignore_case else 0)


def _family(shell: str) -> str:
    from termwise.agent.safety import family_of

    return family_of(shell) or shell.strip().lower()


class ApprovalStore:
    """Remembered approvals for one user file; session answers live only in this object."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.clock = clock
        self.problems: list[str] = []  # user-facing notes about the file (moved aside …)
        self._session: list[ApprovalEntry] = []
        self._saved: list[ApprovalEntry] = []
        self._stamp: tuple[int, int] | None = None
        self._compiled: dict[tuple[str, bool], re.Pattern[str]] = {}
        self._newer: int | None = None  # format of a file a newer Termwise wrote

    # --- queries ------------------------------------------------------------------------

    def decide(self, command: str, shell: str, verdict: Verdict | str) -> Decision:
        """ "allow", "ask" or "deny" for running `command` in `shell` (see the module rules)."""
        level = verdict if isinstance(verdict, str) else verdict.level
        matching = self.matches(command, shell)
        if any(e.choice == "deny" for e in matching):
            return "deny"
        if level == "safe":
            return "allow"
        allows = [e for e in matching if e.choice in ("always", "session")]
        if level == "dangerous":
            allows = [e for e in allows if e.exact]
        return "allow" if allows else "ask"

    def matches(self, command: str, shell: str) -> list[ApprovalEntry]:
        """Every entry (saved and session) whose pattern and shell cover this command."""
        self._refresh()
        text = normalize_command(command)
        family = _family(shell)
        # Wildcard matching can backtrack badly on huge inputs: long commands need an exact entry.
        wildcards = len(text) <= MAX_PATTERN_INPUT
        fold = family in ("powershell", "cmd")
        found = []
        for entry in [*self._saved, *self._session]:
            if entry.shell != "*" and _family(entry.shell) != family:
                continue
            if not entry.exact and not wildcards:
                continue
            if self._regex(entry.pattern, fold).match(text):
                found.append(entry)
        return found

    def entries(self) -> list[ApprovalEntry]:
        """Saved entries (from the file) then this session's, for the Settings window."""
        self._refresh()
        return [*self._saved, *self._session]

    # --- changes ------------------------------------------------------------------------

    def record(self, command: str, shell: str, choice: str, pattern: str | None = None) -> None:
        """Remember the user's answer; `pattern` defaults to exactly this command."""
        if choice not in CHOICES:
            raise ApprovalError(
                f"unknown approval choice {choice!r}; use one of {', '.join(CHOICES)}"
            )
        if choice == "once":
            return  # approves only the run at hand
        text = normalize_command(pattern if pattern is not None else command)
        if not text:
            raise ApprovalError("an approval needs a command or a pattern")
        entry = ApprovalEntry(text, shell.strip() or "*", choice, self._now())  # type: ignore[arg-type]
        if choice == "session":
            self._session = [e for e in self._session if not _same_target(e, entry)]
            self._session.append(entry)
            return
        with self._locked():
            self._refresh(force=True)
            self._saved = [e for e in self._saved if not _same_target(e, entry)]
            self._saved.append(entry)
            self._write()

    def remove(self, pattern: str, shell: str | None = None, choice: str | None = None) -> int:
        """Forget entries with this pattern (and shell/choice when given); returns how many."""

        def keep(entry: ApprovalEntry) -> bool:
            return not (
                entry.pattern == normalize_command(pattern)
                and (shell is None or entry.shell == shell)
                and (choice is None or entry.choice == choice)
            )

        before = len(self._session)
        self._session = [e for e in self._session if keep(e)]
        removed = before - len(self._session)
        with self._locked():
            self._refresh(force=True)
            before = len(self._saved)
            self._saved = [e for e in self._saved if keep(e)]
            if len(self._saved) != before:
                removed += before - len(self._saved)
                self._write()
        return removed

    def clear_session(self) -> None:
        self._session = []

    # --- file ---------------------------------------------------------------------------

    def _now(self) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock()))

    def _regex(self, pattern: str, fold: bool) -> re.Pattern[str]:
        key = (pattern, fold)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = compile_pattern(pattern, fold)
        return compiled

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the file's lock so two processes never interleave read-modify-write."""
        from filelock import FileLock, Timeout

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(self.path) + ".lock", timeout=LOCK_TIMEOUT)
            lock.acquire()
        except Timeout as exc:
            raise ApprovalError(
                f"approvals file {self.path} is busy (locked by another Termwise)"
            ) from exc
        except OSError as exc:
            raise ApprovalError(
                f"cannot save approvals in {self.path.parent}: {exc.strerror or exc}"
            ) from exc
        try:
            yield
        finally:
            lock.release()

    def _refresh(self, force: bool = False) -> None:
        """Re-read the file when it changed on disk (another process may have written it)."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._saved, self._stamp = [], None
            return
        except OSError as exc:
            self._note(f"cannot read approvals file {self.path}: {exc.strerror or exc}")
            return
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp == self._stamp and not force:
            return
        self._stamp = stamp
        self._saved = self._load()

    def _load(self) -> list[ApprovalEntry]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return self._set_aside(f"it could not be read ({exc})")
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            return self._set_aside(f"it is not valid YAML ({str(exc).splitlines()[0]})")
        if data is None:
            return []
        if not isinstance(data, dict) or not isinstance(data.get("entries", []), list):
            return self._set_aside("it does not hold a list of entries")
        version = data.get("version", FILE_VERSION)
        if isinstance(version, int) and not isinstance(version, bool) and version > FILE_VERSION:
            # A newer Termwise wrote it: its entries may mean something else here. Use none,
            # and never overwrite the file (going back to that version must find it intact).
            self._newer = version
            self._note(
                f"approvals file {self.path} is from a newer Termwise (format {version}, this "
                f"one reads {FILE_VERSION}); it is left as it is and every command asks"
            )
            return []
        self._newer = None
        entries: list[ApprovalEntry] = []
        bad = 0
        for raw in data.get("entries") or []:
            entry = _entry(raw)
            if entry is None:
                bad += 1
            else:
                entries.append(entry)
        if bad:
            copy = self._aside_name("bad")
            shutil.copy2(self.path, copy)
            self._note(
                f"skipped {bad} malformed approval entr{'y' if bad == 1 else 'ies'} in {self.path}; a copy of the file is at {copy}"
            )
        return entries

    def _set_aside(self, why: str) -> list[ApprovalEntry]:
        aside = self._aside_name("corrupt")
        try:
            os.replace(self.path, aside)
        except OSError as exc:
            self._note(
                f"approvals file {self.path} is unusable ({why}) and could not be moved: {exc}"
            )
            return []
        self._stamp = None
        self._note(
            f"approvals file {self.path} was unusable ({why}); kept as {aside.name}, starting with no saved approvals"
        )
        return []

    def _aside_name(self, tag: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(self.clock()))
        return free_aside_path(self.path, tag, stamp)

    def _note(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)
            log.warning("%s", message)

    def _write(self) -> None:
        """Write the saved entries atomically: a temp file in the same folder, then replace."""
        if self._newer is not None:
            raise ApprovalError(
                f"not saving approvals: {self.path} is from a newer Termwise (format "
                f"{self._newer}); update Termwise or move that file away"
            )
        body = {"version": FILE_VERSION, "entries": [e.to_yaml() for e in self._saved]}
        text = _HEADER + yaml.safe_dump(body, sort_keys=False, allow_unicode=True)
        try:
            atomic_write(self.path, text)
        except OSError as exc:
            raise ApprovalError(
                f"could not save approvals to {self.path}: {exc.strerror or exc}"
            ) from exc
        stat = self.path.stat()
        self._stamp = (stat.st_mtime_ns, stat.st_size)


def _same_target(a: ApprovalEntry, b: ApprovalEntry) -> bool:
    """A new answer for the same pattern and shell replaces the old one."""
    same_shell = a.shell == b.shell or (
        a.shell != "*" and b.shell != "*" and _family(a.shell) == _family(b.shell)
    )
    return a.pattern == b.pattern and same_shell


def _entry(raw: Any) -> ApprovalEntry | None:
    if not isinstance(raw, dict):
        return None
    pattern, shell, choice = raw.get("pattern"), raw.get("shell", "*"), raw.get("choice")
    if not isinstance(pattern, str) or not pattern.strip() or not isinstance(shell, str):
        return None
    if choice not in ("always", "deny"):
        return None
    return ApprovalEntry(normalize_command(pattern), shell, choice, str(raw.get("created", "")))
