"""Command not found: the shell's own hints, famous typos, nearest command, install the tool."""

from __future__ import annotations

import re
import sys

from termwise.agent.rules import data, env, fuzzy, translate
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.install import install_commands, tool_entry

# How each shell reports a missing command; group 1 is the name.
_NOT_FOUND = [
    r"command not found: ([^\s'\"]+)",
    r"^(?:[-\w/.]*(?:bash|sh|ksh)(?:\.exe)?: )?(?:line \d+: )?([^\s:'\"]+): command not found",
    r"^[^\s:]+: line \d+: ([^\s:'\"]+): command not found",
    r"^make(?:\[\d+\])?: ([\w.+-]+): (?:Command not found|No such file or directory)",
    r"^(?:[-\w/.]*sh): \d+: ([^\s:]+): (?:not found|command not found)",
    r"^fish: Unknown command:? '?([^\s']+)'?",
    r"The term '([^']+)' is not recognized as (?:the|a) name of a cmdlet",
    r"^'([^']+)' is not recognized as an internal or external command",
    r"^Command '([^']+)' not found",
    r"^No command '([^']+)' found",
    r"The program '?([\w.+-]+)'? is (?:currently )?not (?:installed|in your PATH)",
    r"^(?:[-\w/.]*env): [‘'`]?([^\s'’:]+)[’']?: No such file or directory",
    r"^(?:ksh|mksh|dash): ([^\s:]+): not found",
    r"^sudo: ([^\s:]+): command not found",
]
_NOT_FOUND_RE = [re.compile(p, re.MULTILINE) for p in _NOT_FOUND]


def missing_command(case: Case) -> str | None:
    """The command name the shell could not find, or None when this is not such an error."""
    if "missing" in case.memo:
        return case.memo["missing"]  # type: ignore[return-value]
    name: str | None = None
    out = case.output
    if (
        "not found" in out
        or "not recognized" in out
        or "Unknown command" in out
        or "not installed" in out
        or "not in your PATH" in out
        or "No such file" in out
        or "Command not found" in out
    ):
        for rx in _NOT_FOUND_RE:
            m = rx.search(out)
            if m:
                name = m.group(1)
                break
        if name is None and case.parts:
            # Bare `vom: not found` (busybox, some sh): only when it names the program run.
            first = case.parts[0]
            if re.search(rf"^{re.escape(first)}: not found\s*$", out, re.M):
                name = first
    silent = not out.strip() and case.parts
    if name is None and silent and case.exit_code in (127, 9009) and case.family != "powershell":
        name = case.parts[0]  # 127 (POSIX) and 9009 (cmd) mean "command not found", even silently
    elif name is None and silent and case.exit_code is None and case.posix:
        # No output and no exit code recorded: a first word that is neither on PATH nor a
        # shell builtin cannot have run.
        first = case.parts[0]
        if (
            re.fullmatch(r"[^\s/=$`'\"]+", first)
            and first not in env.path_program_set()
            and first not in data.known_command_set("posix")
        ):
            name = first
    case.memo["missing"] = name
    return name


def typed_word(case: Case, name: str) -> str | None:
    """The word in the script that is the missing command, if the user typed it."""
    for w in case.parts:
        if w == name or re.split(r"[\\/]", w)[-1] == name:
            return w
    if case.windows:
        for w in case.parts:
            if w.lower() == name.lower():
                return w
    return None


@rule("cnf_printed_install", "The shell says which package provides this command.", priority=8)
def printed_install(c: Case) -> list[str]:
    if not missing_command(c):
        return []
    out: list[str] = []
    for m in re.finditer(
        r"^[ \t]*((?:sudo\s+)?(?:apt(?:-get)?|snap|dnf|yum|pacman|zypper|pkg|brew|nix-env|apk)\s+"
        r"(?:install|-S|add|-iA)\s+[^\s#]+(?:\s+--classic)?)\s*(?:#.*)?$",
        c.output,
        re.MULTILINE,
    ):
        out.append(" ".join(m.group(1).split()))
    for m in re.finditer(r"Install package '([^']+)' to provide command", c.output):
        out.append(f"sudo dnf install {m.group(1)}")
    # Arch's pkgfile: "gti may be found in the following packages:\n  extra/git 2.43 /usr/bin/git"
    if "may be found in the following packages" in c.output:
        for m in re.finditer(r"^[ \t]+\w+/([\w.+-]+) \S+[ \t]+/\S+", c.output, re.M):
            out.append(f"sudo pacman -S {m.group(1)}")
    for m in re.finditer(r"^[ \t]*(nix-shell -p [\w.+-]+)[ \t]*$", c.output, re.M):
        out.append(m.group(1))
    return out[:3]


@rule("cnf_did_you_mean", "The shell suggests a similar command name.", priority=10)
def printed_similar(c: Case) -> list[str]:
    name = missing_command(c)
    if not name:
        return []
    word = typed_word(c, name)
    if not word:
        return []
    cands: list[str] = re.findall(rf"correct '{re.escape(name)}' to '([^']+)'", c.output)
    cands += re.findall(r"^[ \t]*[Cc]ommand '([^']+)' from (?:deb|package|snap)", c.output, re.M)
    m = re.search(r"Similar commands? (?:is|are):?\s*((?:\s*'[^']+'\s*)+)", c.output)
    if m:
        cands += re.findall(r"'([^']+)'", m.group(1))
    m = re.search(r"The most similar commands? (?:is|are):?\s*(.+)", c.output)
    if m:
        cands += [w.strip(" .➤>\t") for w in m.group(1).split(",")]
    fixes = [c.replace_word(word, x) for x in dict.fromkeys(cands) if x and x != name]
    # Ubuntu also offers packages that provide the very name typed (python-is-python3).
    for pkg in re.findall(rf"^[ \t]*[Cc]ommand '{re.escape(name)}' from deb (\S+)", c.output, re.M):
        fixes.append(f"sudo apt install {pkg}")
    return fixes[:4]


@rule("cnf_current_location", "PowerShell only runs programs in this folder with a .\\ prefix.", 9)
def current_location(c: Case) -> list[str]:
    m = c.search(r"The command (\S+) was not found, but does exist in the current location")
    if not m:
        return []
    name = m.group(1)
    return [c.replace_word(name, ".\\" + name) if name in c.script else ".\\" + c.script]


@rule("cnf_known_typo", "A common mistyping of a command name.", priority=12)
def known_typo(c: Case) -> list[str]:
    name = missing_command(c)
    word = c.parts[0] if c.parts else ""
    typos = data.typos()
    if name and name in typos:
        fixed = typos[name]
        word = typed_word(c, name) or name
        if word in c.script:
            return [
                c.replace_word(word, fixed) if " " not in word else c.script.replace(word, fixed)
            ]
        return [fixed]
    # `cd..` and friends are one word, so they do not always show up in the error text.
    if word in typos and (name or c.exit_code not in (0, None)) and c.posix:
        return [c.script.replace(word, typos[word], 1)]
    return []


@rule("cnf_install", "Install the missing program.", priority=20)
def install_missing(c: Case) -> list[tuple[str, str]]:
    name = missing_command(c)
    if not name:
        return []
    base = re.split(r"[\\/]", name)[-1]
    if base.startswith("."):
        return []
    if base == "sudo":
        from termwise.agent.rules.permission import sudo_for_linux

        if sudo_for_linux(c):
            return []  # gsudo would not give Windows apt or systemctl
    return install_commands(c, base)[:3]


def candidates(c: Case, word: str) -> list[str]:
    """Command names a typo of `word` could mean, most common first."""
    names = data.known_commands(c.family)
    # This machine's PATH only says something about shells of its own kind.
    if c.windows != (sys.platform == "win32"):
        return names
    # Programs starting with one of the word's first two letters, or whose first two letters
    # hold the word's first letter (the same filter as a scan of PATH, from an index).
    if not word:
        return names + list(env.path_programs())
    by_first, by_second = env.programs_by_letter()
    low = word[:2].lower()
    picked = {p for ch in set(low) for p in by_first.get(ch, ())}
    picked.update(by_first.get(low[:1], ()), by_second.get(low[:1], ()))
    names += sorted(picked)
    return names


@rule("cnf_nearest", "The nearest command name to what was typed.", priority=25)
def nearest_command(c: Case) -> list[str]:
    name = missing_command(c)
    if not name or "/" in name or "\\" in name:
        return []
    word = typed_word(c, name)
    if not word or (c.windows and translate.known(name.lower())):
        return []
    from termwise.agent.rules.win_setup import BOOTSTRAP

    if name.lower() in BOOTSTRAP:
        return []  # a package manager typed right but not installed: not a typo of wget/scp
    best = fuzzy.closest(name, candidates(c, name), n=3, ignore_case=c.windows)
    if tool_entry(name):
        # A real tool's name was typed right: only its variants (pip → pip3) make sense.
        best = [b for b in best if b.startswith(name) or name.startswith(b)]
    return [c.replace_word(word, b) for b in best]
