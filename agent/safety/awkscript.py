"""Reads an awk program closely enough to find the shell commands it runs.

awk runs commands three ways: `system(cmd)`, `print … | "cmd"` (a pipe to a command, which is
a whole script when the command is a shell) and `"cmd" | getline`. Where those commands are
string literals (or variables set from literals), they are returned for the checker to judge.
Anything computed from input stays unknown; the awk-runs-commands rule still asks for those.
"""

from __future__ import annotations

import re

from termwise.agent.safety.recurse import POSIX_SHELLS

_VALUE_OPTIONS = frozenset({"-F", "-v", "-f", "--field-separator", "--assign", "--file"})
_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "\\": "\\",
    '"': '"',
    "/": "/",
    "r": "",
    "a": "",
    "b": "",
    "v": "",
}
_MAX_PROGRAM = 20_000  # a longer program is judged by the plain rules alone
_MAX_FOUND = 32  # commands looked at per program; past that the plain rules judge it
_MAX_VALUE = 64  # tokens in one literal value: keeps hostile programs linear
# A token: a string literal, a word, `|&`, or one character of punctuation.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z_0-9]*|\|&|\|\||[^\sA-Za-z_0-9"]')
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def program_of(args: list[str]) -> str | None:
    """The program text of an awk command line (None when it comes from a file with -f)."""
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return args[i + 1] if i + 1 < len(args) else None
        if word in ("-f", "--file") or word.startswith(("-f", "--file=")):
            return None
        if word in _VALUE_OPTIONS:
            i += 2
            continue
        if word.startswith("-") and len(word) > 1:
            i += 1
            continue
        return word
    return None


def commands_run(program: str) -> list[str]:
    """The literal shell commands the program runs (the scripts it pipes into shells included)."""
    if len(program) > _MAX_PROGRAM:
        return []
    tokens = _TOKEN.findall(program)
    names = _assignments(tokens)
    found: list[str] = []
    statement: list[str] = []
    for token in [*tokens, ";"]:
        if len(found) >= _MAX_FOUND:
            break
        if token in (";", "{", "}", "\n"):
            _statement(statement, names, found)
            statement = []
        else:
            statement.append(token)
    return found


def _assignments(tokens: list[str]) -> dict[str, str]:
    """Variables set to a literal (`cmd = "rm -rf /"`); the last literal assignment wins."""
    names: dict[str, str] = {}
    for i in range(len(tokens) - 2):
        if _WORD.fullmatch(tokens[i]) and tokens[i + 1] == "=" and (i == 0 or tokens[i - 1] != "="):
            end = i + 2
            limit = min(len(tokens), end + _MAX_VALUE)
            while end < limit and tokens[end] not in (";", "{", "}", ")", ","):
                end += 1
            value = _value(tokens[i + 2 : end], {})
            if value is not None:
                names[tokens[i]] = value
    return names


def _statement(tokens: list[str], names: dict[str, str], found: list[str]) -> None:
    for i, token in enumerate(tokens):
        if len(found) >= _MAX_FOUND:
            return
        if token == "system" and i + 1 < len(tokens) and tokens[i + 1] == "(":
            close = _closing(tokens, i + 1)
            command = _value(tokens[i + 2 : close], names)
            if command:
                found.append(command)
        elif token in ("|", "|&"):
            after = tokens[i + 1 :]
            if after[:1] == ["getline"]:  # "cmd" | getline: the command is what comes before
                command = _value(_operand_before(tokens, i), names)
                if command:
                    found.append(command)
                continue
            target = _value(_operand_after(after), names)
            if not target:
                continue
            found.append(target)
            if _is_shell(target):
                script = _printed(tokens[max(0, i - _MAX_VALUE) : i], names)
                if script:
                    found.append(script)


def _closing(tokens: list[str], open_at: int) -> int:
    depth = 0
    for j in range(open_at, min(len(tokens), open_at + _MAX_VALUE + 2)):
        if tokens[j] == "(":
            depth += 1
        elif tokens[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return min(len(tokens), open_at + _MAX_VALUE + 2)


def _operand_before(tokens: list[str], at: int) -> list[str]:
    start = at
    while start > max(0, at - _MAX_VALUE) and (
        tokens[start - 1].startswith('"') or _WORD.fullmatch(tokens[start - 1])
    ):
        start -= 1
    return tokens[start:at]


def _operand_after(tokens: list[str]) -> list[str]:
    if tokens[:1] == ["("]:
        return tokens[1 : _closing(tokens, 0)]
    end = 0
    while end < len(tokens) and (tokens[end].startswith('"') or _WORD.fullmatch(tokens[end])):
        end += 1
    return tokens[:end]


def _printed(tokens: list[str], names: dict[str, str]) -> str | None:
    """What `print …` / `printf …` writes (print joins its arguments with a space)."""
    for i, token in enumerate(tokens):
        if token in ("print", "printf"):
            body = tokens[i + 1 :]
            if body[:1] == ["("] and _closing(body, 0) == len(body) - 1:
                body = body[1:-1]
            parts = [_value(part, names) for part in _split_commas(body)]
            if not parts or any(p is None for p in parts):
                return None
            joiner = "" if token == "printf" else " "
            return joiner.join(p for p in parts if p is not None)
    return None


def _split_commas(tokens: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    depth = 0
    for token in tokens:
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        if token == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _value(tokens: list[str], names: dict[str, str]) -> str | None:
    """A concatenation of literals and literal-valued variables, or None when anything is computed."""
    tokens = [t for t in tokens if t not in ("(", ")")]
    if not tokens or len(tokens) > _MAX_VALUE:
        return None
    out: list[str] = []
    for token in tokens:
        if token.startswith('"'):
            out.append(_unescape(token[1:-1]))
        elif token in names:
            out.append(names[token])
        else:
            return None
    return "".join(out)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def _is_shell(command: str) -> bool:
    """Whether a pipe target is a shell reading its script from the pipe (`sh`, `sudo bash -e`)."""
    words = command.split()
    while words and words[0] in ("sudo", "doas", "env", "exec", "command"):
        words = words[1:]
    if not words or words[0].rsplit("/", 1)[-1] not in POSIX_SHELLS:
        return False
    rest = words[1:]
    if "-c" in rest:
        return False
    # `sh -s args` reads its script from the pipe; `sh ./filter.sh` runs a file and reads data
    return "-s" in rest or all(w.startswith("-") for w in rest)
