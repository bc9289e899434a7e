"""Safety verdicts for shell commands: `classify(command, shell)` → safe, confirm or dangerous.

Rules are data (`resources/safety/*.yaml`); this package parses each shell's syntax,
follows commands that run other commands, and reports every rule that fired. Anything
unknown or unparseable is `confirm`, never `safe`; the most severe part wins.
"""

from __future__ import annotations

import re

from termwise.agent.base.verdict import Verdict
from termwise.agent.safety.model import Family

__all__ = ["classify", "family_of"]

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_FAMILIES: dict[str, Family] = {
    "bash": "posix",
    "zsh": "posix",
    "sh": "posix",
    "dash": "posix",
    "ksh": "posix",
    "fish": "posix",
    "wsl": "posix",
    "posix": "posix",
    "pwsh": "powershell",
    "powershell": "powershell",
    "cmd": "cmd",
}


def family_of(shell: str) -> Family | None:
    """The syntax family of a shell name (`pwsh.exe` → powershell); None when unknown."""
    name = shell.strip().lower().replace("\\", "/").rsplit("/", 1)[-1]
    if name.endswith(".exe"):
        name = name[:-4]
    return _FAMILIES.get(name)


def classify(command: str, shell: str = "bash") -> Verdict:
    """Classify `command` as typed into `shell`; reasons name the rules behind the level."""
    from termwise.agent.safety.engine import Analyzer, verdict_level

    analyzer = Analyzer()
    family = family_of(shell)
    if family is None:
        analyzer.add(
            "confirm", "unknown-shell", f"{shell!r} is not a shell Termwise knows; read as bash"
        )
        family = "posix"
    text = command.replace("\r\n", "\n").replace("\r", "\n")  # typed into a terminal, CR is Enter
    if _CONTROL.search(text):
        # Ctrl+U, backspace, escape sequences … edit the line in a terminal: what runs is
        # unknowable, so every piece between them is checked as a command of its own.
        analyzer.add("confirm", "control-characters", "contains terminal control characters")
        text = _CONTROL.sub("\n", text)
    try:
        analyzer.text(text, family)
    except Exception:  # a checker bug must fail closed, never let the command pass unjudged
        import logging  # not at the top: `termwise check` starts faster without it

        logging.getLogger(__name__).exception("the safety check failed on a command")
        analyzer.add("dangerous", "check-failed", "the safety check failed on this command")
    if not analyzer.findings:  # nothing recognised at all: never silently safe
        analyzer.add("confirm", "unrecognised", "nothing in this command could be checked")
    level = verdict_level(analyzer.findings)
    reasons: list[str] = []
    for finding in analyzer.findings:
        if finding.level == level and finding.reason not in reasons:
            reasons.append(finding.reason)
    return Verdict(level=level, reasons=tuple(reasons))
