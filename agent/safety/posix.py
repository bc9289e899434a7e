"""bash/zsh parsing: bashlex for the real grammar, a tolerant scanner when bashlex gives up."""

from __future__ import annotations

import re
from contextvars import ContextVar
from functools import cache
from typing import Any

from termwise.agent.safety.model import Command, Finding, Redirect, Script
from termwise.agent.safety.shellwords import c_escapes

# Words made only of these characters need no shell grammar: split on blanks.
_PLAIN = re.compile(r"[A-Za-z0-9_./:=,@%+~^\-\t ]*")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_DYNAMIC_KINDS = ("parameter", "commandsubstitution", "processsubstitution")
# Longer inputs skip bashlex: it is slow on them and a human would not review them anyway.
MAX_GRAMMAR_CHARS = 8000


def parse_posix(text: str) -> Script:
    """Parse a bash/zsh command line into the shared model; never raises."""
    if _PLAIN.fullmatch(text):
        return _plain(text)
    if "$'" in text:
        text = _ANSI_C.sub(_ansi_c_to_single_quotes, text)
    if "$((" in text:  # bashlex has no arithmetic: a plain sum is a number to it
        text = _ARITH.sub(_arith_value, text)
    text, bodies = cut_heredocs(text)
    script = _grammar(text)
    if bodies:
        _restore_heredocs(script, bodies)
    return script


def _grammar(text: str) -> Script:
    if len(text) > MAX_GRAMMAR_CHARS:
        script = tolerant_parse(text)
        script.problems.append(f"too long to parse fully ({len(text)} characters)")
        return script
    try:
        nodes = _bashlex().parse(text)
    except Exception as exc:  # bashlex raises many types (NotImplementedError, IndexError …)
        script = tolerant_parse(text)
        if script.pipelines:  # nothing at all left means a comment or blank: "empty" says it
            script.problems.append(f"bash grammar not understood ({_short(exc)})")
        return script
    script = Script()
    token = _source.set(text)
    try:
        for node in nodes:
            _statement(node, script)
    finally:
        _source.reset(token)
    return script


@cache
def _bashlex() -> Any:
    """bashlex, with its one known endless loop closed: a ${ with no } after it in a word
    ('${'x, x'${', ${python -c '…) makes its parameter expansion restart at the word's start
    for ever, allocating gigabytes. Such a word now fails to parse, as bash would refuse it."""
    import bashlex
    from bashlex import errors, subst

    original = subst._paramexpand

    def paramexpand(parserobj: Any, string: str, sindex: int) -> Any:
        if string.startswith("${", sindex) and string.find("}", sindex + 2) < 0:
            raise errors.ParsingError("bad substitution: no closing }", string, sindex)
        return original(parserobj, string, sindex)

    subst._paramexpand = paramexpand
    return bashlex


# The text bashlex parsed, for reading a word again where bashlex dequotes it wrongly.
_source: ContextVar[str] = ContextVar("bash_source", default="")


def _word(part: Any) -> str:
    """A word as bash sees it. bashlex drops every backslash inside "…", where bash keeps
    those that escape nothing ("C:\\Users" stays C:\\Users), and keeps the one in '\\''
    (an escaped quote between quoted parts); such words are read again by the forgiving
    scanner, which follows bash's quoting rules."""
    word: str = part.word
    start, end = getattr(part, "pos", (0, 0))
    raw = _source.get()[start:end]
    # bashlex also keeps the backslash of 'it'\''s (a quote closed, escaped, reopened), and
    # the quotes of a '…' part that follows a "…" part ("r"'m' → r'm', not rm)
    odd = ('"' in raw or "'\\''" in raw) and "\\" in raw
    odd = odd or ('"' in raw and "'" in raw)
    if odd and "$(" not in raw and "`" not in raw:
        words = [w for pipe in tolerant_parse(raw).pipelines for c in pipe for w in c.words]
        if len(words) == 1:
            return words[0]
    return word


# --- here-documents -------------------------------------------------------------------
# Their bodies are cut out before parsing and given back as the command's stdin text: a body
# is data unless the command is a shell or an interpreter (the engine decides), but an
# unquoted delimiter lets $(…) and `…` in the body run, so those are parsed as commands.

_HEREDOC_OP = re.compile(r"""<<(-?)[ \t]*(?:'([^'\n]*)'|"([^"\n]*)"|(\\?)([A-Za-z0-9_.+@%:/-]+))""")
_PLACEHOLDER = re.compile(r"__twhd(\d+)__")


def cut_heredocs(text: str) -> tuple[str, dict[str, tuple[str, bool]]]:
    """Replace each `<<EOF … EOF` with a here-string placeholder; return the bodies by key."""
    if "<<" not in text:
        return text, {}
    out: list[str] = []
    bodies: dict[str, tuple[str, bool]] = {}
    pending: list[tuple[str, bool, str]] = []  # delimiter, strip tabs, key
    i, n, quote = 0, len(text), ""
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"' and i + 1 < n:
                out.append(text[i : i + 2])
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch == "\\" and i + 1 < n:
            out.append(text[i : i + 2])
            i += 2
            continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\n;|&("):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(text[i:end])
            i = end
            continue
        elif ch == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
            match = _HEREDOC_OP.match(text, i)
            if match is not None and (i == 0 or text[i - 1] != "<"):
                quoted = match.group(2) is not None or match.group(3) is not None
                quoted = quoted or bool(match.group(4))
                delimiter = next(
                    g for g in (match.group(2), match.group(3), match.group(5)) if g is not None
                )
                key = f"__twhd{len(bodies)}__"
                bodies[key] = ("", quoted)
                pending.append((delimiter, match.group(1) == "-", key))
                out.append("<<< " + key)
                i = match.end()
                continue
        elif ch == "\n" and pending:
            out.append("\n")
            i += 1
            for delimiter, strip, key in pending:
                lines: list[str] = []
                while i < n:
                    end = text.find("\n", i)
                    end = n if end < 0 else end
                    line = text[i:end]
                    i = end + 1
                    if (line.lstrip("\t") if strip else line) == delimiter:
                        break
                    lines.append(line)
                bodies[key] = ("\n".join(lines), bodies[key][1])
            pending = []
            continue
        out.append(ch)
        i += 1
    return "".join(out), bodies


def _restore_heredocs(script: Script, bodies: dict[str, tuple[str, bool]]) -> None:
    stack = [script]
    seen = 0
    while stack and seen < 10_000:
        current = stack.pop()
        for pipeline in current.pipelines:
            for command in pipeline:
                seen += 1
                stack.extend(command.nested)
                key = command.stdin_text
                if key is None or _PLACEHOLDER.fullmatch(key.strip()) is None:
                    continue
                body, quoted = bodies.get(key.strip(), ("", True))
                command.stdin_text = body
                if not quoted and ("$(" in body or "`" in body):
                    # cat <<EOF with $(rm -rf ~) inside runs the rm while building the text
                    command.nested.append(parse_posix('echo "' + body.replace('"', '\\"') + '"'))


_ARITH = re.compile(r"\$\(\(((?:[^()`]|\((?:[^()`])*\))*)\)\)")


def _arith_value(match: re.Match[str]) -> str:
    """`$((1+2))` → `0`; one holding a command substitution is left for the tolerant parser."""
    return match.group(0) if "$(" in match.group(1) else "0"


_ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'", re.DOTALL)


def _ansi_c_to_single_quotes(match: re.Match[str]) -> str:
    """bash's $'\\x72m' is 'rm': decode it so the parser sees the real word (bashlex cannot)."""
    decoded = c_escapes(match.group(1))
    return "'" + decoded.replace("'", "'\\''") + "'"


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:80]


def _plain(text: str) -> Script:
    script = Script()
    command = Command()
    for word in text.split():
        if not command.words and _ASSIGNMENT.match(word):
            command.assignments.append(word)
        else:
            command.add_word(word)
    if command.words or command.assignments:
        script.pipelines.append([command])
    return script


# --- bashlex tree → model -------------------------------------------------------------


def _statement(node: Any, script: Script) -> None:
    kind = node.kind
    if kind == "list":
        for part in node.parts:
            if part.kind not in ("operator", "reservedword"):
                _statement(part, script)
    elif kind == "pipeline":
        pipeline = [
            _element(part, script)
            for part in node.parts
            if part.kind not in ("pipe", "reservedword")
        ]
        script.pipelines.append(pipeline)
    elif kind in ("operator", "reservedword", "pipe"):
        return
    else:
        script.pipelines.append([_element(node, script)])


def _element(node: Any, script: Script) -> Command:
    if node.kind == "command":
        return _command(node)
    inner = Script()
    if node.kind == "function":
        _function(node, inner, script)
    else:
        for part in _children(node):
            _statement(part, inner)
    command = Command(nested=[inner])
    for redirect in getattr(node, "redirects", None) or ():
        _redirect(redirect, command)
    return command


def _children(node: Any) -> list[Any]:
    if node.kind == "compound":
        return list(node.list)
    parts = list(getattr(node, "parts", None) or ())
    return [p for p in parts if p.kind not in ("reservedword", "operator", "pipe")]


def _function(node: Any, inner: Script, outer: Script) -> None:
    name = node.name.word
    body = Script()
    _statement(node.body, body)
    # A function that pipes into itself and is run again is the classic fork bomb.
    if any(
        len(pipe) > 1 and sum(1 for c in pipe if c.words[:1] == [name]) >= 1
        for pipe in _all_pipelines(body)
    ):
        outer.findings.append(
            Finding("dangerous", "fork-bomb", f"function {name} keeps spawning copies of itself")
        )
    inner.pipelines.extend(body.pipelines)
    inner.problems.extend(body.problems)


def _all_pipelines(script: Script) -> list[list[Command]]:
    found: list[list[Command]] = []
    for pipe in script.pipelines:
        found.append(pipe)
        for command in pipe:
            for nested in command.nested:
                found.extend(_all_pipelines(nested))
    return found


_LOGIN_SHELL = frozenset({"$SHELL", "${SHELL}"})  # quoted or not: bashlex drops the quotes


def _command(node: Any) -> Command:
    command = Command()
    for part in node.parts:
        if part.kind == "assignment":
            command.assignments.append(part.word)
            _substitutions(part, command)
        elif part.kind == "word":
            dynamic = _substitutions(part, command)
            word = _word(part)
            if not command.words and word in _LOGIN_SHELL:
                word, dynamic = "sh", False  # `… | $SHELL` runs a shell, whichever it is
            command.add_word(word, dynamic)
        elif part.kind == "redirect":
            _redirect(part, command)
    return command


def _substitutions(word: Any, command: Command) -> bool:
    """Collect `$( )`, backticks and `<( )` inside a word; tell whether it expands."""
    dynamic = False
    for part in getattr(word, "parts", None) or ():
        if part.kind in _DYNAMIC_KINDS:
            dynamic = True
        if part.kind in ("commandsubstitution", "processsubstitution"):
            inner = Script()
            _statement(part.command, inner)
            command.nested.append(inner)
        elif getattr(part, "parts", None):
            dynamic = _substitutions(part, command) or dynamic
    return dynamic


def _redirect(node: Any, command: Command) -> None:
    if node.type in ("<<", "<<-"):
        body = getattr(getattr(node, "heredoc", None), "value", "") or ""
        command.stdin_text = body.rsplit("\n", 1)[0] if "\n" in body else ""
        return
    if node.type == "<<<":
        command.stdin_text = getattr(node.output, "word", "")
        return
    target = node.output
    if not isinstance(getattr(target, "word", None), str):
        return  # descriptor duplication such as 2>&1, or closing one (>&-)
    dynamic = _substitutions(target, command)
    command.redirects.append(Redirect(node.type, target.word, dynamic))


# --- tolerant scanner -----------------------------------------------------------------

_SEPARATORS = {"\n", ";", "&", "|", "(", ")", "{", "}"}
# Unquoted at a command's start, these open or close a compound command (`select`, an
# arithmetic `for ((…))` and other shapes bashlex refuses); the command follows them.
_RESERVED = frozenset(
    {"if", "then", "elif", "else", "fi", "while", "until", "do", "done", "esac", "!"}
)


MAX_NESTING = 30


def tolerant_parse(text: str, depth: int = 0) -> Script:
    """A forgiving split into commands for input bashlex refuses; unterminated quotes run to the end."""
    script = Script()
    if depth > MAX_NESTING:
        # Deeper substitutions are read flat: their commands still count, without recursion.
        text = re.sub(r"\$\(|[`()]", " ; ", text)
    _Scanner(text, script, depth).run()
    return script


class _Scanner:
    """Character scanner that keeps quoting, substitutions and control operators apart."""

    def __init__(self, text: str, script: Script, depth: int = 0) -> None:
        self.depth = depth
        self.text = text
        self.i = 0
        self.script = script
        self.pipeline: list[Command] = []
        self.command = Command()
        self.word: list[str] | None = None
        self.dynamic = False
        self.quoted = False  # the word holds a quote or escape: never a reserved word
        self.pending_redirect: str | None = None

    def run(self) -> None:
        text = self.text
        n = len(text)
        while self.i < n:
            ch = text[self.i]
            if ch in " \t":
                self._end_word()
                self.i += 1
            elif ch == "#" and self.word is None:
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
            elif ch == "\\":
                self._chars(text[self.i + 1 : self.i + 2])
                self.quoted = True
                self.i += 2
            elif ch == "'":
                self.quoted = True
                end = text.find("'", self.i + 1)
                end = n if end < 0 else end
                self._chars(text[self.i + 1 : end])
                self.i = end + 1
            elif ch == '"':
                self._double_quoted()
            elif ch == "`":
                end = text.find("`", self.i + 1)
                end = n if end < 0 else end
                self._nested(text[self.i + 1 : end])
                self.i = end + 1
            elif ch == "$" and text[self.i + 1 : self.i + 2] == "(":
                self._nested(self._balanced(self.i + 1))
            elif ch == "$":
                self._chars("$")
                self.dynamic = True
                self.i += 1
            elif ch in "<>" and text[self.i + 1 : self.i + 2] == "(":
                self._nested(self._balanced(self.i + 1))
            elif ch in "<>":
                self._redirect_op()
            elif ch in _SEPARATORS:
                self._separator(ch)
            else:
                self._chars(ch)
                self.i += 1
        self._end_command(end_pipeline=True)

    def _chars(self, chars: str) -> None:
        if self.word is None:
            self.word = []
        self.word.append(chars)

    def _double_quoted(self) -> None:
        text, n = self.text, len(self.text)
        self.i += 1
        self._chars("")
        self.quoted = True
        while self.i < n and text[self.i] != '"':
            ch = text[self.i]
            if ch == "\\" and self.i + 1 < n:
                # Inside "…" a backslash escapes only $ ` " \ and newline; before any other
                # character it stays ("C:\Users" keeps its backslash, as bash keeps it).
                nxt = text[self.i + 1]
                if nxt != "\n":
                    self._chars(nxt if nxt in '$`"\\' else "\\" + nxt)
                self.i += 2
            elif ch == "$" and text[self.i + 1 : self.i + 2] == "(":
                self._nested(self._balanced(self.i + 1))
            elif ch == "`":
                end = text.find("`", self.i + 1)
                end = n if end < 0 else end
                self._nested(text[self.i + 1 : end])
                self.i = end + 1
            else:
                if ch == "$":
                    self.dynamic = True
                self._chars(ch)
                self.i += 1
        self.i += 1

    def _balanced(self, start: int) -> str:
        """Return the text inside the parentheses opening at `start`; move past the close."""
        depth, j, n = 0, start, len(self.text)
        quote = ""
        while j < n:
            ch = self.text[j]
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "'\"":
                quote = ch
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    self.i = j + 1
                    return self.text[start + 1 : j]
            j += 1
        self.i = n
        return self.text[start + 1 :]

    def _nested(self, inner: str) -> None:
        self.command.nested.append(tolerant_parse(inner, self.depth + 1))
        self._chars("$(…)")
        self.dynamic = True

    def _redirect_op(self) -> None:
        text = self.text
        op = text[self.i]
        self.i += 1
        if self.word is not None and "".join(self.word).isdigit():
            self.word = None  # the descriptor number belongs to the operator
            self.dynamic = False
        else:
            self._end_word()
        while self.i < len(text) and text[self.i] in ">|&<":
            op += text[self.i]
            self.i += 1
        if op.endswith("&") and text[self.i : self.i + 1].isdigit():
            self.i += 1  # 2>&1: duplication, not a file
            return
        self.pending_redirect = op

    def _separator(self, ch: str) -> None:
        text = self.text
        if ch == "&" and text[self.i + 1 : self.i + 2] == ">":
            self._end_word()
            self._redirect_op()
            return
        pipe = ch == "|" and text[self.i + 1 : self.i + 2] != "|"
        self._end_command(end_pipeline=not pipe)
        self.i += 2 if text[self.i : self.i + 2] in ("&&", "||") else 1

    def _end_word(self) -> None:
        if self.word is None:
            return
        word = "".join(self.word)
        if self.pending_redirect in ("<<<", "<<", "<<-"):
            self.command.stdin_text = word  # a here-string (or a here-document placeholder)
            self.pending_redirect = None
        elif self.pending_redirect is not None:
            self.command.redirects.append(Redirect(self.pending_redirect, word, self.dynamic))
            self.pending_redirect = None
        elif not self.command.words and _ASSIGNMENT.match(word):
            self.command.assignments.append(word)
        elif self.command.words or self.command.assignments or self.quoted or word not in _RESERVED:
            self.command.add_word(word, self.dynamic)
        self.word = None
        self.dynamic = False
        self.quoted = False

    def _end_command(self, end_pipeline: bool) -> None:
        self._end_word()
        command = self.command
        if command.words or command.assignments or command.redirects or command.nested:
            self.pipeline.append(command)
        self.command = Command()
        if end_pipeline and self.pipeline:
            self.script.pipelines.append(self.pipeline)
            self.pipeline = []
