"""The parsed-command model that every shell parser produces and the rules engine reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Family = Literal["posix", "powershell", "cmd"]
Level = Literal["safe", "confirm", "dangerous"]

SEVERITY: dict[str, int] = {"safe": 0, "confirm": 1, "dangerous": 2}


@dataclass
class Redirect:
    """One redirection: `op` as written (`>`, `>>`, `<`, `&>`, `>|` …) and its target."""

    op: str
    target: str
    dynamic: bool = False


@dataclass
class Command:
    """A simple command: words after quote removal, `dynamic[i]` when word i holds an expansion.

    A compound statement (subshell, group, loop) is a Command without words whose
    `nested` scripts hold what it runs, so redirections on it are still checked.
    """

    words: list[str] = field(default_factory=list)
    dynamic: list[bool] = field(default_factory=list)
    assignments: list[str] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    nested: list[Script] = field(default_factory=list)
    stdin_text: str | None = None  # a here-document or here-string fed to the command

    def add_word(self, text: str, dynamic: bool = False) -> None:
        self.words.append(text)
        self.dynamic.append(dynamic)


@dataclass
class Script:
    """Pipelines in the order they would run; `problems` are parse failures worth a confirm."""

    pipelines: list[list[Command]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # found while parsing (fork bombs)


@dataclass(frozen=True)
class Finding:
    """A rule that fired: its level, its name and a sentence for the user."""

    level: Level
    rule: str
    message: str

    @property
    def reason(self) -> str:
        return f"{self.rule}: {self.message}"
