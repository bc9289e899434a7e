"""Reads sed's command line and scripts closely enough to tell what a sed call may write or run."""

from __future__ import annotations

_VALUE_SHORT = "efl"  # -e SCRIPT, -f FILE, -l N take a value (in the same word or the next)
_LONG_VALUE = ("--expression", "--file", "--line-length")
_IN_PLACE_SHORT = "iI"  # -i[SUFFIX] (GNU), -I (BSD): the rest of the word is a suffix


def sed_effects(
    args: list[str], dynamic: list[bool], lines: list[str] | None = None
) -> list[tuple[str, str]]:
    """(rule id, message) for each way this sed call changes things; empty when it only
    reads. `lines` gets the command lines its `e COMMAND`s run."""
    scripts, found = _split(args, dynamic)
    for script in scripts:
        effect = script_effect(script, lines)
        if effect:
            found.append(effect)
    return found


def _split(args: list[str], dynamic: list[bool]) -> tuple[list[str], list[tuple[str, str]]]:
    """The script texts of a sed call, and the problems its options alone show."""
    scripts: list[str] = []
    found: list[tuple[str, str]] = []
    positional: list[tuple[str, bool]] = []
    saw_script = False
    i = 0
    while i < len(args):
        word, is_dynamic = args[i], i < len(dynamic) and dynamic[i]
        nxt = args[i + 1] if i + 1 < len(args) else ""
        nxt_dynamic = i + 1 < len(dynamic) and dynamic[i + 1]
        if word == "--":
            positional.extend(
                (a, i + 1 + k < len(dynamic) and dynamic[i + 1 + k])
                for k, a in enumerate(args[i + 1 :])
            )
            break
        if word.startswith("--") and len(word) > 2:
            name, eq, value = word.partition("=")
            full = next((o for o in _LONG_VALUE if o.startswith(name)), "") if len(name) > 3 else ""
            if full and not eq:
                value, i = nxt, i + 1
                is_dynamic = nxt_dynamic
            if full == "--expression":
                scripts.append(value)
                saw_script = True
                if is_dynamic:
                    found.append(("sed-dynamic-script", "the sed script comes from an expansion"))
            elif full == "--file":
                saw_script = True
                found.append(
                    (
                        "sed-script-file",
                        "runs a sed script from a file (it may write or run commands)",
                    )
                )
        elif word.startswith("-") and len(word) > 1:
            for j, letter in enumerate(word[1:], start=1):
                if letter in _IN_PLACE_SHORT:
                    break  # in-place is a flag rule of its own; the rest is a suffix
                if letter in _VALUE_SHORT:
                    value = word[j + 1 :]
                    if not value:
                        value, i = nxt, i + 1
                        is_dynamic = nxt_dynamic
                    if letter == "e":
                        scripts.append(value)
                        saw_script = True
                        if is_dynamic:
                            found.append(
                                ("sed-dynamic-script", "the sed script comes from an expansion")
                            )
                    elif letter == "f":
                        saw_script = True
                        found.append(
                            (
                                "sed-script-file",
                                "runs a sed script from a file (it may write or run commands)",
                            )
                        )
                    break
        else:
            positional.append((word, is_dynamic))
        i += 1
    if not saw_script and positional:
        text, is_dynamic = positional[0]
        scripts.append(text)
        if is_dynamic:
            found.append(("sed-dynamic-script", "the sed script comes from an expansion"))
    return scripts, found


def script_effect(script: str, lines: list[str] | None = None) -> tuple[str, str] | None:
    """The first command of a sed script that writes a file or runs a program, if any."""
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;{}!" or c.isdigit() or c in ",$~+":
            i += 1
            continue
        if c == "/" or c == "\\":  # an address /re/ or \%re%
            if c == "\\":
                i += 1
            i = _skip_delimited(script, i) + 1
            while i < n and script[i] in "IM":
                i += 1
            continue
        if c == "#":
            i = _line_end(script, i)
            continue
        if c == "s":
            if i + 1 >= n:
                return None
            end = _skip_delimited(script, _skip_delimited(script, i + 1))
            i = end + 1
            while i < n and script[i] not in ";\n}":
                flag = script[i]
                if flag in "wW":
                    return ("sed-writes", "this sed script writes to a file (s///w)")
                if flag == "e":
                    return ("sed-runs", "this sed script runs commands (s///e)")
                i += 1
            continue
        if c == "y":
            i = _skip_delimited(script, _skip_delimited(script, i + 1)) + 1
            continue
        if c in "wW":
            return ("sed-writes", "this sed script writes to a file (w)")
        if c == "e":
            line = script[i + 1 : _line_end(script, i)].strip()
            if lines is not None and line:  # `e COMMAND` runs COMMAND (a bare e: the line read)
                lines.append(line)
            return ("sed-runs", "this sed script runs commands (e)")
        if c in "aicrRbtT:vF" or c == "q" or c == "Q" or c == "l" or c == "L":
            # text, file names and labels run to the end of the line (labels also to ';')
            if c in "aic":
                i = _text_end(script, i + 1)
            else:
                i = _line_end(script, i) if c in "rR" else _label_end(script, i + 1)
            continue
        i += 1
    return None


def _skip_delimited(text: str, start: int) -> int:
    """Index of the closing delimiter of the part that opens with text[start]."""
    if start >= len(text):
        return len(text)
    delim, i = text[start], start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == delim:
            return i
        i += 1
    return len(text)


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _text_end(text: str, start: int) -> int:
    """End of the text of a/i/c: `a\\` starts it on the next line; a trailing `\\` continues it."""
    i = start
    while i < len(text) and text[i] in " \t":
        i += 1
    if text.startswith("\\\n", i):
        i += 2
    while True:
        end = _line_end(text, i)
        if end >= len(text) or end == 0 or text[end - 1] != "\\":
            return end
        i = end + 1


def _label_end(text: str, start: int) -> int:
    i = start
    while i < len(text) and text[i] not in ";\n}":
        i += 1
    return i
