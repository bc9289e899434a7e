"""The words of one Tcl command (`exec rm -rf ~`, `file delete -force /`): Tcl runs
programs with words, not with a call on a string, so its scripts are read word by word."""

from __future__ import annotations

from termwise.agent.safety.literals import COMPUTED
from termwise.agent.safety.shellwords import c_escapes

MAX_CHARS = 4000  # one command's text read at most: a one-liner, bounded for hostile input
MAX_WORDS = 64
_ENDS = ";\n]"
# `$env(HOME)` is the home folder; any other `$…` or `[…]` is computed when the script runs.
_HOME = ("$env(HOME)", "$::env(HOME)", "${env(HOME)}")


def command_words(code: str, start: int) -> list[str]:
    """The words from `start` to the end of that command (`;`, a newline or the `]` of a
    substitution); a word holding a variable or a substitution is COMPUTED."""
    text = code[start : start + MAX_CHARS]
    words: list[str] = []
    i, n = 0, len(text)
    while i < n and len(words) < MAX_WORDS:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n or text[i] in _ENDS:
            break
        if text[i] == "\\" and text[i + 1 : i + 2] == "\n":
            i += 2  # a continued line
            continue
        if text[i] == "{":
            word, i = _braced(text, i)
        else:
            word, i = _plain(text, i)
        words.append(word)
    return words


def _braced(text: str, i: int) -> tuple[str, int]:
    """`{…}`: literal, nested braces kept; an unclosed one runs to the end."""
    depth, j, n = 0, i, len(text)
    while j < n:
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j], j + 1
        j += 1
    return text[i + 1 :], n


def _plain(text: str, i: int) -> tuple[str, int]:
    """A bare or "quoted" word, escapes decoded as C's are (Tcl's are the same); `$` or
    `[` make it COMPUTED."""
    quoted = text[i] == '"'
    j, n = i + 1 if quoted else i, len(text)
    out: list[str] = []
    computed = False
    nest = 0
    while j < n:
        ch = text[j]
        if quoted and ch == '"' and nest == 0:
            j += 1
            break
        if not quoted and nest == 0 and (ch in " \t" or ch in _ENDS):
            break
        if ch == "\\" and j + 1 < n:
            out.append(text[j : j + 2])  # decoded with the rest of the word, below
            j += 2
            continue
        if ch == "[":
            nest += 1
            computed = True
        elif ch == "]" and nest:
            nest -= 1
        elif ch == "$":
            home = next((h for h in _HOME if text.startswith(h, j)), None)
            if home is not None:
                out.append("~")
                j += len(home)
                continue
            computed = True
        out.append(ch)
        j += 1
    return (COMPUTED if computed else c_escapes("".join(out))), j
