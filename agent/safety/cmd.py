"""A cmd.exe tokenizer: `&`, `&&`, `||`, `|`, `^` escapes, quotes, redirections, ( ) blocks, if/for."""

from __future__ import annotations

import re

from termwise.agent.safety.model import Command, Redirect, Script

_GLUED_SWITCH = re.compile(r"([A-Za-z]+)([/].*)")
_CD_DOTS = re.compile(r"(cd|chdir)(\.\.?.*|\\.*)", re.IGNORECASE)
_IF_CONDITION = {"exist": 2, "defined": 2, "errorlevel": 2, "cmdextversion": 2}
_COMPARE = {"equ", "neq", "lss", "leq", "gtr", "geq"}
MAX_DEPTH = 40


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
                pipeline.extend(_statement(command))
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
            elif ch == "(" and word is None and not command.words:
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


def _statement(command: Command) -> list[Command]:
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
        return _statement(_slice(command, 1))
    if head == "for":
        lowered = [w.lower() for w in words]
        if "do" in lowered:
            return _statement(_slice(command, lowered.index("do") + 1))
    if head == "if":
        return _statement(_slice(command, _if_body(words)))
    if head == "else" and len(words) > 1:
        return _statement(_slice(command, 1))
    return [command]


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
