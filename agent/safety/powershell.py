"""A PowerShell tokenizer: statements, pipelines, parameters, strings, groups and script blocks."""

from __future__ import annotations

import re
from typing import NamedTuple

from termwise.agent.base.record import Record
from termwise.agent.safety.model import Command, Finding, Redirect, Script
from termwise.agent.safety.splat import table_parameters

# PowerShell reads typographic quotes and dashes like ASCII ones; so must we.
_SINGLE = "'\u2018\u2019\u201a\u201b"
_DOUBLE = '"\u201c\u201d\u201e'
_STOP = set(" \t\r\n;|&(){}<>") | set(_SINGLE) | set(_DOUBLE)
_METHOD_TARGET = re.compile(r"(\.|::)[A-Za-z_]\w*$")
_REDIRECT = re.compile(r"([1-6*]?)(>>?)(&[12])?")
_ASSIGN_OP = re.compile(r"[-+*/%?]?\?{0,1}=(?!=)")
MAX_DEPTH = 40


class _Word(Record):
    __slots__ = ("bare", "dynamic", "glued_group", "text")

    def __init__(self, text: str, dynamic: bool = False, bare: bool = True) -> None:
        self.text = text
        self.dynamic = dynamic
        self.bare = bare  # unquoted and not a variable: can be a command name
        self.glued_group = False  # directly followed by "(": a method call


class _Op(NamedTuple):
    op: str


class _Group(NamedTuple):
    script: Script
    kind: str  # "(", "$(", "@(", "{", "@{"
    raw: str = ""  # a hashtable's text, for splatting


class _Statement(Record):
    __slots__ = ("tokens",)

    def __init__(self) -> None:
        self.tokens: list[_Word | _Op | _Group | Redirect] = []


def parse_powershell(text: str) -> Script:
    """Parse PowerShell text into the shared model; never raises."""
    parser = _Parser(text)
    script = parser.script(closer="", depth=0)
    if parser.problems:
        script.problems.extend(parser.problems)
    return script


class _Parser:
    """Recursive scanner; `script()` stops at the closing bracket of the group it parses."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.problems: list[str] = []
        self.pending: list[Script] = []  # $(…) met inside the current statement's words

    def _nested(self, closer: str, depth: int, table: bool = False) -> Script:
        saved, self.pending = self.pending, []
        inner = self.script(closer=closer, depth=depth + 1, table=table)
        self.pending = saved
        return inner

    def script(self, closer: str, depth: int, table: bool = False) -> Script:
        script = Script()
        statement = _Statement()
        text, n = self.text, len(self.text)
        if depth > MAX_DEPTH:
            self.problems.append("PowerShell nested too deeply")
            self.i = n
            return script
        while self.i < n:
            ch = text[self.i]
            if closer and ch == closer:
                self.i += 1
                self._finish(statement, script, table)
                return script
            if ch != "\n" and ch.isspace():  # PowerShell counts every Unicode space (NBSP too)
                self.i += 1
            elif ch == "`" and text[self.i + 1 : self.i + 2] in ("\n", "\r"):
                self.i += 2  # line continuation
            elif ch == "#" or text.startswith("<#", self.i):
                self._comment()
            elif ch in "\n;":
                self._finish(statement, script, table)
                statement = _Statement()
                self.i += 1
            elif ch in "|&":
                double = text[self.i + 1 : self.i + 2] == ch
                op = ch * 2 if double else ch
                self.i += 2 if double else 1
                if op in ("&&", "||") or (
                    op == "&" and statement.tokens and not _ends_with_pipe(statement)
                ):
                    self._finish(statement, script, table)
                    statement = _Statement()
                else:
                    statement.tokens.append(_Op(op))
            elif ch in ")}":
                self.problems.append(f"unbalanced {ch!r} in PowerShell")
                self.i += 1
            elif ch in "({" or text.startswith(("$(", "@(", "@{"), self.i):
                self._group(statement, depth)
            elif ch in "<>" or (ch in "123456*" and text[self.i + 1 : self.i + 2] == ">"):
                self._redirect(statement)
            elif statement.tokens and _ASSIGN_OP.match(text, self.i) and _is_target(statement):
                match = _ASSIGN_OP.match(text, self.i)
                assert match is not None
                statement.tokens.append(_Op("="))
                self.i = match.end()
            elif text.startswith("--%", self.i):
                rest_end = text.find("\n", self.i)
                rest_end = n if rest_end < 0 else rest_end
                for word in text[self.i + 3 : rest_end].split():
                    statement.tokens.append(_Word(word, dynamic="%" in word))
                self.i = rest_end
            else:
                statement.tokens.append(self._word(depth))
        if closer:
            self.problems.append(f"missing {closer!r} in PowerShell")
        self._finish(statement, script, table)
        return script

    # --- lexical pieces -----------------------------------------------------------------

    def _comment(self) -> None:
        text = self.text
        if text.startswith("<#", self.i):
            end = text.find("#>", self.i + 2)
            self.i = len(text) if end < 0 else end + 2
        else:
            end = text.find("\n", self.i)
            self.i = len(text) if end < 0 else end

    def _group(self, statement: _Statement, depth: int) -> None:
        text = self.text
        start = self.i
        kind = text[self.i : self.i + 2] if text[self.i] in "$@" else text[self.i]
        self.i += len(kind)
        closer = "}" if kind.endswith("{") else ")"
        inner = self._nested(closer, depth, table=kind == "@{")
        previous = statement.tokens[-1] if statement.tokens else None
        glued = kind == "(" and start > 0 and not text[start - 1].isspace()
        if glued and isinstance(previous, _Word):
            previous.glued_group = _METHOD_TARGET.search(previous.text) is not None
        statement.tokens.append(_Group(inner, kind, text[start : self.i] if kind == "@{" else ""))

    def _redirect(self, statement: _Statement) -> None:
        match = _REDIRECT.match(self.text, self.i)
        if self.text[self.i] == "<" or match is None:
            self.problems.append("'<' is not a PowerShell operator")
            self.i += 1
            return
        self.i = match.end()
        if match.group(3):
            return  # 2>&1 merges streams; no file
        while self.i < len(self.text) and self.text[self.i] in " \t":
            self.i += 1
        target = self._word(0)
        statement.tokens.append(Redirect(match.group(2), target.text, target.dynamic))

    def _word(self, depth: int) -> _Word:
        text, n = self.text, len(self.text)
        parts: list[str] = []
        dynamic = False
        bare = True
        start = self.i
        while self.i < n:
            ch = text[self.i]
            if ch in _SINGLE:
                bare = bare and self.i > start
                self.i += 1
                while self.i < n:
                    if text[self.i] in _SINGLE:
                        if text[self.i + 1 : self.i + 2] in _SINGLE and self.i + 1 < n:
                            parts.append("'")
                            self.i += 2
                            continue
                        break
                    parts.append(text[self.i])
                    self.i += 1
                if self.i >= n:
                    self.problems.append("unterminated string in PowerShell")
                self.i += 1
            elif ch in _DOUBLE:
                bare = bare and self.i > start
                dynamic = self._double(parts, depth) or dynamic
            elif ch == "`":
                parts.append(text[self.i + 1 : self.i + 2])  # `x outside quotes is just x
                self.i += 2
            elif ch == "$" and text[self.i + 1 : self.i + 2] == "(":
                self._subexpression(depth)
                parts.append("$(…)")
                dynamic = True
            elif (
                ch == "$"
                and self.i + 1 < n
                and (text[self.i + 1].isalnum() or text[self.i + 1] in "_{?^:")
            ):
                if self.i == start:
                    bare = False
                dynamic = True
                parts.append(ch)
                self.i += 1
            elif ch in _STOP or ch.isspace():
                break
            elif ch == "=" and parts and parts[0].startswith("$"):
                break
            else:
                parts.append(ch)
                self.i += 1
        word = "".join(parts)
        if word[:1].isdigit() or word[:1] in "[@":
            bare = False  # numbers, [types] and splats are expressions, not command names
        return _Word(word, dynamic, bare)

    def _double(self, parts: list[str], depth: int) -> bool:
        """Read a "…" string (or @"…"@ here-string); $(…) inside runs, `$var` expands."""
        text, n = self.text, len(self.text)
        dynamic = False
        self.i += 1
        while self.i < n:
            ch = text[self.i]
            if ch in _DOUBLE:
                if text[self.i + 1 : self.i + 2] in _DOUBLE and self.i + 1 < n:
                    parts.append('"')
                    self.i += 2
                    continue
                self.i += 1
                return dynamic
            if ch == "`":
                parts.append(_escape(text[self.i + 1 : self.i + 2]))
                self.i += 2
            elif ch == "$" and text[self.i + 1 : self.i + 2] == "(":
                self._subexpression(depth)
                parts.append("$(…)")
                dynamic = True
            else:
                if ch == "$" and text[self.i + 1 : self.i + 2].isalnum():
                    dynamic = True
                parts.append(ch)
                self.i += 1
        self.problems.append("unterminated string in PowerShell")
        return dynamic

    def _subexpression(self, depth: int) -> None:
        self.i += 2
        inner = self._nested(")", depth)
        self.pending.append(inner)

    # --- statements → commands ------------------------------------------------------------

    def _finish(self, statement: _Statement, script: Script, table: bool) -> None:
        pending, self.pending = self.pending, []
        if not statement.tokens and not pending:
            return
        pipeline: list[Command] = []
        element: list[_Word | _Op | _Group | Redirect] = []
        for token in statement.tokens:
            if isinstance(token, _Op) and token.op == "|":
                pipeline.append(_command(element, table))
                element = []
            else:
                element.append(token)
        pipeline.append(_command(element, table))
        if pending:
            pipeline[0].nested.extend(pending)
        script.pipelines.append(pipeline)


def _is_target(statement: _Statement) -> bool:
    """`=` assigns only right after a variable (or a key inside @{ })."""
    last = statement.tokens[-1]
    return isinstance(last, _Word) and (not last.bare or len(statement.tokens) == 1)


def _ends_with_pipe(statement: _Statement) -> bool:
    last = statement.tokens[-1] if statement.tokens else None
    return isinstance(last, _Op) and last.op in ("|", "&", ".")


def _escape(ch: str) -> str:
    return {"n": "\n", "t": "\t", "0": "\0", "a": "\a", "e": "\x1b"}.get(ch, ch)


_KEYWORDS = frozenset(
    "if elseif else foreach for while do until switch try catch finally trap".split()
)


def _command(tokens: list[_Word | _Op | _Group | Redirect], table: bool) -> Command:
    """One pipeline element: a command call, or an expression whose groups still run."""
    command = Command()
    rest = list(tokens)
    if table and rest and isinstance(rest[0], _Word) and "=" in rest[0].text:
        rest = rest[1:]  # key=value in a hashtable: the value is a statement
    if len(rest) >= 2 and isinstance(rest[1], _Op) and rest[1].op == "=":
        first = rest[0]
        if isinstance(first, _Word):
            command.assignments.append(first.text)
        rest = rest[2:]
        if len(rest) == 1 and isinstance(rest[0], _Group) and rest[0].kind == "@{":
            command.splat = table_parameters(rest[0].raw)  # $p = @{…}; Remove-Item @p
    elif table and len(rest) >= 2 and isinstance(rest[1], _Op) and rest[1].op == "=":
        rest = rest[2:]
    call = False
    if rest and isinstance(rest[0], _Op) and rest[0].op in ("&", "."):
        call = True
        rest = rest[1:]
    elif rest and isinstance(rest[0], _Word) and rest[0].text == "." and rest[0].bare:
        call = True  # dot-sourcing: ". ./script.ps1"
        rest = rest[1:]
    if (
        not call
        and len(rest) >= 2
        and isinstance(rest[0], _Word)
        and rest[0].bare
        and rest[0].text.lower() in _KEYWORDS
        and isinstance(rest[1], _Group)
    ):
        rest = rest[1:]  # `if (…) {…}`: a language statement; only its parts run
    head = rest[0] if rest else None
    if call and isinstance(head, _Group) and (named := _named(head.script)) is not None:
        head = _Word(named)  # &("Remove-Item") …, & (gcm Remove-Item) …: the command named
        rest = [head, *rest[1:]]
    is_call = isinstance(head, _Word) and (call or head.bare)
    creates_code = False
    for token in rest:
        if isinstance(token, _Group):
            command.nested.append(token.script)
            if creates_code:  # [scriptblock]::Create('…'): the string becomes code
                command.nested.append(_strings_as_code(token.script))
            creates_code = False
        elif isinstance(token, Redirect):
            command.redirects.append(token)
        elif isinstance(token, _Word):
            if is_call:
                command.add_word(token.text, token.dynamic)
            elif token.glued_group:
                command.nested.append(_method_call(token.text))
                creates_code = _CREATES_CODE.search(token.text) is not None
    if call and isinstance(head, _Group):
        command.nested.append(_call_group())
    if not is_call and len(rest) == 1 and isinstance(head, _Word) and not head.dynamic:
        command.stdin_text = head.text  # a string value; piped into iex it becomes code
    return command


def _method_call(target: str) -> Script:
    """A .NET method call on a value can do anything: report it as its own finding."""
    message = f"calls the .NET method {target}(…), which can change anything"
    return Script(findings=[Finding("confirm", "method-call", message)])


_CREATES_CODE = re.compile(
    r"(?i)(scriptblock\]::create|invokecommand\.(invokescript|newscriptblock))$"
)


def _plain_strings(group: Script) -> list[str | None]:
    """Each statement of a group: its value when it is a plain string, else None."""
    return [
        c.stdin_text if not c.words and not c.assignments else None
        for pipeline in group.pipelines
        for c in pipeline
    ]


def _strings_as_code(group: Script) -> Script:
    """The string values in a group, each run as `Invoke-Expression` would run it."""
    return Script(
        pipelines=[
            [Command(words=["invoke-expression", text], dynamic=[False, False])]
            for text in _plain_strings(group)
            if text is not None
        ]
    )


def _string_of(group: Script) -> str | None:
    """The value of a group that holds one plain string: ("Remove-Item")."""
    values = _plain_strings(group)
    return values[0] if len(values) == 1 else None


# A lookup with a wildcard, (gcm R*-It*m): judged as the most harmful cmdlet it can name.
_HARMFUL = ("remove-item", "clear-content", "format-volume", "clear-disk", "remove-partition",
            "stop-computer", "restart-computer", "invoke-expression", "set-content",
            "stop-process")  # fmt: skip
_LOOKUPS = frozenset({"get-command", "gcm", "get-alias", "gal"})


def _named(group: Script) -> str | None:
    """The command a called group names: a plain string ("Remove-Item"), or a lookup
    (Get-Command Remove-Item), (Get-Alias ri), (gcm R*-It*m)."""
    named = _string_of(group)
    if named is not None:
        return named
    commands = [c for pipeline in group.pipelines for c in pipeline]
    if len(commands) != 1 or any(commands[0].dynamic):
        return None
    words = commands[0].words
    names = [w for w in words[1:] if not w.startswith("-")]
    if not words or words[0].lower() not in _LOOKUPS or len(names) != 1:
        return None
    if any(ch in names[0] for ch in "*?["):
        import fnmatch

        return next((c for c in _HARMFUL if fnmatch.fnmatchcase(c, names[0].lower())), None)
    return names[0]


def _call_group() -> Script:
    message = "runs the result of an expression as a command"
    return Script(findings=[Finding("confirm", "dynamic-command", message)])


# Words that turn a string back into code: with one of these, strings are not data.
_CODE_FROM_STRINGS = re.compile(
    r"(?i)\b(iex|invoke-expression|invoke-command|icm|scriptblock|start-process|start-job|"
    r"saps|powershell|pwsh|add-type|encodedcommand|-command|-c|-e|-ec)\b|&\s*\(|\.\s*\("
)


def code_text(text: str) -> str:
    """The text with comments and single-quoted strings blanked (same length), so pattern
    rules do not fire on data or notes: `Write-Output '[IO.Directory]::Delete(...)'`.
    Unchanged when anything on the line could run a string as code."""
    if "#" not in text and "'" not in text:
        return text
    if _CODE_FROM_STRINGS.search(text):
        return text
    out = list(text)
    i, n = 0, len(text)
    double = False
    while i < n:
        ch = text[i]
        if double:
            if ch == "`":
                i += 2
                continue
            if ch == '"':
                double = False
            i += 1
            continue
        if ch == '"':
            double = True
        elif ch == "'":
            end = i + 1
            while end < n:
                if text[end] == "'" and end + 1 < n and text[end + 1] == "'":
                    end += 2
                    continue
                if text[end] == "'":
                    break
                end += 1
            for k in range(i + 1, min(end, n)):
                out[k] = " "
            i = end + 1
            continue
        elif text.startswith("<#", i):
            end = text.find("#>", i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                out[k] = " " if text[k] != "\n" else "\n"
            i = end
            continue
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\n;|{"):
            end = text.find("\n", i)
            end = n if end < 0 else end
            for k in range(i, end):
                out[k] = " "
            i = end
            continue
        i += 1
    return "".join(out)


def joined_strings(text: str) -> str:
    """`'Remove-Item C:\\ -Re' + 'curse'` as the one string it makes, and `('…')` as `'…'`
    where a command's argument is wrapped: code built from literal pieces is read as the
    code it builds (`iex ('rm -r' + " C:\\")`). Double-quoted pieces count when nothing
    expands in them. One pass over the text."""
    if ("'" not in text and '"' not in text) or ("+" not in text and "(" not in text):
        return text
    spans = _string_spans(text)
    out: list[str] = []
    done = k = 0
    while k < len(spans):
        start, end, value = spans[k]
        if value is None:
            k += 1
            continue
        values = [value]
        while (
            k + 1 < len(spans)
            and spans[k + 1][2] is not None
            and text[end : spans[k + 1][0]].strip() == "+"
        ):
            k += 1
            end, value = spans[k][1], spans[k][2]
            values.append(value or "")
        before = text[done:start].rstrip()
        close = end
        while close < len(text) and text[close] in " \t":
            close += 1
        wrapped = (
            before.endswith("(")
            and text[close : close + 1] == ")"
            and before[:-1][-1:] in ("", " ", "\t", ";", "|", "&", "=", "(", ",")
        )
        if len(values) == 1 and not wrapped:
            k += 1
            continue  # a lone string stays as it was written
        literal = "'" + "".join(values).replace("'", "''") + "'"
        if wrapped:
            out.append(before[:-1] + literal)
            end = close + 1
        else:
            out.append(text[done:start] + literal)
        done = end
        k += 1
    out.append(text[done:])
    return "".join(out)


def _string_spans(text: str) -> list[tuple[int, int, str | None]]:
    """(start, end, value) of each quoted string; value None when something expands in it."""
    spans: list[tuple[int, int, str | None]] = []
    i, n = 0, len(text)
    while i < n:
        quote = text[i]
        if quote not in "'\"":
            i += 1
            continue
        end = i + 1
        while end < n and (text[end] != quote or text[end + 1 : end + 2] == quote):
            end += 2 if text[end] == quote or (quote == '"' and text[end] == "`") else 1
        if end >= n:
            break
        body = text[i + 1 : end]
        if quote == "'":
            spans.append((i, end + 1, body.replace("''", "'")))
        else:
            plain = "$" not in body and "`" not in body
            spans.append((i, end + 1, body.replace('""', '"') if plain else None))
        i = end + 1
    return spans
