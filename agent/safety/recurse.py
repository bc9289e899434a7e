"""Commands that run other commands: wrappers, shells given a string, `find -exec`, `wsl`."""

from __future__ import annotations

import base64
import binascii
import re
import shlex
from typing import TYPE_CHECKING

from termwise.agent.safety import configured, inline, launchers, runners
from termwise.agent.safety.rules import RuleSet, Wrapper

if TYPE_CHECKING:
    from termwise.agent.safety.engine import Analyzer
    from termwise.agent.safety.model import Family

POSIX_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"})
# Programs that run the shell commands given on their input: shells, and `at` / `batch`,
# which run them later.
STDIN_SHELLS = POSIX_SHELLS | {"at", "batch"}
POWERSHELLS = frozenset({"pwsh", "powershell", "powershell_ise"})
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_ASSIGNERS = frozenset({"export", "declare", "typeset", "local", "readonly", "unset", "set"})


def _prefixes(word: str, shortest: int) -> frozenset[str]:
    return frozenset(word[:n] for n in range(shortest, len(word) + 1))


# powershell.exe / pwsh parameters (they accept any unique prefix and a few aliases).
_PS_COMMAND = _prefixes("command", 1)
_PS_ENCODED = _prefixes("encodedcommand", 2) | {"e", "ec"}
_PS_FILE = _prefixes("file", 1)
_PS_VALUED = (
    _prefixes("executionpolicy", 2)
    | {"ep"}
    | _prefixes("windowstyle", 1)
    | _prefixes("workingdirectory", 2)
    | {"wd"}
    | _prefixes("outputformat", 1)
    | {"of"}
    | _prefixes("inputformat", 2)
    | {"if"}
    | _prefixes("configurationname", 4)
    | _prefixes("settingsfile", 2)
    | _prefixes("custompipename", 2)
    | _prefixes("psconsolefile", 2)
    | _prefixes("version", 1)
)


def chain(words: list[str], rules: RuleSet) -> list[str]:
    """Names of the programs started by `words`: `sudo env bash` → [sudo, env, bash]."""
    from termwise.agent.safety.engine import resolve_name

    names: list[str] = []
    for _ in range(8):
        if not words:
            break
        name = resolve_name(words[0], rules)
        names.append(name)
        wrapper = rules.wrappers.get(name)
        found = runners.started(name, words[1:]) if wrapper is None else None
        if found is not None and found.line is None:  # npx node, uv run python: the program
            words = words[1 + found.at :]
            continue
        if wrapper is None:
            break
        words = _unwrap(wrapper, words[1:])
    return names


def _unwrap(wrapper: Wrapper, args: list[str]) -> list[str]:
    """Skip a wrapper's own options (and assignments or fixed positionals) to reach its command."""
    i = 0
    skipped = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            return args[i + 1 :]
        if token == "-" and wrapper.name == "env":  # env - cmd: start with an empty environment
            i += 1
            continue
        if token.startswith("-") and len(token) > 1:
            if _takes_next(wrapper, token):
                i += 1
            i += 1
            continue
        if wrapper.name == "start" and (
            (token.startswith("/") and len(token) > 1) or (i == 0 and (not token or " " in token))
        ):
            i += 1  # cmd's start: /switches, and a first (quoted) argument is the window title
            continue
        if wrapper.skip_assignments and _ASSIGN.match(token):
            i += 1
            continue
        if skipped < wrapper.skip_positionals:
            skipped += 1
            i += 1
            continue
        return args[i:]
    return []


def _takes_next(wrapper: Wrapper, token: str) -> bool:
    """Whether option `token` consumes the next word: `-u root`, `-Eu root`, not `-uroot`."""
    if token.startswith("--"):
        return "=" not in token and token in wrapper.value_options
    for j, letter in enumerate(token[1:], start=1):
        if "-" + letter in wrapper.value_options:
            return j == len(token) - 1  # a value glued on (-uroot) leaves the next word alone
    return False


def handle(
    analyzer: Analyzer, name: str, args: list[str], dynamic: list[bool], rules: RuleSet, depth: int
) -> bool:
    """Analyse what `name args` runs when it runs something else; True when fully handled."""
    if runners.handle(analyzer, name, args, dynamic, rules, depth):
        return True
    if name == "git":  # -c core.pager=…, -c alias.x=… (git runs them with its sh everywhere)
        expanded = configured.git(analyzer, args, depth)
        if expanded is not None:
            analyzer.argv(expanded, [False] * len(expanded), rules, depth + 1)
            return True
    if inline.interpreter_of(name) is not None:
        inline.check(analyzer, name, args, rules.family, depth)
        return False  # the interpreter's own verdict (it runs code) still applies
    if name == "parallel" and rules.family == "posix":
        return _parallel(analyzer, args, rules, depth)
    if name in _AWKS and rules.family == "posix":
        from termwise.agent.safety import awkscript  # only awk needs it: keeps start-up lean

        program = awkscript.program_of(args)
        for command in awkscript.commands_run(program or ""):
            analyzer.text(command, "posix", depth + 1)
        return False  # the awk rules (runs commands, writes files) still apply
    if name == "busybox" and args and not args[0].startswith("-"):
        if args[0] in POSIX_SHELLS | {"hush"}:  # busybox sh -c '…'
            return _posix_shell(analyzer, args[0], args[1:], depth)
        analyzer.argv(args, dynamic or [False] * len(args), rules, depth + 1)  # busybox rm -rf
        return True
    # docker exec db psql …, kubectl exec pod -- rm …: the command runs in the container;
    # tmux new-session 'make test': the line runs in a new pane
    inside = launchers.container_command(name, args)
    line = " ".join(shlex.quote(w) for w in inside) if inside else launchers.tmux_line(name, args)
    if line:
        analyzer.text(line, "posix", depth + 1)
        return False  # the launcher's own verdict still applies
    kept_by, kept = launchers.kept_lines(name, args, rules.family)  # trap '…', schtasks /tr …
    for line in kept:
        analyzer.text_for(line, kept_by, depth + 1, f"{name} runs `{line}`")
    if kept:
        return False  # its own verdict (it schedules, defines an alias …) still applies
    wrapper = rules.wrappers.get(name)
    if wrapper is not None:
        return _wrapper(analyzer, wrapper, args, dynamic, rules, depth)
    if name in POSIX_SHELLS:
        return _posix_shell(analyzer, name, args, depth)
    if name in POWERSHELLS:
        return _powershell(analyzer, name, args, depth)
    if name == "cmd":
        return _cmd(analyzer, args, depth)
    if name == "wsl":
        return _wsl(analyzer, args, rules, depth)
    if name == "runas" and rules.family != "posix":
        analyzer.add("confirm", "elevated", "runs a program as another user")
        program = [a for a in args if not a.startswith("/")]
        if program:
            analyzer.text(program[-1], "cmd", depth + 1)
        return True
    if name in _ASSIGNERS and rules.family == "posix":
        _assigner(analyzer, name, args, rules, depth)
        return True
    if name in ("source", ".") and rules.family == "posix":
        target = next((a for a in args if not a.startswith("-")), "")
        analyzer.add(
            "confirm", "runs-script", f"runs the commands in {target or 'a file'} in this shell"
        )
        _substituted_script(analyzer, target, depth)
        return True
    if name == "eval" and rules.family == "posix":
        if args:
            analyzer.text(" ".join(args), "posix", depth + 1)
        return True
    if name in ("invoke-expression", "iex") and rules.family == "powershell":
        return _iex(analyzer, args, depth)
    if name in ("start-process", "saps", "start") and rules.family == "powershell":
        return _start_process(analyzer, args, depth)
    if name == "find" and rules.family == "posix":
        _find_exec(analyzer, args, rules, depth)
    return False


def _wrapper(
    analyzer: Analyzer,
    wrapper: Wrapper,
    args: list[str],
    dynamic: list[bool],
    rules: RuleSet,
    depth: int,
) -> bool:
    inner = _unwrap(wrapper, args)
    own = args[: len(args) - len(inner)]  # the wrapper's options; the rest is the command's
    if wrapper.info_flags and any(a in wrapper.info_flags for a in own):
        analyzer.add("safe", "known-safe", f"{wrapper.name} {' '.join(own[:1])}")
        return True
    if wrapper.level != "safe":
        analyzer.add(wrapper.level, wrapper.name, wrapper.message)
    for i, token in enumerate(args):
        option, eq, value = token.partition("=")
        if option in wrapper.command_options:
            line = value if eq else (args[i + 1] if i + 1 < len(args) else "")
            if wrapper.name == "env":  # env -S 'A=1 cmd' more args: the split words come first
                line = f"{line} {_requote(args[i + (1 if eq else 2) :])}".strip()
            analyzer.text(line, rules.family, depth + 1)
            return True
    if inner and wrapper.joins:
        analyzer.text(" ".join(inner), rules.family, depth + 1)
    elif inner:
        analyzer.argv(inner, dynamic[len(args) - len(inner) :], rules, depth + 1)
    elif wrapper.level == "safe":
        analyzer.add("safe", "known-safe", wrapper.name)
    return True


def _posix_shell(analyzer: Analyzer, name: str, args: list[str], depth: int) -> bool:
    skip = False
    for i, token in enumerate(args):
        if skip:
            skip = False
            continue
        if token in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            skip = True  # the next word is the option's value, not a script
            continue
        if token.startswith("-") and not token.startswith("--") and "c" in token[1:]:
            if i + 1 < len(args):
                analyzer.text(args[i + 1], "posix", depth + 1)
            else:
                analyzer.add("confirm", "unparsed", f"{name} -c without a command")
            return True
        if token in ("--version", "--help", "-h"):
            analyzer.add("safe", "known-safe", f"{name} {token}")
            return True
        if token.startswith("-") or token.startswith("+"):
            continue
        analyzer.add("confirm", "runs-script", f"{name} runs the script {token}")
        _substituted_script(analyzer, token, depth)
        return True
    analyzer.add("confirm", "starts-shell", f"{name} runs whatever commands it reads next")
    return True


def _substituted_script(analyzer: Analyzer, target: str, depth: int) -> None:
    """`source <(echo '…')`, `bash <(printf …)`: what the substituted command prints, when
    plain to see, is the script that runs."""
    if not (target.startswith("<(") and target.endswith(")")):
        return
    from termwise.agent.safety.posix import parse_posix  # posix imports the engine's parts
    from termwise.agent.safety.shellwords import piped_text

    script = parse_posix(target[2:-1])
    text = piped_text(script.pipelines[-1][-1]) if script.pipelines else None
    if text is not None:
        analyzer.text(text, "posix", depth + 1)


def _powershell(analyzer: Analyzer, name: str, args: list[str], depth: int) -> bool:
    i = 0
    while i < len(args):
        token = args[i]
        if len(token) > 1 and token[0] in "-/":
            param, colon, inline = token[1:].partition(":")
            param = param.lower()
            if colon and param in _PS_COMMAND | _PS_ENCODED | _PS_FILE:
                args = [*args[:i], token[: len(param) + 1], inline, *args[i + 1 :]]  # -Command:x
            if param in _PS_COMMAND:
                rest = " ".join(args[i + 1 :])
                if rest.strip() in ("-", ""):
                    analyzer.add(
                        "confirm", "starts-shell", f"{name} runs commands read from its input"
                    )
                else:
                    analyzer.text(rest, "powershell", depth + 1)
                return True
            if param in _PS_ENCODED:
                _encoded(analyzer, args[i + 1] if i + 1 < len(args) else "", depth)
                return True
            if param in _PS_FILE:
                target = args[i + 1] if i + 1 < len(args) else ""
                analyzer.add("confirm", "runs-script", f"{name} runs the script {target}")
                return True
            if param in _PS_VALUED:
                if (
                    param.startswith("e")
                    and i + 1 < len(args)
                    and args[i + 1].lower() in ("bypass", "unrestricted")
                ):
                    analyzer.add(
                        "confirm", "execution-policy-bypass", "runs with script signing checks off"
                    )
                i += 2
                continue
            i += 1
            continue
        if token.lower().endswith(".ps1"):
            analyzer.add("confirm", "runs-script", f"{name} runs the script {token}")
        else:
            analyzer.text(" ".join(args[i:]), "powershell", depth + 1)
        return True
    analyzer.add("confirm", "starts-shell", f"{name} runs whatever commands it reads next")
    return True


def _encoded(analyzer: Analyzer, payload: str, depth: int) -> None:
    """-EncodedCommand carries base64 of UTF-16LE text: decode it and check what it says."""
    try:
        raw = base64.b64decode(payload + "=" * (-len(payload) % 4), validate=True)
        decoded = raw.decode("utf-16-le")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        analyzer.add(
            "confirm", "encoded-command", "runs hidden PowerShell that could not be decoded"
        )
        return
    analyzer.add("confirm", "encoded-command", f"runs hidden PowerShell: {decoded[:120]}")
    analyzer.text(decoded, "powershell", depth + 1)


_PS_QUIET = frozenset({"-noprofile", "-nop", "-noninteractive", "-noni", "-nologo"})


def stdin_shell(words: list[str]) -> Family | None:
    """The shell family that runs what is piped into this command, when it reads its
    commands there: a bare `cmd` (no /c or /k), or `powershell` with no command or `-`."""
    if not words:
        return None
    name = words[0].replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
    args = [a.lower() for a in words[1:]]
    if name == "cmd":
        reads = all(a.startswith("/") and a[:2] not in ("/c", "/k", "/r") for a in args)
        return "cmd" if reads else None
    if name in POWERSHELLS:
        rest = [a for a in args if a not in _PS_QUIET]
        return "powershell" if rest in ([], ["-"], ["-command", "-"], ["-c", "-"]) else None
    return None


def _cmd(analyzer: Analyzer, args: list[str], depth: int) -> bool:
    for i, token in enumerate(args):
        low = token.lower()
        if low[:2] in ("/c", "/k", "/r"):
            inner = " ".join([token[2:], *args[i + 1 :]]).strip()
            if inner:
                analyzer.text(inner, "cmd", depth + 1)
            else:
                analyzer.add("confirm", "starts-shell", "cmd /c without a command")
            return True
        if not low.startswith("/"):
            analyzer.text(" ".join(args[i:]), "cmd", depth + 1)
            return True
    analyzer.add("confirm", "starts-shell", "cmd runs whatever commands it reads next")
    return True


def _wsl(analyzer: Analyzer, args: list[str], rules: RuleSet, depth: int) -> bool:
    i = 0
    while i < len(args):
        token = args[i]
        low = token.lower()
        if token == "--":
            analyzer.text(_requote(args[i + 1 :]), "posix", depth + 1)
            return True
        if low in ("-e", "--exec"):
            analyzer.argv(args[i + 1 :], [False] * len(args[i + 1 :]), _posix_rules(), depth + 1)
            return True
        if low in ("--unregister", "--uninstall"):
            analyzer.add(
                "dangerous", "wsl-unregister", "deletes a WSL distribution and all its files"
            )
            return True
        if low in ("-l", "--list", "--status", "--version", "-v", "--help"):
            analyzer.add("safe", "known-safe", f"wsl {token}")
            return True
        if low in ("-d", "--distribution", "-u", "--user", "--cd"):
            i += 2
            continue
        if token.startswith("-"):
            analyzer.add("confirm", "changes", f"wsl {token} changes the WSL set-up")
            return True
        analyzer.text(_requote(args[i:]), "posix", depth + 1)
        return True
    analyzer.add("confirm", "starts-shell", "wsl opens a Linux shell")
    return True


def _assigner(analyzer: Analyzer, name: str, args: list[str], rules: RuleSet, depth: int) -> None:
    """`export NAME=value`, `unset NAME`: shell state only, unless the name hijacks programs."""
    names: list[str] = []
    words: list[str] = []
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
        elif arg[:1] in "-+" and arg.endswith("o") and not arg.startswith("--"):
            skip_next = True  # set -o pipefail / -euo pipefail: an option name, not a word
        elif not arg.startswith(("-", "+")):
            (names if _ASSIGN.match(arg + "=") or "=" in arg else words).append(
                arg.split("=", 1)[0]
            )
            if "=" in arg:  # export PAGER='rm -rf ~': the command it arms is judged
                configured.variable(analyzer, arg, None, depth)
    if name == "set" and (names or words):
        analyzer.add("confirm", "changes", "set with words replaces the positional parameters")
        return
    flagged = False
    for var in names:
        for env_rule in rules.env:
            if env_rule.names.match(var):
                analyzer.add(env_rule.level, env_rule.id, f"{var}: {env_rule.message}")
                flagged = True
    if not flagged:
        analyzer.add("safe", "known-safe", f"{name} only changes this shell's variables")


def _requote(words: list[str]) -> str:
    """Rebuild a Linux command line from Windows-side words (wsl keeps each word whole)."""
    import shlex

    return " ".join(
        shlex.quote(w) if any(c.isspace() or c in "'\";&|<>()`" for c in w) else w for w in words
    )


def _posix_rules() -> RuleSet:
    from termwise.agent.safety.rules import load_rules

    return load_rules("posix")


def _iex(analyzer: Analyzer, args: list[str], depth: int) -> bool:
    code = [a for a in args if not (a.startswith("-") and a[1:].lower() in _PS_COMMAND)]
    if not code:
        analyzer.add("confirm", "dynamic-code", "runs code that arrives through the pipeline")
    elif any(a.startswith("$") for a in code):
        analyzer.add("confirm", "dynamic-code", "runs code held in a variable")
    else:
        analyzer.text(" ".join(code), "powershell", depth + 1)
    return True


def _start_process(analyzer: Analyzer, args: list[str], depth: int) -> bool:
    named: dict[str, str] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token.startswith("-") and len(token) > 1:
            param = token[1:].lower()
            if param in ("wait", "nonewwindow", "passthru", "usenewenvironment"):
                i += 1
                continue
            value = args[i + 1] if i + 1 < len(args) else ""
            i += 2
            while value.endswith(",") and i < len(args):  # an array: "/c", "del x"
                value += " " + args[i]
                i += 1
            named[param] = value
            continue
        positional.append(token)
        i += 1
    target = next((v for k, v in named.items() if "filepath".startswith(k)), None)
    arguments = next(
        (v for k, v in named.items() if "argumentlist".startswith(k) or k == "args"), None
    )
    if target is None and positional:
        target = positional.pop(0)
    if arguments is None and positional:
        arguments = " ".join(positional)
    verb = next((v for k, v in named.items() if "verb".startswith(k)), "")
    if verb.lower() == "runas":
        analyzer.add("confirm", "elevated", "starts a program with administrator rights")
    if not target:
        analyzer.add("confirm", "unparsed", "Start-Process without a program")
        return True
    line = target + (" " + arguments.replace("','", " ").replace(",", " ") if arguments else "")
    analyzer.text(line, "cmd", depth + 1)
    return True


_FIND_DELETERS = frozenset({"rm", "unlink", "shred", "srm"})


def _find_exec(analyzer: Analyzer, args: list[str], rules: RuleSet, depth: int) -> None:
    """`find … -exec CMD {} ;` runs CMD on every match: check CMD like any other command."""
    i = 0
    while i < len(args):
        if args[i] in _FIND_EXEC:
            j = i + 1
            while j < len(args) and args[j] not in (";", "\\;", "+"):
                j += 1
            inner = args[i + 1 : j]
            if inner:
                analyzer.argv(inner, [False] * len(inner), rules, depth + 1)
                if "{}" in inner and inner[0].rsplit("/", 1)[-1] in _FIND_DELETERS:
                    # -exec rm {} deletes what find finds, as -delete would: judge it so
                    rest = [*args[:i], *args[j + 1 :], "-delete"]
                    analyzer.argv(["find", *rest], [False] * (len(rest) + 1), rules, depth + 1)
            i = j
        i += 1


# GNU parallel options that take the next word as their value.
_PARALLEL_VALUED = frozenset(
    {
        "-j",
        "--jobs",
        "-P",
        "--max-procs",
        "-S",
        "--sshlogin",
        "--results",
        "--res",
        "-a",
        "--arg-file",
        "-d",
        "--delimiter",
        "-I",
        "-N",
        "-n",
        "--max-args",
        "--joblog",
        "--tmpdir",
        "--workdir",
        "--wd",
        "--colsep",
        "-C",
        "-E",
        "--timeout",
        "--delay",
        "--retries",
        "--basefile",
        "--env",
        "--tag-string",
        "--sshloginfile",
        "--slf",
        "-L",
        "--max-lines",
    }
)
_PARALLEL_SOURCES = frozenset({":::", "::::", ":::+", "::::+"})
MAX_PARALLEL_INPUTS = 12


def _parallel(analyzer: Analyzer, args: list[str], rules: RuleSet, depth: int) -> bool:
    """`parallel CMD {} ::: a b` runs CMD once per input: check it with each input put in."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] not in _PARALLEL_SOURCES:
        token = args[i]
        i += 2 if token in _PARALLEL_VALUED else 1
    rest = args[i:]
    cut = next((j for j, w in enumerate(rest) if w in _PARALLEL_SOURCES), len(rest))
    template, tail = rest[:cut], rest[cut:]
    inputs = [w for w in tail if w not in _PARALLEL_SOURCES][:MAX_PARALLEL_INPUTS]
    if not template:
        if inputs and tail[0] == ":::":
            for line in inputs:  # parallel ::: 'cmd one' 'cmd two': each input is a command
                analyzer.text(line, rules.family, depth + 1)
        else:
            analyzer.add(
                "confirm", "runs-input", "parallel runs each line of its input as a command"
            )
        return True
    values: list[str | None] = [*inputs] if inputs else [None]
    for value in values:
        words = list(template)
        if value is not None:
            if any("{}" in w for w in words):
                words = [w.replace("{}", value) for w in words]
            else:
                words.append(value)
        analyzer.argv(words, [False] * len(words), rules, depth + 1)
    return True
