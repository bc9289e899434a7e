"""Command lines held in a variable or an alias set earlier on the same line, then run:
`x="rm -rf ~"; $x`, `c='…'; eval "$c"`, PowerShell's `$c = '…'; iex $c` and
`Set-Alias x Remove-Item; x -Recurse C:\\` and `$p = @{Path = 'C:\\'}; Remove-Item @p`, cmd's `set x=rd /s /q C:\\ & call %x%` (or `!x!`).

Only literal values are held (nothing computed when the line runs); the use is rewritten
into the line it stands for, to be judged as a line of its own.
"""

from __future__ import annotations

import re
import shlex

from termwise.agent.safety.model import Command, Family
from termwise.agent.safety.shellwords import printed_text

MAX_LINE = 20_000  # characters of a rewritten line; $x $x $x … must not grow it squared
_LITERAL = re.compile(r"[^$`]*")  # no expansion inside: the value is what runs
_PS_ALIAS_SETTERS = frozenset({"set-alias", "sal", "new-alias", "nal"})
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_REFS = {
    "posix": re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))"),
    "powershell": re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))"),
    "cmd": re.compile(r"%([A-Za-z_][\w.-]*)%|!([A-Za-z_][\w.-]*)!"),  # !x!: delayed expansion
}


class Held:
    """What earlier commands on the line left in variables and aliases."""

    __slots__ = ("aliases", "splats", "values")

    def __init__(self) -> None:
        self.values: dict[str, str] = {}  # variable → its literal value (folded on Windows)
        self.aliases: dict[str, str] = {}  # PowerShell alias → the command it names
        self.splats: dict[str, list[str]] = {}  # PowerShell table → the parameters it passes

    def record(self, command: Command, family: Family) -> None:
        """Note the variables a plain assignment sets and the aliases Set-Alias makes."""
        words = command.words
        if words and family == "powershell":
            self._ps_alias(words)
        if words and family == "posix" and words[0] in _DECLARERS:  # export x='…'
            for word, computed in zip(words[1:], command.dynamic[1:], strict=False):
                name, eq, value = word.partition("=")
                if eq and not word.startswith("-"):
                    self._set(name, None if computed else value, family)
        if words:
            return
        for assignment in command.assignments:
            if family == "powershell":
                name, value = assignment.lstrip("$"), command.stdin_text
                if command.splat is not None:
                    self.splats[name.lower()] = command.splat
                else:
                    self.splats.pop(name.lower(), None)
            else:
                name, _, value = assignment.partition("=")
                if command.nested:
                    value = None  # x=$(…): computed when it runs
            self._set(name, value, family)

    def _set(self, name: str, value: str | None, family: Family) -> None:
        key = _key(name, family)
        if value is not None and value.strip() and _LITERAL.fullmatch(value):
            self.values[key] = value
        else:
            self.values.pop(key, None)  # reassigned to something unknown

    def _ps_alias(self, words: list[str]) -> None:
        if words[0].lower() not in _PS_ALIAS_SETTERS:
            return
        named: dict[str, str] = {}
        plain: list[str] = []
        it = iter(words[1:])
        for word in it:
            if word.startswith("-") and word[1:].lower() in ("name", "value", "n", "v"):
                named[word[1:2].lower()] = next(it, "")
            elif not word.startswith("-"):
                plain.append(word)
        name = named.get("n") or (plain.pop(0) if plain else "")
        target = named.get("v") or (plain.pop(0) if plain else "")
        if name and target:
            self.aliases[name.lower()] = target

    def line_for(
        self, words: list[str], dynamic: list[bool], family: Family
    ) -> tuple[str, str] | None:
        """The command line `words` stand for with held values put in, and why; None when
        nothing held is used."""
        if family == "powershell" and not dynamic[0] and words[0].lower() in self.aliases:
            target = self.aliases[words[0].lower()]
            line = " ".join([target, *(_ps_quote(w) for w in words[1:])])
            return line, f"`{words[0]}` is an alias of {target}"
        if family == "powershell" and self.splats:
            splatted = self._splatted(words)
            if splatted is not None:
                return splatted
        if not self.values or not any(dynamic):
            return None
        used: list[tuple[str, str]] = []
        parts: list[str] = []
        size = 0
        for i, (word, computed) in enumerate(zip(words, dynamic, strict=False)):
            new = self._put_in(word, family, used) if computed else word
            size += len(new)
            if size > MAX_LINE:
                return None  # too big to read: the expansion stays unknown (confirm)
            if family == "cmd":
                parts.append(new)  # cmd expands %x% as text, before it reads the line
            elif family == "posix" and i == 0 and new != word:
                # an unquoted expansion as the command is split into words, and nothing
                # else: quotes and `;` inside the value are plain characters
                parts += [shlex.quote(w) for w in self._split(new)]
            else:
                parts.append(shlex.quote(new) if family == "posix" else _ps_quote(new))
        if not used:
            return None
        shown = ", ".join(f"`{ref}` is `{value}`" for ref, value in used[:3])
        return " ".join(parts), f"{shown}, as set earlier on the line"

    def _splatted(self, words: list[str]) -> tuple[str, str] | None:
        """`Remove-Item @p` with the parameters of the table `$p` held earlier put in."""
        parts: list[str] = []
        used = ""
        for word in words:
            splat = self.splats.get(word[1:].lower()) if word.startswith("@") else None
            if splat is None:
                parts.append(_ps_quote(word))
                continue
            parts += [_ps_quote(w) for w in splat]
            used = used or f"`{word}` passes `{' '.join(splat)}`"
        if not used:
            return None
        return " ".join(parts), f"{used}, as set earlier on the line"

    def printed(self, command: Command) -> str | None:
        """What `echo "$x"` (or printf) writes when each expansion in it is a held value, to
        be read as a script when it is piped into a shell: `echo "$x" | sh`."""
        words = command.words
        if not self.values or not words or words[0] not in ("echo", "printf"):
            return None
        out: list[str] = []
        for word, computed in zip(words, command.dynamic, strict=False):
            if computed:
                used: list[tuple[str, str]] = []
                word = self._put_in(word, "posix", used)
                if not used or _REFS["posix"].search(word) or "$(" in word or "`" in word:
                    return None  # something not held is still to be expanded
            out.append(word)
        return printed_text(out)

    def _put_in(self, word: str, family: Family, used: list[tuple[str, str]]) -> str:
        grown = 0

        def value(match: re.Match[str]) -> str:
            nonlocal grown
            held = self.values.get(_key(match.group(1) or match.group(2), family))
            if held is None or grown > MAX_LINE:
                return match.group(0)
            grown += len(held)
            used.append((match.group(0), held))
            return held

        return _REFS[family].sub(value, word)

    def _split(self, text: str) -> list[str]:
        """Word splitting: on IFS when the line set one, else on blanks."""
        ifs = self.values.get("IFS")
        if ifs:
            text = "".join(" " if ch in ifs else ch for ch in text)
        return text.split()


def _key(name: str, family: Family) -> str:
    return name if family == "posix" else name.lower()


def _ps_quote(word: str) -> str:
    if word and re.fullmatch(r"[\w:\\/.~*?=+,@-]+", word):
        return word
    return "'" + word.replace("'", "''") + "'"
