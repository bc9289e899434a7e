"""Inline interpreter scripts (`python -c`, `node -e` …): their deletes and shell calls as shell commands."""

from __future__ import annotations

import re
import shlex
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from termwise.agent.base.datafiles import resource_yaml
from termwise.agent.safety import aliases
from termwise.agent.safety.lazy import LazyPattern, compile_all
from termwise.agent.safety.literals import (
    COMPUTED,
    concatenated,
    first_argument,
    first_arguments_text,
    list_literal,
    literal_words,
    split_items,
    string_literal,
)
from termwise.agent.safety.model import Family, Level
from termwise.agent.safety.rules import SafetyRulesError, load_rules
from termwise.agent.safety.tclwords import command_words

if TYPE_CHECKING:
    from termwise.agent.safety.engine import Analyzer

MAX_CODE = 20_000  # longer scripts are still `confirm` (they run code); they are not read
MAX_CALLS = 40  # calls read per script: enough for any one-liner, bounded for hostile input
MAX_EVAL_DEPTH = 6  # exec("exec('…')"): strings run as code are read this deep
# Tcl's commands: read as words to the command's end (tclwords.py), not as a call.
_WORD_KINDS = ("words", "shell_words", "delete_words")
# Calls read through their arguments (see _call), in this order.
_CALL_KINDS = (
    "eval",
    "shell",
    "argv",
    "program",
    "delete_tree",
    "delete_file",
    "remove_dir",
    "write_file",
    "move_file",
    "copy_file",
    "copy_tree",
    *_WORD_KINDS,
)
_PATTERN_KEYS = (
    *_CALL_KINDS,
    "delete_method",
    "recursive_flag",
    "walk",
    "list_here",
    "home",
)
_BACKTICKS = re.compile(
    r"`([^`]{1,2000})`|%x\(([^)]{1,2000})\)|%x\{([^}]{1,2000})\}|qx\s*\(([^)]{1,2000})\)"
    r"|qx\s*\{([^}]{1,2000})\}|qx\s*\[([^\]]{1,2000})\]|qx\s*<([^>]{1,2000})>"
    r"|qx\s*(?P<delim>[!|/#^~%])(?P<body>.{1,2000}?)(?P=delim)"  # Perl's qx!cmd!, qx|cmd|
)
# do shell script "…" with administrator privileges: what follows the string is parameters
_APPLESCRIPT_PARAMS = re.compile(
    r'(?<=")\s+(?:with|without|as|user\s+name|password|altering)\b[^&]{0,200}$', re.I
)
_RECEIVER = re.compile(r"""Path\s*\(\s*[rRbBuUfF]?(['"])([^'"]{1,500})\1\s*\)\s*$""")


class Language(NamedTuple):
    """What a language's deleting and command-running calls look like."""

    name: str
    patterns: dict[str, tuple[LazyPattern, ...]]
    backticks: bool


class Interpreter(NamedTuple):
    """A program that runs scripts given inline (`-c CODE`) or on stdin (`-`)."""

    language: str
    code_options: frozenset[str]
    dash_reads_stdin: bool
    value_options: frozenset[str] = frozenset()  # options whose value is not a script (-l)


@cache
def load_interpreters() -> tuple[dict[str, Interpreter], dict[str, Language]]:
    """Read resources/safety/interpreters.yaml once per process."""
    (data,) = resource_yaml(
        "safety-interpreters",
        ["safety/interpreters.yaml"],
        check=_check,
    )
    return _interpreters(data)


def _check(docs: list[Any]) -> None:
    """Freshly read: compile every pattern now, so a bad one is reported and not cached."""
    tables = _interpreters(docs[0])
    try:
        compile_all(tables)
    except re.error as exc:
        raise SafetyRulesError(f"safety rules interpreters.yaml: error: {exc}") from exc


def _interpreters(data: Any) -> tuple[dict[str, Interpreter], dict[str, Language]]:
    data = data or {}
    try:
        languages = {
            name: Language(
                name,
                {key: tuple(LazyPattern(p) for p in raw.get(key, ())) for key in _PATTERN_KEYS},
                bool(raw.get("backticks", False)),
            )
            for name, raw in data["languages"].items()
        }
        interpreters = {
            name: Interpreter(
                raw["language"],
                frozenset(raw.get("code_options", ())),
                bool(raw.get("dash_reads_stdin", False)),
                frozenset(raw.get("value_options", ())),
            )
            for name, raw in data["interpreters"].items()
        }
    except (KeyError, TypeError, AttributeError, re.error) as exc:
        raise SafetyRulesError(
            f"safety rules interpreters.yaml: {type(exc).__name__}: {exc}"
        ) from exc
    for interp in interpreters.values():
        if interp.language not in languages:
            raise SafetyRulesError(f"interpreters.yaml: unknown language {interp.language!r}")
    return interpreters, languages


_VERSIONED = r"(python[23]?|pypy3?|ruby|perl|php|node)(?:\d+(?:\.\d+)*)?"
# Letters that take a value, so a cluster such as -Wc is not "-c with code next".
_VALUE_LETTERS = frozenset("WXmMrFCx")


def interpreter_of(name: str) -> Interpreter | None:
    """The interpreter `name` is, a versioned name included (python3.13, perl5.36, php8.3)."""
    interpreters = load_interpreters()[0]
    found = interpreters.get(name)
    if found is None:
        match = re.fullmatch(_VERSIONED, name) if name[-1:].isdigit() else None
        if match:
            found = interpreters.get(match.group(1))
    return found


def _clustered_code(interp: Interpreter, token: str) -> tuple[bool, str]:
    """(True, rest) when a short-option cluster ends in a code option: -Ic, -lne, -pe 'code'."""
    if len(token) < 3 or token.startswith("--") or not token[1:].isalpha():
        return False, ""
    for k, letter in enumerate(token[1:], start=1):
        if f"-{letter}" in interp.code_options:
            return True, token[k + 1 :]
        if letter in _VALUE_LETTERS:
            return False, ""
    return False, ""


def script_of(interp: Interpreter, args: list[str]) -> tuple[str | None, bool]:
    """The inline script in `args`, and whether the program reads its script from stdin."""
    if not args:
        return None, interp.dash_reads_stdin
    skip = False
    for i, token in enumerate(args):
        if skip:
            skip = False
            continue
        if token in interp.value_options:
            skip = True  # osascript -l JavaScript: a language name, not a script file
            continue
        if token in interp.code_options:
            return (args[i + 1] if i + 1 < len(args) else ""), False
        option, eq, value = token.partition("=")
        if eq and option in interp.code_options and option.startswith("--"):
            return value, False
        glued = token[:2]
        if len(token) > 2 and glued in interp.code_options and not token.startswith("--"):
            if all(f"-{letter}" in interp.code_options for letter in token[2:]):
                return (args[i + 1] if i + 1 < len(args) else ""), False  # node -pe 'code'
            return token[2:], False  # python -c'print(1)'
        clustered, rest = _clustered_code(interp, token)
        if clustered:  # perl -lne 'code', python -Ic 'code'
            return (rest or (args[i + 1] if i + 1 < len(args) else "")), False
        if token == "-":
            return None, interp.dash_reads_stdin
        if (
            token == "--"
            or token in ("-m", "-r", "--require", "-I", "-M")
            or not token.startswith("-")
        ):
            return None, False  # a script file or a module: its code is not on this line
    return None, interp.dash_reads_stdin


def reads_stdin(name: str, args: list[str]) -> bool:
    """True when interpreter `name` with `args` takes its program from stdin."""
    interp = interpreter_of(name)
    return interp is not None and script_of(interp, args) == (None, True)


def check(
    analyzer: Analyzer,
    name: str,
    args: list[str],
    family: Family,
    depth: int,
    stdin_text: str | None = None,
) -> None:
    """Read the inline script of interpreter `name` (or its stdin body) for deletes and shells."""
    languages = load_interpreters()[1]
    interp = interpreter_of(name)
    if interp is None:
        return
    code, reads_stdin = script_of(interp, args)
    if code is None and reads_stdin and stdin_text:
        code = stdin_text
    if code:
        check_code(analyzer, languages[interp.language], code, family, depth)


def check_code(analyzer: Analyzer, lang: Language, code: str, family: Family, depth: int) -> None:
    """Translate each recognised call into the shell command it amounts to and analyse that."""
    if len(code) > MAX_CODE:
        analyzer.add("confirm", "inline-script", f"the {lang.name} script is too long to read")
        return
    shell_family: Family = "posix" if family == "posix" else "cmd"
    p = lang.patterns
    if lang.name in aliases.READERS:  # import os as o, {execSync: run}: the known names back
        code = aliases.READERS[lang.name](code)
    quoted = _quoted(code)
    found = 0
    for kind in _CALL_KINDS:
        for pattern in p[kind]:
            for match in pattern.finditer(code):
                if quoted[match.start()]:
                    continue  # print("os.replace(a, b)"): text, not a call
                found += 1
                if found > MAX_CALLS:
                    return
                _call(analyzer, lang, kind, code, match.end(), shell_family, depth)
    for pattern in p["delete_method"]:
        for match in pattern.finditer(code):
            found += 1
            if found > MAX_CALLS:
                return
            receiver = _RECEIVER.search(code[max(0, match.start() - 600) : match.start()])
            path = receiver.group(2) if receiver else COMPUTED
            verb = "rmdir" if "rmdir" in match.group(0) else "rm"
            _delete(analyzer, lang, [verb, path], shell_family, depth)
    if found and any(w.search(code) for w in p["walk"]):
        if _deletes(code, p):
            analyzer.add(
                "dangerous",
                "inline-walk-delete",
                f"the {lang.name} script deletes every file it finds walking a folder tree",
            )
    elif found and any(w.search(code) for w in p["list_here"]) and _deletes(code, p):
        analyzer.add(
            "dangerous",
            "inline-delete-all-here",
            f"the {lang.name} script lists every entry of this or the home folder and "
            "deletes what it finds, like `rm *`",
        )
    if lang.backticks:
        for match in _BACKTICKS.finditer(code):
            found += 1
            if found > MAX_CALLS:
                return
            line = match.group("body") or next(
                g for g in match.groups()[: match.re.groupindex["delim"] - 1] if g is not None
            )
            analyzer.text(line, shell_family, depth + 1)
    if not found and "(" not in code and not any(q in code for q in "'\"`"):
        _shell_looking(analyzer, lang, code, depth)


def _quoted(code: str) -> bytearray:
    """1 for each character inside a string literal ('…', "…", triple quotes), else 0:
    a call written inside a string is data. Backticks are left alone (Ruby and Perl run
    them; JavaScript's hold text)."""
    mask = bytearray(len(code) + 1)
    i, n = 0, len(code)
    while i < n:
        ch = code[i]
        if ch == "#" and (i == 0 or code[i - 1] in " \t\n;"):
            end = code.find("\n", i)
            i = n if end < 0 else end  # a comment (Python, Ruby, Perl, shell-style PHP)
            continue
        if ch not in "'\"":
            i += 1
            continue
        close = ch * 3 if code.startswith(ch * 3, i) else ch  # ''' or """
        j = i + len(close)
        while j < n and not code.startswith(close, j):
            j += 2 if code[j] == "\\" else 1
        end = min(n, j + len(close))
        mask[i + 1 : end] = b"\x01" * (end - i - 1)
        i = end
    return mask


def _deletes(code: str, p: dict[str, tuple[LazyPattern, ...]]) -> bool:
    kinds = ("delete_tree", "delete_file", "remove_dir", "delete_method")
    return any(pattern.search(code) for kind in kinds for pattern in p[kind])


def _call(
    analyzer: Analyzer,
    lang: Language,
    kind: str,
    code: str,
    start: int,
    shell_family: Family,
    depth: int,
) -> None:
    if kind in _WORD_KINDS:
        _tcl_command(analyzer, lang, kind, command_words(code, start), shell_family, depth)
        return
    arg = first_argument(code, start)
    if kind == "eval":  # exec("import os; os.system('rm -rf ~')"): the string is code too
        literal = string_literal(arg)
        if literal is not None and depth < MAX_EVAL_DEPTH:
            check_code(analyzer, lang, literal, shell_family, depth + 1)
        return
    if kind == "shell":
        if lang.name == "applescript":
            arg = _APPLESCRIPT_PARAMS.sub("", arg.rstrip())
        literal = string_literal(arg)
        items = split_items(first_arguments_text(code, start))
        if len(items) > 1 and all(string_literal(i) is not None for i in items[:2]):
            # system('rm', '-rf', '/'): several words run as they are, without a shell
            words = [w or COMPUTED for w in literal_words(items)]
            _run_words(analyzer, lang, words, shell_family, depth)
        elif literal is not None and not concatenated(arg):
            analyzer.text(literal, shell_family, depth + 1)
        elif arg.lstrip().startswith(("[", "(")):
            _run_words(analyzer, lang, list_literal(arg), shell_family, depth)
        else:
            analyzer.add(
                "confirm",
                "inline-shell",
                f"the {lang.name} script runs a command line built at run time",
            )
    elif kind == "argv":
        _run_words(analyzer, lang, list_literal(arg), shell_family, depth)
    elif kind == "program":
        program = string_literal(arg)
        rest = code[start + len(arg) : start + len(arg) + 2000].lstrip(" \t,")
        words = list_literal(rest) if rest.startswith("[") else []
        _run_words(analyzer, lang, [program or COMPUTED, *words], shell_family, depth)
    elif kind == "write_file":
        _write(analyzer, lang, path_of(arg, lang), shell_family, depth)
    elif kind in ("move_file", "copy_file", "copy_tree"):
        items = split_items(first_arguments_text(code, start))
        if len(items) >= 2:
            paths = [path_of(items[0], lang), path_of(items[1], lang)]
            _transfer(analyzer, lang, kind, paths, shell_family, depth)
    else:
        path = path_of(arg, lang)
        whole = first_arguments_text(code, start)
        tree = kind == "delete_tree" or any(
            r.search(whole) for r in lang.patterns["recursive_flag"]
        )
        if kind == "remove_dir" and not tree:
            words = ["rmdir", path]
        else:
            words = ["rm", "-rf", path] if tree else ["rm", path]
        _delete(analyzer, lang, words, shell_family, depth)


def _tcl_command(
    analyzer: Analyzer,
    lang: Language,
    kind: str,
    words: list[str],
    shell_family: Family,
    depth: int,
) -> None:
    """Tcl and expect: `exec PROG ARGS` runs words; `system ARGS` / `send "…"` a shell line;
    `file delete [-force] PATHS` deletes (a tree with -force)."""
    if kind == "words":
        _run_words(analyzer, lang, words, shell_family, depth)
    elif kind == "shell_words":
        if COMPUTED in words:
            analyzer.add(
                "confirm", "inline-shell", f"the {lang.name} script runs a line built at run time"
            )
        elif words:
            analyzer.text(" ".join(words).strip("\r\n"), shell_family, depth + 1)
    else:
        tree = "-force" in words
        for path in [w for w in words if w not in ("-force", "--")][:8]:
            _delete(
                analyzer, lang, ["rm", "-rf", path] if tree else ["rm", path], shell_family, depth
            )


def _run_words(
    analyzer: Analyzer, lang: Language, words: list[str], shell_family: Family, depth: int
) -> None:
    if not words or words[0] == COMPUTED:
        analyzer.add(
            "confirm", "inline-shell", f"the {lang.name} script runs a program chosen at run time"
        )
        return
    line = " ".join(shlex.quote(w) if w != COMPUTED else w for w in words)
    analyzer.text(line, shell_family, depth + 1)


def _delete(
    analyzer: Analyzer, lang: Language, words: list[str], shell_family: Family, depth: int
) -> None:
    """Judge a delete call as the equivalent `rm` (or `rd /s /q` on Windows)."""
    path = words[-1]
    if shell_family == "cmd":
        verb = {"rm": "del", "rmdir": "rd"}[words[0]]
        words = [verb, "/s", "/q", path] if "-rf" in words else [verb, path]
    shown = _shown(path)
    level, why = _judged_as(analyzer, words, shell_family, depth)
    line = _shown(" ".join(words))
    message = f"the {lang.name} script deletes {shown}, like `{line}`" + (f": {why}" if why else "")
    analyzer.add(level if level != "safe" else "confirm", "inline-delete", message)


def _shown(path: str) -> str:
    """A path (or a line) for the user: the computed part is a placeholder of ours, not shown."""
    if path == COMPUTED:
        return "a path computed at run time"
    return path.replace(COMPUTED, "…")


_TRANSFER = {
    "move_file": (("mv",), ("move",), "moves"),
    "copy_file": (("cp",), ("copy",), "copies"),
    "copy_tree": (("cp", "-r"), ("xcopy", "/e", "/i"), "copies"),
}


def _transfer(
    analyzer: Analyzer,
    lang: Language,
    kind: str,
    paths: list[str],
    shell_family: Family,
    depth: int,
) -> None:
    """Judge a rename, move or copy call as the shell's `mv`/`cp` (`move`/`copy` on Windows)."""
    posix, cmd, verb = _TRANSFER[kind]
    words = [*(cmd if shell_family == "cmd" else posix), *paths]
    level, why = _judged_as(analyzer, words, shell_family, depth)
    shown = [_shown(p) for p in paths]
    line = _shown(" ".join(words))
    message = f"the {lang.name} script {verb} {shown[0]} to {shown[1]}, like `{line}`"
    if level == "dangerous":
        message += f": {why}"
    analyzer.add("dangerous" if level == "dangerous" else "confirm", "inline-move", message)


def _write(analyzer: Analyzer, lang: Language, path: str, shell_family: Family, depth: int) -> None:
    """Judge a file write as the shell's own write to that path (`tee PATH`, `copy nul PATH`)."""
    if path == COMPUTED:
        analyzer.add("confirm", "inline-write", f"the {lang.name} script writes a file")
        return
    words = ["copy", "nul", path] if shell_family == "cmd" else ["tee", path]
    level, why = _judged_as(analyzer, words, shell_family, depth)
    if level == "dangerous":
        analyzer.add("dangerous", "inline-write", f"the {lang.name} script writes {path}: {why}")
    else:
        analyzer.add("confirm", "inline-write", f"the {lang.name} script writes {path}")


def _judged_as(
    analyzer: Analyzer, words: list[str], shell_family: Family, depth: int
) -> tuple[Level, str]:
    """The level a shell command line would get, and the message that earned it (for a
    script call judged as its shell equivalent; the path, last, may be computed)."""
    from termwise.agent.safety.engine import Analyzer as Sub
    from termwise.agent.safety.engine import verdict_level

    trial = Sub(budget=min(analyzer.budget, 5_000))
    dynamic = [False] * (len(words) - 1) + [words[-1] == COMPUTED]
    trial.argv(words, dynamic, load_rules(shell_family), depth + 1)
    level = verdict_level(trial.findings)
    why = next((f.message for f in trial.findings if f.level == level and level != "safe"), "")
    return level, why


def _shell_looking(analyzer: Analyzer, lang: Language, code: str, depth: int) -> None:
    """`node -e "rm -rf /"`: a script that is itself a destructive shell line is flagged as one."""
    from termwise.agent.safety.engine import Analyzer as Sub
    from termwise.agent.safety.engine import verdict_level

    sub = Sub(budget=analyzer.budget)
    sub.text(code, "posix", depth + 1)
    if verdict_level(sub.findings) == "dangerous":
        analyzer.add(
            "dangerous",
            "inline-shell-text",
            f"the {lang.name} script is itself a destructive shell command line",
        )


def path_of(arg: str, lang: Language) -> str:
    """A delete call's target as a path the shell rules understand ("~" for the home folder)."""
    literal = string_literal(arg)
    if literal is not None and not concatenated(arg):
        return literal
    if any(h.search(arg) for h in lang.patterns["home"]):
        inner = arg.strip()
        plain = any(h.fullmatch(inner) for h in lang.patterns["home"])
        joined = "join" in inner or "+" in inner or inner.count(",") > 0
        if plain:
            return "~"
        spelled = _home_spelled(inner, lang)
        if spelled is not None:
            return spelled
        return "~" if not joined else "~/" + COMPUTED
    if literal is not None:  # "/home/" + name: the fixed start tells where it goes
        return literal + COMPUTED
    return COMPUTED


_TILDE = re.compile(
    r"""^(?:os\.path\.)?(?:expanduser|File\.expand_path)\s*\(\s*(['"])(~[^'"]*)\1\s*\)$"""
)
_JOIN = re.compile(r"^(?:os\.path\.|path\.|File\.)?(?:join|resolve)\s*\(")


def _home_spelled(inner: str, lang: Language) -> str | None:
    """`expanduser('~/.ssh/x')`, `path.join(homedir(), '.ssh', 'x')`, `HOME + '/.ssh/x'`: the
    path spelled out from the home folder, when every other piece is a literal."""
    tilde = _TILDE.match(inner)
    if tilde:
        return tilde.group(2)
    join = _JOIN.match(inner)
    if join:
        pieces = split_items(first_arguments_text(inner, join.end()))
    elif "+" in inner:
        pieces = inner.split("+")
    else:
        return None
    parts: list[str] = []
    for piece in pieces:
        text = piece.strip()
        if string_literal(text) is None and any(h.search(text) for h in lang.patterns["home"]):
            if parts:
                return None  # the home folder in the middle: not a path we can spell
            tilde = _TILDE.match(text)
            parts.append(tilde.group(2) if tilde else "~")
            continue
        literal = string_literal(text)
        if literal is None or concatenated(text) or not parts:
            return None
        parts.append(literal)
    if not parts:
        return None
    path = "/".join(p.strip("/") for p in parts if p.strip("/")) or "~"
    return path if path.startswith("~") else None


def stdin_language(names: set[str]) -> str | None:
    """The language an interpreter among `names` would read its stdin body as."""
    interpreters, _ = load_interpreters()
    for name in names:
        if name in interpreters:
            return name
    return None
