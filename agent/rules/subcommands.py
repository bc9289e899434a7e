"""Misspelled subcommands of common CLIs: the tool's own hint first, else the nearest known one."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from termwise.agent.rules import data, fuzzy
from termwise.agent.rules.engine import Case, rule


def _replace(c: Case, wrong: str, names: list[str]) -> list[str]:
    return [c.replace_arg(wrong, n) for n in dict.fromkeys(names) if n and n != wrong][:3]


def _nearest(c: Case, wrong: str, app: str | None = None) -> list[str]:
    return fuzzy.closest(wrong, data.subcommands(app or c.app), n=2, limit=3)


@rule("cobra_did_you_mean", "The command the tool suggests (kubectl, gh, helm, hugo …).", 6)
def cobra(c: Case) -> list[str]:
    m = c.search(r'unknown command "([^"]+)" for "([^"]+)"')
    if not m:
        return []
    wrong = m.group(1)
    hints = c.block_after(r"Did you mean (?:this|one of these)\?")
    app = m.group(2).split()[0]
    return _replace(c, wrong, hints or _nearest(c, wrong, app))


@rule("cargo_no_such_command", "The cargo command with a similar name.", priority=6)
def cargo(c: Case) -> list[str]:
    m = c.search(r"no such (?:sub)?command: [`']?([^`'\s]+)")
    if not c.is_app("cargo") or not m:
        return []
    hints = re.findall(
        r"(?:Did you mean|a command with a similar name exists:) [`']([^`']+)[`']", c.output
    )
    if not hints and "cargo install" in c.output:
        return [f"cargo install cargo-{m.group(1)}"]
    return _replace(c, m.group(1), hints or _nearest(c, m.group(1)))


@rule("go_unknown_command", "The nearest go command.", priority=6)
def go(c: Case) -> list[str]:
    m = c.search(r"^go:? (\S+): unknown command") or c.search(r'^go: unknown subcommand "([^"]+)"')
    if not c.is_app("go") or not m:
        return []
    return _replace(c, m.group(1), _nearest(c, m.group(1)))


@rule("dotnet_misspelled", "The nearest built-in dotnet command.", priority=6)
def dotnet(c: Case) -> list[str]:
    if (
        not c.is_app("dotnet")
        or not c.args
        or "misspelled a built-in dotnet command" not in c.output
    ):
        return []
    wrong = c.args[0]
    if wrong.startswith("-") or "." in wrong:
        return []  # an option or a program file (`dotnet app.dll`), not a command
    # Typos in proportion to the word: `ef` is the EF Core tool, not a slip of `new`.
    return _replace(c, wrong, fuzzy.closest(wrong, data.subcommands("dotnet"), n=2))


@rule("az_most_similar", "The Azure CLI command with the most similar name.", priority=6)
def az(c: Case) -> list[str]:
    if not c.is_app("az"):
        return []
    m = c.search(
        r"'([^']+)' (?:is not in the '[^']+' command group|is misspelled or not recognized)"
    )
    if not m:
        return []
    tail = c.output[m.end() :]
    found = re.search(
        r"most similar choices? to '[^']+'(?: is)?:?\s*\n((?:[ \t]+\S+[^\n]*\n?)+)", tail
    )
    names = [ln.split()[0] for ln in found.group(1).splitlines() if ln.strip()] if found else []
    return _replace(c, m.group(1), names or _nearest(c, m.group(1)))


@rule("aws_invalid_choice", "The AWS CLI choice it suggests.", priority=6)
def aws(c: Case) -> list[str]:
    m = c.search(r"Invalid choice: '([^']+)', maybe you meant:")
    if not c.is_app("aws") or not m:
        return []
    return _replace(c, m.group(1), re.findall(r"^[ \t]*\*\s*(\S+)", c.output, re.M))


@rule("pip_unknown_command", "The pip command it suggests.", priority=6)
def pip(c: Case) -> list[str]:
    m = c.search(r'unknown command "([^"]+)"(?: - maybe you meant "([^"]+)")?')
    if not m or not (c.is_app("pip", "pip3") or "-m pip" in c.script):
        return []
    synonyms = {"remove": "uninstall", "delete": "uninstall", "rm": "uninstall", "add": "install"}
    wrong = m.group(1)
    if m.group(2):
        names = [m.group(2)]
    else:
        names = [synonyms[wrong]] if wrong in synonyms else _nearest(c, wrong, "pip")
    return _replace(c, wrong, names)


@rule("brew_unknown_command", "The nearest brew command.", priority=6)
def brew(c: Case) -> list[str]:
    m = c.search(r"Error: Unknown command: (\S+)")
    if not c.is_app("brew") or not m:
        return []
    return _replace(c, m.group(1), _nearest(c, m.group(1)))


@rule("conda_did_you_mean", "The conda command it suggests.", priority=6)
def conda(c: Case) -> list[str]:
    if not c.is_app("conda", "mamba"):
        return []
    m = c.search(r"No command '\S+ ([^']+)'\.?\s*\n?\s*Did you mean '\S+ ([^']+)'")
    if m:
        return _replace(c, m.group(1), [m.group(2)])
    return []


@rule("terraform_did_you_mean", "The terraform command it suggests.", priority=6)
def terraform(c: Case) -> list[str]:
    m = c.search(r'Terraform has no command named "([^"]+)"(?:\. Did you mean "([^"]+)"\?)?')
    if not c.is_app("terraform") or not m:
        return []
    return _replace(c, m.group(1), [m.group(2)] if m.group(2) else _nearest(c, m.group(1)))


@rule("systemctl_unknown_verb", "The nearest systemctl verb (or the words in the right order).", 6)
def systemctl(c: Case) -> list[str]:
    m = c.search(r"Unknown (?:operation|command verb) '?([^'.\s,]+)'?")
    if not c.is_app("systemctl") or not m:
        return []
    wrong = m.group(1)
    hint = c.search(r"did you mean '([^']+)'\?")
    verbs = data.subcommands("systemctl")
    args = [a for a in c.args if not a.startswith("-")]
    if len(args) >= 2 and args[0] == wrong and args[1] in verbs:
        return [c.script.replace(f"{args[0]} {args[1]}", f"{args[1]} {args[0]}", 1)]
    return _replace(c, wrong, [hint.group(1)] if hint else _nearest(c, wrong))


@rule("apt_invalid_operation", "The nearest apt operation.", priority=6)
def apt(c: Case) -> list[str]:
    m = c.search(r"E: Invalid operation (\S+)") or c.search(
        r"E: Command line option '?(\S+?)'? [^\n]{0,200}?is not understood"
    )
    if not c.is_app("apt", "apt-get") or not m:
        return []
    return _replace(c, m.group(1), _nearest(c, m.group(1)))


@rule("argparse_invalid_choice", "The nearest of the choices the tool lists.", priority=9)
def argparse_choice(c: Case) -> list[str]:
    m = c.search(r"invalid choice: '([^']+)' \(choose from ([^)]+)\)")
    if not m:
        return []
    choices = re.findall(r"'([^']+)'", m.group(2)) or [x.strip() for x in m.group(2).split(",")]
    return _replace(c, m.group(1), fuzzy.closest(m.group(1), choices, n=2, limit=3))


@rule("printed_did_you_mean", "The command the tool says you meant.", priority=30)
def printed(c: Case) -> list[str]:
    """Generic: `Did you mean "x"?`, `Did you mean this?` + an indented line, `maybe you meant`."""
    if not c.app or c.app == "git":
        return []
    hints = re.findall(
        r"(?:[Dd]id you mean|maybe you meant|[Pp]erhaps you meant)[: ]+[\"'`]([^\"'`]+)[\"'`]",
        c.output,
    )
    hints += c.block_after(r"Did you mean (?:this|one of these)\?")
    hints += [
        h
        for h in re.findall(r"(?:[Dd]id you mean|[Pp]erhaps you meant) ([\w:.-]+)\?", c.output)
        if h not in ("this", "these", "one", "that")
    ]
    if not hints:
        return []
    out: list[str] = []
    words = [a for a in c.args if not a.startswith("-")]
    for h in hints[:3]:
        if h.split()[0] == c.app:
            out.append(h)
        elif words:
            wrong = fuzzy.closest(h, words, n=1, limit=4)
            if wrong:
                out.append(c.replace_word(wrong[0], h))
    return out


@rule("dnf_no_such_command", "The nearest dnf/yum command.", priority=6)
def dnf(c: Case) -> list[str]:
    m = c.search(r"No such command: (\S+?)\.")
    if not c.is_app("dnf", "yum") or not m:
        return []
    synonyms = {"uninstall": "remove", "purge": "remove", "add": "install", "find": "search"}
    wrong = m.group(1)
    return _replace(c, wrong, [synonyms[wrong]] if wrong in synonyms else _nearest(c, wrong, "dnf"))


@rule("gem_unknown_command", "The nearest gem command.", priority=6)
def gem(c: Case) -> list[str]:
    m = c.search(r"Unknown command (\S+)")
    if not c.is_app("gem") or not m:
        return []
    subs = [
        "build",
        "cert",
        "check",
        "cleanup",
        "contents",
        "dependency",
        "environment",
        "fetch",
        "help",
        "info",
        "install",
        "list",
        "lock",
        "open",
        "outdated",
        "owner",
        "pristine",
        "push",
        "query",
        "rdoc",
        "search",
        "server",
        "signin",
        "signout",
        "sources",
        "specification",
        "uninstall",
        "unpack",
        "update",
        "which",
        "yank",
    ]
    return _replace(c, m.group(1), fuzzy.closest(m.group(1), subs, n=2, limit=3))


@rule("version_manager_command", "The nearest pyenv/rbenv/nodenv command.", priority=6)
def xenv(c: Case) -> list[str]:
    m = c.search(r"(?:pyenv|rbenv|nodenv|goenv): no such command [`']([^'`]+)'")
    if not m:
        return []
    subs = [
        "commands",
        "local",
        "global",
        "shell",
        "install",
        "uninstall",
        "rehash",
        "version",
        "versions",
        "which",
        "whence",
        "exec",
        "root",
        "prefix",
        "init",
        "virtualenv",
        "virtualenvs",
        "activate",
        "deactivate",
        "update",
    ]
    return _replace(c, m.group(1), fuzzy.closest(m.group(1), subs, n=2, limit=3))


@rule("ambiguous_command", "The tool lists what the abbreviation could mean.", priority=8)
def ambiguous(c: Case) -> list[str]:
    m = c.search(r"ambiguous command:? '?([\w-]+)'?, could be: ([^\n]+)")
    if not m:
        return []
    wrong = m.group(1)
    names = [w.strip(" .") for w in m.group(2).split(",")]
    # The closest completions first: the shortest name that extends the abbreviation.
    names.sort(key=lambda n: (SequenceMatcher(None, wrong, n).ratio(), n), reverse=True)
    return _replace(c, wrong, names)


@rule("usage_choices", "The nearest of the subcommands the usage line lists.", priority=12)
def usage_choices(c: Case) -> list[str]:
    # `usage: x [a|b|c]`, and init scripts' `Usage: /etc/init.d/nginx {start|stop|…}`.
    m = c.search(r"^\s*[Uu]sage: ([\w ./-]*?)\s?[\[{]([\w-]+(?:\|[\w-]+){2,})[\]}]")
    if not m:
        return []
    choices = m.group(2).split("|")
    prefix = set(m.group(1).split())
    words = [a for a in c.args if not a.startswith("-") and a not in prefix]
    for w in words:
        if w not in choices:
            best = fuzzy.closest(w, choices, n=2, limit=3)
            if best:
                return _replace(c, w, best)
    return []
