"""The parsed-command model that every shell parser produces and the rules engine reads."""

from __future__ import annotations

from typing import Literal, NamedTuple

from termwise.agent.base.record import Record

Family = Literal["posix", "powershell", "cmd"]
Level = Literal["safe", "confirm", "dangerous"]

SEVERITY: dict[str, int] = {"safe": 0, "confirm": 1, "dangerous": 2}


class Redirect(NamedTuple):
    """One redirection: `op` as written (`>`, `>>`, `<`, `&>`, `>|` …) and its target."""

    op: str
    target: str
    dynamic: bool = False


class Command(Record):
    """A simple command: words after quote removal, `dynamic[i]` when word i holds an expansion.

    A compound statement (subshell, group, loop) is a Command without words whose
    `nested` scripts hold what it runs, so redirections on it are still checked.
    """

    __slots__ = ("assignments", "dynamic", "nested", "redirects", "splat", "stdin_text", "words")

    def __init__(
        self,
        words: list[str] | None = None,
        dynamic: list[bool] | None = None,
        assignments: list[str] | None = None,
        redirects: list[Redirect] | None = None,
        nested: list[Script] | None = None,
        stdin_text: str | None = None,  # a here-document or here-string fed to the command
        splat: list[str] | None = None,  # PowerShell: the parameters a table assigned here passes
    ) -> None:
        self.words = [] if words is None else words
        self.dynamic = [] if dynamic is None else dynamic
        self.assignments = [] if assignments is None else assignments
        self.redirects = [] if redirects is None else redirects
        self.nested = [] if nested is None else nested
        self.stdin_text = stdin_text
        self.splat = splat

    def add_word(self, text: str, dynamic: bool = False) -> None:
        self.words.append(text)
        self.dynamic.append(dynamic)

    def block_ends(self) -> list[Command]:
        """The last command of each pipeline in the blocks this one holds: what a group
        such as `(echo a; echo b)` writes comes from those."""
        return [pipeline[-1] for script in self.nested for pipeline in script.pipelines if pipeline]


class Script(Record):
    """Pipelines in the order they would run; `problems` are parse failures worth a confirm."""

    __slots__ = ("findings", "pipelines", "problems")

    def __init__(
        self,
        pipelines: list[list[Command]] | None = None,
        problems: list[str] | None = None,
        findings: list[Finding] | None = None,  # found while parsing (fork bombs)
    ) -> None:
        self.pipelines = [] if pipelines is None else pipelines
        self.problems = [] if problems is None else problems
        self.findings = [] if findings is None else findings


class Finding(NamedTuple):
    """A rule that fired: its level, its name and a sentence for the user."""

    level: Level
    rule: str
    message: str

    @property
    def reason(self) -> str:
        return f"{self.rule}: {self.message}"
