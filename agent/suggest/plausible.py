"""Is a model's "command" a command line at all? Cheap checks that catch weak-model output.

Small models put sentences where the command goes, stop in the middle of a quoted
string, or mistake a file glob for a grep pattern (`ls | grep -i "*.json"` for "list the
JSON files"). `implausible` names such a mistake so the suggestion can be dropped with a
note; anything it is unsure about passes (the safety check still rates what is shown).
"""

from __future__ import annotations

import re

MAX_COMMAND_CHARS = 4000

POSIX_SHELLS = {"bash", "zsh", "sh", "dash", "ksh", "fish", "wsl", "git-bash"}
POWERSHELLS = {"pwsh", "powershell"}

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Words that open an English sentence but never a command line.
_PROSE_OPENERS = {
    "the", "this", "that", "these", "those", "to", "you", "your", "use", "using", "here",
    "here's", "i", "i'm", "it", "it's", "sorry", "note", "please", "unfortunately",
    "first,", "next,", "finally,", "alternatively,", "assuming", "answer:", "command:",
    "sure", "sure,", "certainly", "certainly,", "yes,", "no,", "we", "let's", "a", "an",
}  # fmt: skip
_PLAIN_WORD = re.compile(r"[A-Za-z][a-z']*[,;:.!?]?|\d+")
_SHELL_CHARS = re.compile(r"[|&;<>$=/\\*`\"'(){}\[\]~-]")
_SENTENCE_END = re.compile(r"[A-Za-z]{2,}[.!?]$")
_GREP_TOOLS = {"grep", "egrep", "zgrep", "rg", "ag", "ack"}
_PS_GREP = {"select-string", "sls"}
# Options of those tools that take the next word as their value.
_GREP_VALUE_OPTS = {
    "-A", "-B", "-C", "-m", "-d", "-D", "-f", "-g", "-t", "-T", "-j", "-M",
    "--include", "--exclude", "--exclude-dir", "--glob", "--iglob", "--type", "--type-not",
    "--max-count", "--context", "--after-context", "--before-context", "--file",
    "--threads", "--max-columns", "--encoding", "--ignore-dir", "--path", "-Path",
    "-LiteralPath", "-Encoding", "-Context", "-Include", "-Exclude",
}  # fmt: skip
_FIXED = {"-F", "--fixed-strings", "--literal", "-Q", "-SimpleMatch"}
_PATTERN_OPTS = {"-e", "--regexp", "-Pattern"}
_WRAPPERS = {"sudo", "doas", "env", "nice", "time", "command", "xargs"}
_HEREDOC = re.compile(r"<<-?\s*['\"]?[A-Za-z_]")
_GLOB_PATTERN = re.compile(r"\*+[\w.*?-]*")


def implausible(command: str, shell: str = "bash") -> str | None:
    """Why `command` cannot be a real command line for `shell`; None when it may be one."""
    if len(command) > MAX_COMMAND_CHARS:
        return f"longer than {MAX_COMMAND_CHARS} characters"
    if _CONTROL.search(command):
        return "it holds control characters"
    shell = (shell or "bash").lower()
    words = command.split()
    if not words:
        return "it is empty"
    quotes = _unbalanced(command, shell)
    if quotes:
        return quotes
    if _prose(words, command):
        return "it reads as a sentence, not a command"
    glob = _grep_glob(command, shell)
    if glob:
        return f"grep takes a pattern, not a file glob ({glob})"
    return None


# -- quotes --------------------------------------------------------------------------


def _unbalanced(text: str, shell: str) -> str | None:
    if shell in POWERSHELLS:
        return _unbalanced_pwsh(text)
    if shell == "cmd":
        return "an unclosed double quote" if text.count('"') % 2 else None
    return _unbalanced_posix(text)


def _unbalanced_posix(text: str) -> str | None:
    if _HEREDOC.search(text):  # the body below the first line is data, quoted or not
        text = text.split("\n", 1)[0]
    i, n = 0, len(text)
    word_start = True
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            word_start = False
            continue
        if ch == "#" and word_start:
            nl = text.find("\n", i)
            if nl < 0:
                return None  # a comment to the end
            i = nl
            continue
        if ch == "'" or (ch == "$" and text.startswith("$'", i)):
            ansi = ch == "$"
            i += 2 if ansi else 1
            while i < n and text[i] != "'":
                i += 2 if ansi and text[i] == "\\" else 1
            if i >= n:
                return "an unclosed single quote"
        elif ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            if i >= n:
                return "an unclosed double quote"
        elif ch == "`":
            close = text.find("`", i + 1)
            if close < 0:
                return "an unclosed backquote"
            i = close
        word_start = ch in " \t\n;&|("
        i += 1
    return None


def _unbalanced_pwsh(text: str) -> str | None:
    i, n = 0, len(text)
    word_start = True
    while i < n:
        ch = text[i]
        if ch == "`":
            i += 2
            word_start = False
            continue
        if ch == "#" and word_start:
            nl = text.find("\n", i)
            if nl < 0:
                return None
            i = nl
            continue
        if ch in "'\"":
            i += 1
            while i < n:
                c = text[i]
                if c == "`" and ch == '"':
                    i += 2
                    continue
                if c == ch:
                    if text.startswith(ch * 2, i):  # doubled: an escaped quote
                        i += 2
                        continue
                    break
                i += 1
            if i >= n:
                return "an unclosed " + ("single" if ch == "'" else "double") + " quote"
        word_start = ch in " \t\n;|({"
        i += 1
    return None


# -- prose ---------------------------------------------------------------------------


def _prose(words: list[str], text: str) -> bool:
    plain = sum(1 for w in words if _PLAIN_WORD.fullmatch(w))
    mostly_words = plain >= 0.75 * len(words)
    first = words[0]
    if first.lower() in _PROSE_OPENERS and len(words) >= 3 and plain >= 0.6 * len(words):
        return True
    capitalised = first[:1].isupper() and first[1:].islower() and first.isalpha()
    if not (capitalised and len(words) >= 4 and mostly_words):
        return False
    # "List the five largest files" or "Run it again." — but not `Get-ChildItem -Force`.
    return bool(_SENTENCE_END.search(text)) or not _SHELL_CHARS.search(text)


# -- grep with a glob ------------------------------------------------------------------


def _grep_glob(text: str, shell: str) -> str | None:
    """The glob given to a grep-like tool as its pattern, if any."""
    for segment in re.split(r"\|\|?|&&|;|\n", text):
        words = _words(segment)
        while words and (words[0] in _WRAPPERS or re.match(r"^\w+=", words[0])):
            words = words[1:]
        if not words:
            continue
        tool = re.split(r"[\\/]", words[0])[-1].lower()
        if tool.endswith(".exe"):
            tool = tool[:-4]
        if tool not in _GREP_TOOLS and tool not in _PS_GREP:
            continue
        pattern = _grep_pattern(words[1:])
        if pattern is not None and _GLOB_PATTERN.fullmatch(pattern):
            return pattern
    return None


def _grep_pattern(args: list[str]) -> str | None:
    pattern: str | None = None
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in _FIXED or (arg.startswith("-") and not arg.startswith("--") and "F" in arg):
            return None  # a fixed string may well contain a star
        if arg in _PATTERN_OPTS:
            return args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("-") and len(arg) > 1:
            skip = arg in _GREP_VALUE_OPTS
            continue
        if pattern is None:
            pattern = arg
    return pattern


def _words(segment: str) -> list[str]:
    """Split on blanks outside quotes and drop the quotes (enough to find a pattern)."""
    words: list[str] = []
    cur: list[str] = []
    quote = ""
    in_word = False
    for ch in segment:
        if quote:
            if ch == quote:
                quote = ""
            else:
                cur.append(ch)
        elif ch in "'\"":
            quote = ch
            in_word = True
        elif ch in " \t":
            if in_word:
                words.append("".join(cur))
                cur, in_word = [], False
        else:
            cur.append(ch)
            in_word = True
    if in_word:
        words.append("".join(cur))
    return words
