"""The rules engine: a registry of small named rules, run over one failed command and ranked."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from termwise.agent.base.types import MAX_SUGGESTIONS, Suggestion
from termwise.agent.rules import shell as sh

_log = logging.getLogger(__name__)

# What a rule yields: a command, (command, explanation) to override the rule's default
# explanation, or (command, explanation, caveats) for fixes with a risk worth stating.
Yielded = str | tuple[str, str] | tuple[str, str, str]
RuleFunc = Callable[["Case"], Iterable[Yielded]]


@dataclass(frozen=True)
class Rule:
    """One named rule; lower priority numbers are more specific and rank first."""

    name: str
    func: RuleFunc
    explanation: str
    priority: int
    on_success: bool = False  # also useful when the command exited 0 (a warning, not an error)


RULES: list[Rule] = []
_NAMES: set[str] = set()


def rule(
    name: str, explanation: str, priority: int = 50, on_success: bool = False
) -> Callable[[RuleFunc], RuleFunc]:
    """Register a rule function under `name` with a one-line default explanation."""

    def wrap(func: RuleFunc) -> RuleFunc:
        # The set keeps registering linear; the list is the truth (tests remove rules).
        if name in _NAMES and any(r.name == name for r in RULES):
            raise ValueError(f"duplicate rule name {name!r}")
        _NAMES.add(name)
        RULES.append(Rule(name, func, explanation, priority, on_success))
        return func

    return wrap


@dataclass
class Case:
    """A failed command as the rules see it: script, output, exit code and the shell it ran in."""

    script: str
    output: str
    exit_code: int | None = None
    shell_name: str = "bash"
    cwd: str | None = None
    memo: dict[str, object] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.script = self.script.strip()
        self.output = clean_output(self.output)
        self.shell_name = sh.normalize_shell(self.shell_name)
        self.family = sh.family(self.shell_name)

    # --- facts about the shell ---------------------------------------------------------
    @property
    def posix(self) -> bool:
        return self.family == "posix"

    @property
    def windows(self) -> bool:
        """True for PowerShell and cmd (the shells that mean Windows here)."""
        return self.family in ("powershell", "cmd")

    @property
    def powershell(self) -> bool:
        return self.family == "powershell"

    @property
    def cmd(self) -> bool:
        return self.family == "cmd"

    # --- the script --------------------------------------------------------------------
    @cached_property
    def segment(self) -> str:
        """The simple command of a chain (`a && b | c`) that most likely failed."""
        segments = sh.segments(self.script)
        if len(segments) < 2:
            return self.script
        for seg in reversed(segments):
            name = sh.program_name(sh.split(seg, self.family))
            if name and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", self.output, re.I):
                return seg
        return segments[-1]

    @cached_property
    def parts(self) -> list[str]:
        """Words of the failed simple command (see `segment`)."""
        return sh.split(self.segment, self.family)

    @cached_property
    def app(self) -> str:
        """The program the script ran, skipping `sudo`, env assignments and paths."""
        return sh.program_name(self.parts)

    @cached_property
    def args(self) -> list[str]:
        """Words after the program (and after any `sudo`/assignment prefix)."""
        return sh.after_program(self.parts)

    def is_app(self, *names: str) -> bool:
        return self.app in names

    @cached_property
    def lower(self) -> str:
        return self.output.lower()

    def has(self, *needles: str) -> bool:
        """True if any needle (lower-case) occurs in the output, case-insensitively."""
        low = self.lower
        return any(n in low for n in needles)

    def search(self, pattern: str, flags: int = re.MULTILINE) -> re.Match[str] | None:
        return re.search(pattern, self.output, flags)

    def findall(self, pattern: str, flags: int = re.MULTILINE) -> list[str]:
        return re.findall(pattern, self.output, flags)

    def block_after(self, header: str) -> list[str]:
        """The indented lines right after the first line matching `header` (hint lists)."""
        m = re.search(
            header + r"[^\n]*\n((?:[ \t]*(?:npm (?:ERR!|error))?[ \t]+\S[^\n]*(?:\n|$))+)",
            self.output,
        )
        if not m:
            return []
        lines = [
            re.sub(r"^\s*(?:npm (?:ERR!|error))?\s*", "", ln) for ln in m.group(1).splitlines()
        ]
        return [ln.split(" #")[0].strip() for ln in lines if ln.strip()]

    def replace_word(self, old: str, new: str) -> str:
        """The script with the first whole-word `old` replaced by `new`."""
        return sh.replace_word(self.script, old, new)

    def replace_arg(self, old: str, new: str) -> str:
        """The script with the first whole-word `old` after the program name replaced.

        A word standing on its own wins over the same text inside a quoted argument
        (`git merge -m "test local" local` changes the last word, not the message).
        """
        m = re.search(
            rf"(?<![\w.\-/\\]){re.escape(self.app)}(?:\.exe)?(?![\w\-])", self.script, re.I
        )
        if not m:
            return self.replace_word(old, new)
        head, tail = self.script[: m.end()], self.script[m.end() :]
        for w in re.finditer(r"""(?:[^\s'"]+|'[^']*'|"[^"]*")+""", tail):
            if w.group(0) == old:
                return head + tail[: w.start()] + new + tail[w.end() :]
        return head + sh.replace_word(tail, old, new)

    def then(self, *commands: str) -> str:
        """Commands joined so each runs only if the previous one succeeded, in this shell."""
        return sh.and_then(self.shell_name, *commands)

    def sudo(self, command: str | None = None) -> str:
        """`command` (default: the script) run with administrator rights in this shell."""
        return sh.elevate(self.shell_name, self.script if command is None else command)


_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
MAX_OUTPUT = 64_000  # characters kept from huge outputs: errors live at the head and the tail


def clean_output(text: str) -> str:
    """Output as the rules read it: no colours, no carriage-return rewrites, bounded in size."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        # A carriage return inside a quoted name (`'bash\r'`) is a CRLF script, not a rewrite.
        text = re.sub(r"\r(?=['’\"`:])", "^M", text)
        text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))
    if len(text) > MAX_OUTPUT:
        text = text[: MAX_OUTPUT // 4] + "\n...\n" + text[-(MAX_OUTPUT * 3 // 4) :]
    return text


def _run(case: Case) -> Iterator[tuple[int, int, int, Suggestion]]:
    # POSIX exit codes are reliable: a command that exited 0 did not fail, whatever it printed
    # (not so for pipelines, whose status is the last stage's, nor for PowerShell cmdlets).
    succeeded = case.exit_code == 0 and case.posix and len(sh.segments(case.script)) == 1
    for order, r in enumerate(RULES):
        if succeeded and not r.on_success:
            continue
        try:
            produced = list(r.func(case))
        except Exception as exc:  # a broken rule must not hide the others' answers
            _log.debug("rule %s failed: %s", r.name, exc)
            continue
        for i, item in enumerate(produced):
            parts = item if isinstance(item, tuple) else (item,)
            command = parts[0].strip()
            explanation = parts[1] if len(parts) > 1 else r.explanation
            caveats = parts[2] if len(parts) > 2 else ""
            if command:
                suggestion = Suggestion(command, explanation, caveats, source="rules", rule=r.name)
                yield (r.priority, order, i, suggestion)


def run_rules(case: Case, limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
    """Every rule's suggestions for `case`, most specific first, identical commands once."""
    if not case.script and not case.output.strip():
        return []
    ranked = [s for *_, s in sorted(_run(case), key=lambda t: t[:3])]
    seen: set[str] = set()
    out: list[Suggestion] = []
    original = " ".join(case.script.split(" "))
    for s in _with_bare_fixes(case, ranked):
        key = " ".join(s.command.split(" "))
        if key in seen or key == original:
            continue
        seen.add(key)
        out.append(s)
        if len(out) >= limit:
            break
    return out


def _with_bare_fixes(case: Case, ranked: list[Suggestion]) -> Iterator[Suggestion]:
    """Each `fix && <the command again>` followed, a little later, by the bare `fix`.

    The bare fix (for running it alone) waits behind the next two suggestions: a different
    way to fix the failure is worth more than the same fix without the retry.
    """
    tail = sh.and_then(case.shell_name, "\0", case.script)[1:]  # e.g. " && git push"
    seen_fix = False
    pending: Suggestion | None = None
    wait = 0
    for s in ranked:
        yield s
        if pending is not None:
            wait -= 1
            if wait <= 0:
                yield pending
                pending = None
        if not seen_fix and case.script and s.command.endswith(tail):
            fix = s.command[: -len(tail)].strip()
            if fix and fix != case.script:
                seen_fix = True  # once: the top fix matters, the rest would crowd out others
                pending = Suggestion(fix, s.explanation, s.caveats, source="rules", rule=s.rule)
                wait = 2
    if pending is not None:
        yield pending
