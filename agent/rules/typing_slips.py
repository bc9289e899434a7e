"""Slips of the keyboard and of copy-paste: prompt characters, missing spaces, doubled words,
words zsh took for file patterns."""

from __future__ import annotations

import re

from termwise.agent.rules import data
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.not_found import missing_command


@rule("pasted_prompt", "The prompt character was pasted along with the command.", priority=2)
def pasted_prompt(c: Case) -> list[str]:
    m = re.match(r"^[ \t]*(?:(?:\$|>|#|PS [^>]*>|[A-Z]:\\[^>]*>)\s+)+(\S.*)$", c.script)
    if not m:
        return []
    if not (missing_command(c) or c.has("not recognized", "command not found", "unexpected token")):
        return []
    return [m.group(1)]


@rule(
    "non_breaking_space", "The command contains a non-breaking space (from a web page).", priority=2
)
def nbsp(c: Case) -> list[str]:
    if "\u00a0" not in c.script:
        return []
    return [c.script.replace("\u00a0", " ")]


_APPS = (
    "git",
    "npm",
    "pip",
    "docker",
    "kubectl",
    "cargo",
    "go",
    "yarn",
    "apt",
    "brew",
    "dotnet",
    "conda",
    "pnpm",
    "helm",
)


@rule("missing_space", "A space is missing between the command and its subcommand.", priority=9)
def missing_space(c: Case) -> list[str]:
    name = missing_command(c)
    if not name:
        return []
    for app in _APPS:
        for sep in ("", "-"):
            prefix = app + sep
            if name.startswith(prefix) and len(name) > len(prefix):
                sub = name[len(prefix) :]
                if sub in data.subcommands(app) or (
                    app == "git"
                    and sub
                    in (
                        "status",
                        "push",
                        "pull",
                        "commit",
                        "add",
                        "log",
                        "diff",
                        "checkout",
                        "clone",
                    )
                ):
                    return [c.replace_word(name, f"{app} {sub}")]
    return []


@rule("doubled_command", "The command name was typed twice.", priority=3)
def doubled(c: Case) -> list[str]:
    m = re.match(r"^[ \t]*(\S+)\s+\1(\s+.*)?$", c.script)
    if not m or m.group(1) in ("echo", "yes", "sudo", "time", "printf", "seq"):
        return []
    if c.exit_code == 0:
        return []
    return [m.group(1) + (m.group(2) or "")]


@rule("run_local_file", "The program is in this folder: run it with its path.", priority=11)
def local_file(c: Case) -> list[str]:
    from termwise.agent.rules import env

    name = missing_command(c)
    if not name or "/" in name or "\\" in name or not c.cwd:
        return []
    base = env.base_dir(c.cwd)
    if base is None or name not in env.listing(base):
        return []
    return [c.replace_word(name, (".\\" if c.windows else "./") + name)]


@rule("windows_habit_on_posix", "The POSIX command for this Windows habit.", priority=8)
def windows_habit(c: Case) -> list[str]:
    name = missing_command(c)
    if not name or not c.posix:
        return []
    table = data.posix_equivalents()
    key = next((k for k in table if k.lower() == name.lower()), None)
    if not key:
        return []
    words = [w for w in c.args if not re.fullmatch(r"/[A-Za-z?]{1,3}", w)]  # drop /s /q /f …
    rest = " ".join(w for w in words if not w.startswith("-"))
    pid = next((w for w in words if w.isdigit()), "")
    out = table[key].format(args=rest, pid=pid).strip()
    if "{pid}" in table[key] and not pid:
        return []
    return [out]


# Programs whose arguments are seldom file names: a zsh glob error there means the
# word was meant literally (`pip install 'x[extra]'`, `curl 'https://…?a=1'`, `HEAD^`).
_LITERAL_ARGS = frozenset(
    "pip pip3 uv poetry pipx git npm yarn pnpm curl wget http brew conda".split()
)


@rule("zsh_glob_quote", "zsh read the word as a file pattern: quote it.", priority=4)
def zsh_glob(c: Case) -> list[str]:
    m = c.search(r"^zsh: no matches found: (.+)$")
    if not m or c.shell_name != "zsh":
        return []
    word = m.group(1).strip()
    if word not in c.script or "'" in word:
        return []
    if not (set(word) & set("[]^#~?=<>") or c.app in _LITERAL_ARGS):
        return []  # `ls *.foo`: there really are no such files
    return [c.script.replace(word, f"'{word}'", 1)]
