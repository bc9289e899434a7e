"""Commands a tool's message tells you to run (`Please run: gh auth login`, `run "aws configure"`)."""

from __future__ import annotations

import re

from termwise.agent.rules import data
from termwise.agent.rules.engine import Case, rule

_PATTERNS = (
    r"(?<![\w-])(?:[Pp]lease run|[Yy]ou (?:can|should|may need to|need to|must) run|[Tt]ry running|by running|[Cc]reate it with|[Tt]o fix(?: this)?, run|have you run|[Rr]un|[Tt]ry|[Ee]xecute|[Uu]se|[Tt]ype)[: ]+[`\"'‘]([a-z][\w.-]*(?: [^`\"'’\n]{1,80})?)[`\"'’]",
    r"(?:[Pp]lease run|[Tt]o fix(?: this)?, run|[Rr]un the following(?: command)?|by running|[Tt]ry)[^\n]{0,200}:[ \t]*\n(?:[ \t]*\n)?[ \t]*\$?[ \t]*([a-z][\w.-]*(?: [^\n]{1,80})?)[ \t]*$",
    r"^[ \t]*\$ ([a-z][\w.-]* [^\n]{1,80})[ \t]*$",
    r"\b(?:[Rr]un|[Ee]xecute|[Uu]se):[ \t]*\n(?:[ \t]*\n)?[ \t]*\$?[ \t]*([a-z][\w./-]*(?: [^\n<]{1,80})?)[ \t]*$",
    r"[Pp]lease run:?[ \t]+([a-z][\w.-]* [\w .=/-]{1,60}?)[ \t]*$",
)
# Phrases of help text, not fixes.
_SKIP = ("--help", " help", "-h", "--usage", "--verbose", "--version", "--debug")


@rule("printed_command", "The command the error message says to run.", priority=35)
def printed_command(c: Case) -> list[str]:
    if c.exit_code == 0 or not c.output or c.is_app("git"):
        return []  # git's own hints have their own rules
    found: list[str] = []
    for p in _PATTERNS:
        for m in re.finditer(p, c.output, re.MULTILINE):
            cmd = re.sub(r"^npm (?:ERR!|error)\s+", "", m.group(1).strip().rstrip(".:"))
            cmd = cmd.split("  #")[0].strip()
            if cmd.endswith(_SKIP) or "<" in cmd or cmd == c.script or len(cmd.split()) > 12:
                continue
            if " " not in cmd and not _known_program(c, cmd):
                continue  # `resource type "pos"`: a quoted word, not a command
            found.append(cmd)
    return list(dict.fromkeys(found))[:2]


def _known_program(c: Case, name: str) -> bool:
    return (
        name == c.app
        or name in data.known_command_set(c.family)
        or name in data.tools()
        or name in data.tool_aliases()
    )
