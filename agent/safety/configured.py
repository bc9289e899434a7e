"""Commands handed over as settings: git's `-c key=value`, its aliases and `git config`
values that git runs, and variables such as GIT_SSH_COMMAND or PAGER that programs run.

`git -c core.pager='rm -rf ~' log` runs `rm -rf ~`; `git -c alias.x='reset --hard' x` is
`git reset --hard`. The command in the value is judged as a line of its own.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from termwise.agent.safety.engine import Analyzer

# Keys whose value git runs as a shell command (or a program) at some point.
_COMMAND_KEY = re.compile(
    r"(?i)^(?:core\.(?:pager|editor|sshcommand|askpass|fsmonitor|gitproxy)|sequence\.editor"
    r"|pager\.[^=]+|diff\.external|diff\.[^=]+\.(?:command|textconv)|merge\.[^=]+\.driver"
    r"|filter\.[^=]+\.(?:clean|smudge|process)|credential(?:\.[^=]+)?\.helper"
    r"|gpg(?:\.[^=.]+)?\.program|remote\.[^=]+\.(?:uploadpack|receivepack|proxy)"
    r"|uploadpack\.packobjectshook|(?:diff|merge)tool\.[^=]+\.cmd|sendemail\.\w*cmd"
    r"|browser\.[^=]+\.cmd|man\.[^=]+\.cmd|instaweb\.httpd)$"
)
_HOOKS_KEY = re.compile(r"(?i)^core\.hookspath$")
_ALIAS_KEY = re.compile(r"(?i)^alias\.(.+)$")
_BOOLEANS = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
# git's options before the subcommand that take the next word as their value.
_GIT_VALUED = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"}
)
_CONFIG_FLAGS_VALUED = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment"})
# Variables whose value a program runs as a command line.
COMMAND_VARIABLES = frozenset(
    {
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_PAGER",
        "PAGER",
        "MANPAGER",
        "SYSTEMD_PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "EDITOR",
        "VISUAL",
        "GIT_EXTERNAL_DIFF",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "LESSOPEN",
        "LESSCLOSE",
        "BROWSER",
        "PROMPT_COMMAND",
        "FZF_DEFAULT_COMMAND",
    }
)


def variable(analyzer: Analyzer, assignment: str, value: str | None, depth: int) -> None:
    """`GIT_SSH_COMMAND='rm -rf ~' git fetch` (or PowerShell's `$env:GIT_SSH_COMMAND = '…'`,
    whose value comes separately): the value of a command variable is judged."""
    if assignment[:5].lower() == "$env:":
        name = assignment[5:].upper()
    else:
        name, _, value = assignment.partition("=")
    if name.rstrip("+") in COMMAND_VARIABLES and value:
        _judge_value(analyzer, value.lstrip("|"), f"{name} makes programs run", depth)


def git(analyzer: Analyzer, args: list[str], depth: int) -> list[str] | None:
    """Judge the commands git's settings on this line run; the git words to judge in place
    of `args` when the subcommand is an alias for other git words given with -c (else
    None: git's own rules judge `args` as they are)."""
    settings: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token in _GIT_VALUED:
            if token == "-c" and i + 1 < len(args):
                settings.append(_pair(args[i + 1]))
            i += 2
            continue
        if token.startswith("-c") and len(token) > 2 and not token.startswith("--"):
            settings.append(_pair(token[2:]))
        elif token.startswith("--config-env="):
            settings.append((token.split("=", 2)[1], "$" + token.split("=", 2)[-1]))
        elif not token.startswith("-"):
            break
        i += 1
    for key, value in settings:
        if not _ALIAS_KEY.match(key):  # a -c alias lives for this command: judged if used
            _setting(analyzer, key, value, depth)
    if i >= len(args):
        return None
    sub, rest = args[i], args[i + 1 :]
    if sub == "config":
        _config_write(analyzer, rest, depth)
        return None
    alias = next(
        (v for k, v in reversed(settings) if (m := _ALIAS_KEY.match(k)) and m.group(1) == sub),
        None,
    )
    if alias is None:
        return None
    if alias.startswith("!"):
        line = " ".join([alias[1:], *(shlex.quote(w) for w in rest)])
        analyzer.add("confirm", "git-alias", f"git alias {sub} runs a shell command")
        analyzer.text_for(line, "posix", depth + 1, f"git alias {sub} runs `{alias[1:]}`")
        return None
    try:
        words = shlex.split(alias)
    except ValueError:
        analyzer.add("confirm", "git-alias", f"git alias {sub} could not be read: {alias}")
        return None
    return ["git", *args[:i], *words, *rest] if words else None


def _pair(token: str) -> tuple[str, str]:
    key, _, value = token.partition("=")
    return key, value


def _setting(analyzer: Analyzer, key: str, value: str, depth: int) -> None:
    """One `key=value` git will use: a command it runs, or a folder of hooks it runs."""
    if _HOOKS_KEY.match(key):
        analyzer.add("confirm", "git-hooks-path", f"git runs the hooks in {value or 'a folder'}")
    elif _COMMAND_KEY.match(key):
        if key.lower() == "core.fsmonitor" and value.lower() in _BOOLEANS:
            return
        _judge_value(analyzer, value, f"git's {key} setting runs", depth)
    elif (m := _ALIAS_KEY.match(key)) and value.startswith("!"):
        analyzer.add("confirm", "git-alias", f"git alias {m.group(1)} runs a shell command")
        analyzer.text_for(
            value[1:], "posix", depth + 1, f"git alias {m.group(1)} runs `{value[1:]}`"
        )


def _config_write(analyzer: Analyzer, args: list[str], depth: int) -> None:
    """`git config [--global] KEY VALUE` (or `git config set KEY VALUE`) storing a command
    git runs later: that command is judged now, since the next git command may run it."""
    words: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _CONFIG_FLAGS_VALUED:
            skip = True
        elif not arg.startswith("-"):
            words.append(arg)
    if words[:1] == ["set"]:
        words = words[1:]
    if len(words) >= 2:
        _setting(analyzer, words[0], words[1], depth)


def _judge_value(analyzer: Analyzer, value: str, says: str, depth: int) -> None:
    """The value is run as a command line: judged as one (`core.pager=cat` stays safe)."""
    if value.strip():
        analyzer.text_for(value, "posix", depth + 1, f"{says} `{value}`")
