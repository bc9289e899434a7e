"""The shape of a rules table case and the helper that checks one."""

from __future__ import annotations

from dataclasses import dataclass

from termwise.agent.rules import suggest_fixes


@dataclass(frozen=True)
class T:
    """A failed command and the fix the rules must offer (first, unless `first=False`)."""

    script: str
    output: str
    expected: str
    shell: str = "bash"
    exit_code: int | None = 1
    first: bool = True
    cwd: str | None = None

    def __str__(self) -> str:
        return f"[{self.shell}] {self.script}"


def check(t: T) -> None:
    got = suggest_fixes(t.script, t.output, t.exit_code, t.shell, cwd=t.cwd)
    commands = [s.command for s in got]
    assert len(commands) <= 5, commands
    assert len(set(commands)) == len(commands), f"duplicates: {commands}"
    assert all(s.source == "rules" and s.rule and s.explanation for s in got)
    assert all("\n" not in s.explanation for s in got)
    if t.first:
        assert commands and commands[0] == t.expected, (
            f"{t}: wanted first {t.expected!r}, got {commands}"
        )
    else:
        assert t.expected in commands, f"{t}: wanted {t.expected!r} among {commands}"


def ids(cases: list[T]) -> list[str]:
    return [str(c)[:60] for c in cases]
