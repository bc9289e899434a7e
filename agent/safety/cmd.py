"""A cmd.exe tokenizer: `&`, `&&`, `||`, `|`, `^` escapes, quotes, redirections, ( ) blocks, if/for."""

from __future__ import annotations

import re
from collections.abc import Iterator

from termwise.agent.safety.model import Command, Redirect, Script

_GLUED_SWITCH = re.compile(r"([A-Za-z]+)([/].*)")
_CD_DOTS = re.compile(r"(cd|chdir)(\.\.?.*|\\.*)", re.IGNORECASE)
_IF_CONDITION = {"exist": 2, "defined": 2, "errorlevel": 2, "cmdextversion": 2}
_COMPARE = {"equ", "neq", "lss", "leq", "gtr", "geq"}
MAX_DEPTH = 40
MAX_ITEMS = 64  # items of a `for` set put in for its variable
MAX_WORDS = 256


def parse_cmd(text: str) -> Script:
    """Parse a cmd.exe command line into the shared model; never raises."""
    parser = _Parser(text)
    return parser.script(depth=0, in_group=False)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def script(self, depth: int, in_group: bool) -> Script:
        script = Script()
        if depth > MAX_DEPTH:
            script.problems.append("cmd blocks nested too deeply")
            self.i = len(self.text)
            return script
        pipeline: list[Command] = []
        command = Command()
        word: list[str] | None = None
        dynamic = False
        redirect: str | None = None
        text, n = self.text, len(self.text)

        def end_word() -> None:
            nonlocal word, dynamic, redirect
            if word is None:
                return
            value = "".join(word)
            if redirect is not None:
                command.redirects.append(Redirect(redirect, value, dynamic))
                redirect = None
            else:
                command.add_word(value, dynamic)
            word, dynamic = None, False

        def end_command(end_pipeline: bool) -> None:
            nonlocal command, pipeline
            end_word()
            if command.words or command.redirects or command.nested:
                pipeline.extend(_statement(command, depth))
            command = Command()
            if end_pipeline and pipeline:
                script.pipelines.append(pipeline)
                pipeline = []

        while self.i < n:
            ch = text[self.i]
            if (ch in " \t\r,=" and word is None) or ch in " \t\r":
                end_word()
                self.i += 1
            elif ch == "^":
                word = word if word is not None else []
                word.append(text[self.i + 1 : self.i + 2])
                self.i += 2
            elif ch == '"':
                end = text.find('"', self.i + 1)
                end = n if end < 0 else end
                chunk = text[self.i + 1 : end]
                dynamic = dynamic or "%" in chunk or "!" in chunk
                word = word if word is not None else []
                word.append(chunk)
                self.i = end + 1
            elif ch in "%!" and re.match(r"[%!][^%!\s]+[%!]", text[self.i :]):
                match = re.match(r"[%!][^%!\s]+[%!]", text[self.i :])
                assert match is not None
                word = word if word is not None else []
                word.append(match.group(0))
                dynamic = True
                self.i += match.end()
            elif ch == "@" and word is None and not command.words:
                self.i += 1  # @ only hides the echo of the command
            elif ch == "(" and word is None and _block_starts(command.words):
                self.i += 1
                command.nested.append(self.script(depth + 1, in_group=True))
            elif ch == ")" and in_group:
                self.i += 1
                end_command(end_pipeline=True)
                return script
            elif (
                ch in "<>"
                or (
                    ch in "0123456789"  # isdigit() also takes "²", which no redirection starts with
                    and word is None
                    and text[self.i + 1 : self.i + 2] in "<>"
                    and self.i + 1 < n
                )
            ):
                end_word()
                match = re.match(r"\d?(>>|>|<)(&\d)?", text[self.i :])
                assert match is not None
                self.i += match.end()
                if not match.group(2):
                    redirect = match.group(1)
            elif ch in "&|\n":
                double = text[self.i + 1 : self.i + 2] == ch and ch != "\n"
                self.i += 2 if double else 1
                end_command(end_pipeline=not (ch == "|" and not double))
            else:
                word = word if word is not None else []
                word.append(ch)
                self.i += 1
        if in_group:
            script.problems.append("missing ')' in cmd")
        end_command(end_pipeline=True)
        return script


def _statement(command: Command, depth: int) -> list[Command]:
    """Unfold `if …`/`for … do`/`rem`, split glued switches (`rd/s/q`), drop call's keyword."""
    words = command.words
    if not words:
        return [command]
    head = words[0].lower()
    if head in ("rem", "::") or head.startswith("::"):
        return []
    glued = _GLUED_SWITCH.fullmatch(words[0]) or _CD_DOTS.fullmatch(words[0])
    if glued:
        command.words[0:1] = [glued.group(1), glued.group(2)]
        command.dynamic[0:1] = [command.dynamic[0], False]
        head = command.words[0].lower()
    if head == "set" and len(words) > 1 and "=" in words[1] and not words[1].startswith("/"):
        # set NAME=value: a variable for this cmd session (checked by env rules)
        return [Command(assignments=[" ".join(words[1:])], redirects=command.redirects)]
    if head == "call" and len(words) > 1:
        return _statement(_slice(command, 1), depth)
    if head == "for":
        lowered = [w.lower() for w in words]
        if "do" in lowered:
            do = lowered.index("do")
            body = _slice(command, do + 1)
            _for_header(words[1:do], body, depth)
            return _statement(body, depth)
    if head == "if":
        return _statement(_slice(command, _if_body(words)), depth)
    if head == "else":  # `) else (…)` leaves only the word: the block is nested
        return _statement(_slice(command, 1), depth)
    return [command]


def echoed(command: Command) -> str | None:
    """What `echo …` (or a block of echoes) writes into a pipe, when it is plain to see."""
    if any(command.dynamic):
        return None
    if command.words:
        head = command.words[0].lower()
        return " ".join(command.words[1:]) if head == "echo" and len(command.words) > 1 else None
    texts = [text for end in command.block_ends() if (text := echoed(end)) is not None]
    return "\n".join(texts) if texts else None


def _block_starts(words: list[str]) -> bool:
    """Whether a `(` here opens a block: at a command's start, after `for … do`, after
    a whole `if` condition, or after `else` (elsewhere, as in `in (*.txt)`, it is text)."""
    if not words:
        return True
    head, last = words[0].lower(), words[-1].lower()
    if head == "for":
        return last == "do"
    if head == "if":
        return last == "else" or (len(words) > 1 and _if_body(words) >= len(words))
    return False


def _for_header(header: list[str], body: Command, depth: int) -> None:
    """What `for` hands its body: a `for /f` over a command's output runs that command
    (checked as a block of the body); otherwise the loop variable in the body becomes
    the set's items (`for /r D:\\ %f in (*) do del "%f"` deletes D:\\*)."""
    lowered = [w.lower() for w in header]
    if "in" not in lowered:
        return
    at = lowered.index("in")
    items = " ".join(header[at + 1 :])
    if items.startswith("(") and items.endswith(")"):
        items = items[1:-1].strip()
    if "/f" in lowered[:at]:
        if len(items) > 1 and items[0] in "'`" and items[-1] == items[0]:
            body.nested.append(_Parser(items[1:-1]).script(depth + 1, in_group=False))
        return
    if "/l" in lowered[:at] or at == 0 or not items:
        return
    root = ""
    if "/r" in lowered[:at]:
        after = lowered.index("/r") + 1
        if after < at - 1:  # a folder between /r and the variable
            root = header[after].rstrip("\\") + "\\"
    values = [root + item for item in items.split()[:MAX_ITEMS]]
    variable = re.compile(re.escape(header[at - 1]) + r"(?![A-Za-z0-9_%])")
    # every file of the tree (a pattern like *.pyc stays a clean-up)
    walks = "/r" in lowered[:at] and any(item in ("*", "*.*") for item in items.split())
    for command in _within(body):
        if walks:
            _walk_deletes(command, variable)
        _put_values(command, variable, values)


def _within(command: Command) -> Iterator[Command]:
    """`command` and every command in the blocks it holds."""
    yield command
    for script in command.nested:
        for pipeline in script.pipelines:
            for inner in pipeline:
                yield from _within(inner)


def _walk_deletes(command: Command, variable: re.Pattern[str]) -> None:
    """`for /r … in (*)` visits every file of the tree: a `del` of the loop variable in its
    body deletes in every folder, as `del /s` does, and never asks (it is handed one file at a
    time), as `del /q` does."""
    words = command.words
    if words and words[0].lower() in ("del", "erase") and any(variable.search(w) for w in words):
        words[1:1] = ["/s", "/q"]
        command.dynamic[1:1] = [False, False]


def _put_values(command: Command, variable: re.Pattern[str], values: list[str]) -> None:
    """Each word naming the loop variable, once per value (at most MAX_WORDS words per
    command, so nested loops stay small)."""
    words: list[str] = []
    dynamic: list[bool] = []
    for word, was_dynamic in zip(command.words, command.dynamic, strict=True):
        if not variable.search(word):
            words.append(word)
            dynamic.append(was_dynamic)
            continue
        for value in values[: max(1, MAX_WORDS - len(command.words))]:
            put = variable.sub(value.replace("\\", "\\\\"), word)  # a folder's \ is no escape
            words.append(put)
            dynamic.append("%" in put or "!" in put)
    command.words[:] = words
    command.dynamic[:] = dynamic


def _if_body(words: list[str]) -> int:
    """Index of the first word of the command an `if` runs."""
    i = 1
    while i < len(words) and words[i].lower() in ("/i", "not"):
        i += 1
    if i < len(words) and words[i].lower() in _IF_CONDITION:
        return i + _IF_CONDITION[words[i].lower()]
    if i < len(words) and "==" in words[i]:
        return i + 1
    if i + 2 < len(words) and (words[i + 1].lower() in _COMPARE or words[i + 1] == "=="):
        return i + 3
    return i + 1


def _slice(command: Command, start: int) -> Command:
    return Command(
        words=command.words[start:],
        dynamic=command.dynamic[start:],
        redirects=command.redirects,
        nested=command.nested,
    )
