"""Tools that list what you may have meant: hint blocks, ambiguous abbreviations, task lists."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from termwise.agent.rules import data, fuzzy
from termwise.agent.rules.engine import Case, rule

# A header announcing a list of candidates, then the candidates one per (indented) line.
_BLOCK = re.compile(
    r"(?:[Dd]id you mean(?: one of these| this)?\??|[Mm]aybe you meant:?|"
    r"[Tt]he most similar commands? (?:is|are):?|is ambiguous:)[ \t]*\n"
    r"((?:[ \t]+[\w:.-]+(?:[ \t]+[\w:.-]+)*[ \t]*(?:\n|$))+)"
)
# The word the tool complains about, quoted in its message.
_QUOTED = re.compile(r"""["'`‘]([\w:.-]+)["'`’]""")


def _wrong_word(c: Case, names: list[str]) -> str:
    """The argument the tool rejected: quoted in its message, else the one nearest a hint."""
    words = [a for a in c.args if not a.startswith("-")]
    for m in _QUOTED.finditer(c.output):
        if m.group(1) in words and m.group(1) not in names:
            return m.group(1)
    best = ""
    score = 0.0
    for w in words:
        for n in names:
            r = SequenceMatcher(None, w, n).ratio()
            if r > score:
                best, score = w, r
    return best if score >= 0.5 else ""


@rule("listed_did_you_mean", "One of the commands the tool lists as what you meant.", 7)
def listed(c: Case) -> list[str]:
    if not c.app or c.is_app("git"):
        return []
    m = _BLOCK.search(c.output)
    if not m:
        inline = c.search(r"\(did you mean one of ([\w:. ,-]+)\?\)")
        if not inline:
            return []
        names = [n for n in re.split(r"[\s,]+", inline.group(1)) if n]
    elif "ambiguous" in m.group(0):
        names = m.group(1).split()  # hg: the completions side by side
    else:
        # One candidate per line; a line may be a subcommand path (`self install`).
        names = [re.split(r"\s{2,}|\s#", ln.strip())[0] for ln in m.group(1).splitlines()]
        names = [n for n in names if n]
    if not names:
        return []
    wrong = _wrong_word(c, names)
    if not wrong:
        return []
    if m and "ambiguous" in m.group(0):
        # An abbreviation: the completions it starts, in the tool's order.
        names = [n for n in names if n.startswith(wrong)] or names
    return [c.replace_arg(wrong, n) for n in dict.fromkeys(names) if n != wrong][:3]


@rule("listed_alternatives", "A name the tool lists as a possible alternative.", 7)
def listed_alternatives(c: Case) -> list[str]:
    """gem: `Could not find a valid gem 'rials' … Possible alternatives: rails, rials_admin`."""
    m = c.search(r"[Pp]ossible alternatives?:[ \t]*([\w.@/+-]+(?:,[ \t]*[\w.@/+-]+)*)")
    if not m:
        return []
    names = [n.strip() for n in m.group(1).split(",") if n.strip()]
    wrong = _wrong_word(c, names)
    return [c.replace_arg(wrong, n) for n in names[:3]] if wrong else []


@rule("similar_subcommand", "The subcommand the tool says exists under a similar name.", 6)
def similar_subcommand(c: Case) -> list[str]:
    """clap-based CLIs (uv, ruff, cargo plugins …): `tip: a similar subcommand exists: 'x'`."""
    tips = re.findall(r"a similar (?:sub)?command exists: '([^']+)'", c.output)
    wrong = c.search(r"unrecognized subcommand '([^']+)'")
    if not tips or not wrong or wrong.group(1) not in c.args:
        return []
    return [c.replace_arg(wrong.group(1), t) for t in tips[:2]]


@rule("task_not_found", "The nearest of the tasks the tool says are available.", priority=7)
def task_not_found(c: Case) -> list[str]:
    """fab, invoke and similar: `Command(s) not found:` then `Available commands:`."""
    if "not found" not in c.output or "Available " not in c.output:
        return []
    m = c.search(r"(?:[Cc]ommand|[Tt]ask)\(?s?\)? not found:?[ \t]*\n((?:[ \t]+\S+[ \t]*\n)+)")
    avail = c.search(r"Available (?:commands|tasks):?[ \t]*\n\n?((?:[ \t]+\S[^\n]*\n?)+)")
    if not (m and avail):
        return []
    missing = m.group(1).split()
    names = [ln.split()[0] for ln in avail.group(1).splitlines() if ln.strip()]
    fixed = c.script
    for word in missing:
        close = sorted(names, key=lambda n: -SequenceMatcher(None, word, n).ratio())
        if not close or SequenceMatcher(None, word, close[0]).ratio() < 0.6:
            continue
        fixed = re.sub(rf"(?<![\w-]){re.escape(word)}(?=[\s:]|$)", close[0], fixed, count=1)
    return [fixed] if fixed != c.script else []


def _first_unknown(c: Case, known: list[str]) -> tuple[str, list[str]]:
    """The first word before any known subcommand that is close to one (and those)."""
    for w in c.args:
        if w.startswith("-"):
            continue
        if w in known:
            return "", []
        close = fuzzy.closest(w, known, n=3)
        if close:
            return w, close
    return "", []


@rule("help_shown_for_typo", "The tool printed its help: the nearest command it knows.", 11)
def help_shown(c: Case) -> list[str]:
    """`adb puhs …` prints adb's whole help text instead of an error."""
    known = data.subcommands(c.app) if c.app else []
    if not known or not c.output.strip():
        return []
    wrong, close = _first_unknown(c, known)
    if not wrong:
        return []
    head = c.lower[:2000]  # help text starts with its usage line or the tool's version
    if "usage:" not in head and "commands:" not in head and " version " not in head:
        return []
    return [c.replace_arg(wrong, n) for n in close]


_LOGIN = re.compile(
    r"not (?:authenticated|logged in)|session (?:has )?expired|please (?:log ?in|sign in)"
    r"|login required|authentication required|use \"login\" command",
    re.I,
)


@rule("login_first", "You are not signed in (or the session expired): log in, then retry.", 8)
def login_first(c: Case) -> list[str]:
    if not c.app or not c.has("authenticat", "logged in", "expired", "log in", "login", "sign in"):
        return []  # a cheap look first: the pattern below is case-insensitive over all output
    if not _LOGIN.search(c.output):
        return []
    if "login" not in data.subcommands(c.app) and not c.has(f"{c.app} login", '"login"'):
        return []
    return [c.then(f"{c.app} login", c.script)]


@rule("choose_app", "Several apps match: name the one you mean.", priority=7)
def choose_app(c: Case) -> list[str]:
    """heroku and friends: `Multiple apps in git remotes … --app NAME`."""
    if not c.has("multiple apps", "more than 1 app", "more than one app"):
        return []
    apps = re.findall(r"^\W*([\w-]+) \([\w-]+\)\s*$", c.output, re.M)
    apps += re.findall(
        r"--app (?!(?:or|and|to|the|NAME|APP)\b)([\w-]+)", c.output
    )  # not "--app or --remote"
    return [f"{c.script} --app {a}" for a in dict.fromkeys(apps)][:3]


@rule("prove_recursive", "No tests found at the top: search the folder recursively.", 8)
def prove_recursive(c: Case) -> list[str]:
    if not c.is_app("prove") or not c.has("files=0", "no tests"):
        return []
    if any(a in ("-r", "--recurse") for a in c.args):
        return []
    return [re.sub(r"(?<![\w-])prove(?![\w-])", "prove -r", c.script, count=1)]


@rule("open_url_or_new_file", "No such file: it may be a web address, or a file to create.", 8)
def open_url(c: Case) -> list[str]:
    openers = (
        "open",
        "xdg-open",
        "gnome-open",
        "kde-open",
        "start",
        "start-process",
        "invoke-item",
        "ii",
    )
    if c.app.lower() not in openers:
        return []
    m = c.search(
        r"(?:The file|file) (\S+) does not exist|(\S+): No such file or directory"
        r"|[Cc]annot find (?:the file|path) (?:'([^'\n]+)'|(\S+?)\.?(?:\s|$))"
    )
    printed = next((g for g in m.groups() if g), "") if m else ""
    if m and printed in ("specified", "") and c.windows:
        printed = next((a for a in c.args if not a.startswith("-")), "")
    printed = printed.replace("\\", "/")
    # macOS prints the absolute path: `The file /Users/me/foo.io does not exist.`
    target = (
        next(
            (
                a
                for a in c.args
                if printed in (a, *[p + a for p in ("", "./")]) or printed.endswith("/" + a)
            ),
            "",
        )
        if printed
        else ""
    )
    if not target:
        return []
    m = re.fullmatch(r"(?:www\.)?[\w-]+(?:\.[\w-]+)*\.([a-z]{2,})(?:/\S*)?", target, re.I)
    if c.windows:
        create = []  # `start` opens what exists; creating an empty file is rarely what was meant
    else:
        create = [c.then(f"touch {target}", c.script), c.then(f"mkdir {target}", c.script)]
    if m and m.group(1).lower() not in _FILE_TYPES:
        if c.app.lower() in ("invoke-item", "ii"):
            return [f"Start-Process http://{target}"]  # Invoke-Item opens paths, not addresses
        return [c.replace_arg(target, f"http://{target}"), *create]
    return create


# Extensions that are also top-level domains but, on a command line, mostly name files.
_FILE_TYPES = set(
    "md py sh rs pl js ts json yml yaml toml ini cfg txt log csv pdf png jpg gif "
    "html htm css xml zip gz tar mp3 mp4 mov doc docx xls xlsx ppt rb php java".split()
)
