"""How a shell turns typed words into what a program gets, as far as the rules need it:
bash's brace lists, PowerShell's comma lists, paths that follow a `cd` or a symlink made
on the line, temp variables set on the line, `$(echo rm)`, rm's -f/-i, and paths made
comparable (`$HOME` → `~`)."""

from __future__ import annotations

import ntpath
import posixpath
import re

from termwise.agent.safety.model import Command, Family


def relative(value: str, family: Family) -> bool:
    """Neither absolute nor from the home folder or a variable (those do not follow cd)."""
    if value[:1] in ("/", "~", "$", "%", "-") or (family != "posix" and value[:1] == "\\"):
        return False
    return not (family != "posix" and len(value) > 1 and value[1] == ":")


def from_folder(folder: str, value: str, family: Family) -> str:
    """`value` read from `folder` (where a `cd` went), unless it names its own place."""
    if not relative(value, family):
        return value
    return (posixpath if family == "posix" else ntpath).join(folder, value)


def expanded(words: list[str], family: Family) -> list[str]:
    """The words the shell hands on: bash's brace lists, PowerShell's comma lists."""
    if family == "posix":  # ~/{.zshrc,x}
        return braced(words)
    if family == "powershell":  # C:\x,C:\Windows is two paths
        return comma_items(words)
    return words


_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
MAX_BRACED = 32


def braced(words: list[str]) -> list[str]:
    """bash's brace expansion of comma lists: /tmp/{a,../etc} is /tmp/a and /tmp/../etc
    (bounded; `{}` and `{x}` stay as they are)."""
    if not any("{" in w for w in words):
        return words
    out: list[str] = []
    pending = list(words)
    while pending and len(out) < MAX_BRACED:
        word = pending.pop(0)
        match = _BRACES.search(word)
        if match is None:
            out.append(word)
            continue
        head, tail = word[: match.start()], word[match.end() :]
        pending[:0] = [head + item + tail for item in match.group(1).split(",")]
    return out + pending


def comma_items(words: list[str]) -> list[str]:
    """PowerShell's `C:\\tmp\\x,C:\\Windows`: each item of a comma list on its own."""
    if not any("," in w for w in words):
        return words
    return [item for w in words for item in (w.split(",") if "," in w else [w]) if item]


def rm_asks(args: list[str]) -> bool:
    """Whether rm prompts after all: a later -i, -I or --interactive overrides -f."""
    last = ""
    for word in args:
        if word == "--":
            break
        if word.startswith("--"):
            if word == "--force":
                last = "f"
            elif word.startswith("--interactive"):
                last = "" if word.partition("=")[2] == "never" else "i"
        elif word.startswith("-"):
            for letter in word[1:]:
                if letter in "fiI":
                    last = letter
    return last in ("i", "I")


MAX_QUOTED_MATCHES = 20  # past this many matches inside strings, assume one is code


def matches_in_code(regex: re.Pattern[str], text: str, scan: str) -> bool:
    """A match of `regex` that starts in code, not inside a comment or a quoted string
    (those are blanked in `scan`); a match starting in code may still read strings (its
    arguments)."""
    if scan is text:
        return regex.search(text) is not None
    for n, match in enumerate(regex.finditer(text)):
        if scan[match.start()] == text[match.start()] or n >= MAX_QUOTED_MATCHES:
            return True
    return False


def symlink_made(words: list[str]) -> tuple[str, str] | None:
    """(target, link) of `ln -s TARGET LINK` (-f, -n and the like allowed), else None."""
    if not words or posixpath.basename(words[0]) != "ln":
        return None
    symbolic = False
    args: list[str] = []
    for word in words[1:]:
        if word == "--symbolic" or (word[:1] == "-" and word[1:2] != "-" and "s" in word):
            symbolic = True
        elif word[:1] == "-":
            if word in ("-t", "-S", "--target-directory", "--suffix") or word.startswith("-t"):
                return None  # ln -t DIR …: links named after their targets
        else:
            args.append(word)
    return (args[0], args[1]) if symbolic and len(args) == 2 else None


def through_links(value: str, links: dict[str, str]) -> str:
    """A path read through a symlink made earlier on the line: after `ln -s /etc /tmp/x`,
    `/tmp/x/.` is `/etc/.`; `/tmp/x` itself is only the link."""
    plain = value
    while plain.startswith("./"):
        plain = plain[2:].lstrip("/")
    for link, target in links.items():
        if plain.startswith(link + "/"):
            return target.rstrip("/") + plain[len(link) :]
    return value


_HOME = re.compile(
    r"^(\$HOME|\$\{HOME\}|\$env:USERPROFILE|%USERPROFILE%|\$env:HOME)(?=$|[\\/])", re.I
)
_TMPDIR = re.compile(r"^\$\{TMPDIR\}(?=$|/)")
_ECHOED = re.compile(
    r"""^(?:\$\(|`)\s*(?:echo|printf)\s+['"]?([A-Za-z0-9_.+-]+)['"]?\s*(?:\)|`)$"""
)
_TEMP_VARS = ("TMPDIR", "TMP", "TEMP")


def echoed_word(word: str) -> str | None:
    """`$(echo rm)` → rm, `` `printf rm` `` → rm: a computed word whose value is in plain sight."""
    match = _ECHOED.match(word)
    return match.group(1) if match else None


def printed_text(words: list[str]) -> str:
    """What `echo …` / `printf …` print, near enough to judge it as a script: options
    dropped, `\\n` read as a line break where they read it, and a `%s\\n` format applied."""
    name, args = words[0], [w for w in words[1:] if not (w[:1] == "-" and len(w) == 2)]
    if name == "printf" and len(args) > 1 and "%s" in args[0]:
        if not args[0].replace("%s", "").replace("\\n", "").strip():
            return "\n".join(args[1:])  # printf '%s\n' 'line one' 'line two'
    text = " ".join(args)
    if name == "printf" or "-e" in words[1:2]:
        # printf '\162\155 -rf ~' | sh runs the `rm` it prints
        text = c_escapes(text, echo=name != "printf")
    return text


# Backslash escapes as bash's $'…' and printf read them: \x72, \u0072, octal \162, \cX
# (control-X) and \n; echo -e writes octal as \0162.
_C_ESCAPE = re.compile(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL
)
_ECHO_ESCAPE = re.compile(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|0[0-7]{0,3}|c.|.)", re.DOTALL
)
_C_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def c_escapes(text: str, echo: bool = False) -> str:
    """`text` with its backslash escapes decoded (`echo`: as echo -e reads octal)."""
    return (_ECHO_ESCAPE if echo else _C_ESCAPE).sub(_c_char, text)


def _c_char(escape: re.Match[str]) -> str:
    body = escape.group(1)
    head = body[0]
    try:
        if head in "xuU" and len(body) > 1:
            return chr(int(body[1:], 16))
        if head in "01234567":
            return chr(int(body, 8) & 0xFF)
    except (ValueError, OverflowError):
        return body
    if head == "c" and len(body) == 2:
        return chr(ord(body[1]) & 0x1F)
    return _C_SIMPLE.get(body, body)


def piped_text(command: Command) -> str | None:
    """What a command writes into a pipe when it is plain to see: `echo`/`printf` words, a
    `cat <<EOF` body, or those of a group `( …; echo … )`, line by line."""
    words = command.words
    if any(command.dynamic):
        return None
    if words:
        if words[0] in ("echo", "printf"):
            return printed_text(words)
        if words[0] == "cat" and command.stdin_text is not None and len(words) == 1:
            return command.stdin_text  # cat <<EOF … EOF | sh: the body is what runs
        return None
    texts = [text for end in command.block_ends() if (text := piped_text(end)) is not None]
    return "\n".join(texts) if texts else None


def temp_assignment(assignments: list[str], words: list[str]) -> list[str]:
    """`TMPDIR=/ rm -rf $TMPDIR/x`: a temp variable set on the line means what it is set to."""
    values = {}
    for assignment in assignments:
        var, _, value = assignment.partition("=")
        if var in _TEMP_VARS:
            values[var] = value
    if not values:
        return words
    out = []
    for word in words:
        for var, value in values.items():
            word = word.replace("${" + var + "}", value)
            word = re.sub(r"\$" + var + r"(?![A-Za-z0-9_])", value.replace("\\", "\\\\"), word)
        out.append(word)
    return out


def normalize_path(value: str, family: Family) -> str:
    """Make path arguments comparable: `$HOME` → `~`, duplicate and trailing separators gone."""
    text = _HOME.sub("~", value.strip())
    text = _TMPDIR.sub("$TMPDIR", text)
    if family == "posix":
        if text.startswith("/"):
            text = "/" + text.lstrip("/")
            text = posixpath.normpath(text)
        elif ".." in text.split("/"):  # $TMPDIR/../x is not under the temp folder
            text = posixpath.normpath(text)
        elif len(text) > 1:
            text = text.rstrip("/") or text
        return text
    text = text.replace("/", "\\").lower()
    if ".." in text.split("\\"):
        text = ntpath.normpath(text)
    text = re.sub(r"\\{2,}", r"\\", text) if not text.startswith("\\\\") else text
    if len(text) > 3 and text.endswith("\\"):
        text = text.rstrip("\\")
    return text
