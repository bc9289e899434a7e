"""The arguments of a call in an inline script, read as far as they are literal: where an
argument ends, a string literal's content, a list literal's words. Anything built at run
time reads as COMPUTED."""

from __future__ import annotations

import re

COMPUTED = "$COMPUTED"  # a path only known when the script runs
_STRING = re.compile(
    r"""[rRbBuUfF]{0,2}(?:'''(?P<t1>.*?)'''|\"\"\"(?P<t2>.*?)\"\"\"|'(?P<s>(?:[^'\\\n]|\\.)*)'"""
    r"""|"(?P<d>(?:[^"\\\n]|\\.)*)"|`(?P<b>[^`]*)`)""",
    re.DOTALL,
)


def first_argument(code: str, start: int) -> str:
    """The text of the first argument of a call whose arguments start at `start`."""
    return _scan_argument(code, start, stop_at_comma=True)


def first_arguments_text(code: str, start: int) -> str:
    """Every argument of the call up to its closing parenthesis."""
    return _scan_argument(code, start, stop_at_comma=False)


def _scan_argument(code: str, start: int, stop_at_comma: bool) -> str:
    depth = 0
    quote = ""
    i = start
    end = min(len(code), start + 2000)
    while i < end:
        ch = code[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif ch in ",;\n" and depth == 0 and (stop_at_comma or ch != ","):
            break
        i += 1
    return code[start:i]


def string_literal(arg: str) -> str | None:
    """The content of `arg` when it starts with a string literal ('x', "x", r'x', f"x", `x`)."""
    text = arg.strip()
    match = _STRING.match(text)
    if match is None:
        return None
    body = next((g for g in match.groups() if g is not None), "")
    prefix = text[: len(text) - len(text.lstrip("rRbBuUfF"))]
    if "r" in prefix.lower():
        return body  # r'C:\Users\u': a raw string keeps its backslashes
    return _unescape(body)


def concatenated(arg: str) -> bool:
    text = arg.strip()
    match = _STRING.match(text)
    return match is not None and text[match.end() :].strip() != ""


def list_literal(arg: str) -> list[str]:
    """The words of a list literal (["rm", "-rf", path]); non-literal items become COMPUTED."""
    text = arg.strip()
    if not text or text[0] not in "[(":
        return []
    return literal_words(split_items(first_arguments_text(text, 1)))[:200]


def literal_words(items: list[str]) -> list[str]:
    """Each item's string literal; an item built at run time becomes COMPUTED."""
    words: list[str] = []
    for item in items:
        literal = string_literal(item)
        words.append(literal if literal is not None and not concatenated(item) else COMPUTED)
    return words


def split_items(body: str) -> list[str]:
    items: list[str] = []
    start = 0
    while start < len(body):
        item = _scan_argument(body, start, stop_at_comma=True)
        if item.strip():
            items.append(item)
        start += len(item) + 1
        if len(items) > 200:
            break
    return items


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    # Known escapes are read; others keep their backslash (C:\Users stays a Windows path).
    known = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "`": "`", "$": "$", " ": " "}
    return re.sub(r"\\(.)", lambda m: known.get(m.group(1), m.group(0)), body)
