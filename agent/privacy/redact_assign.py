"""Secrets given a name: `name = value` in code, config, env, JSON, YAML, XML and CLI flags."""

from __future__ import annotations

import re
from collections.abc import Callable

from termwise.agent.privacy.redact_names import (
    inside_marker,
    kind_for_name,
    looks_random,
    vendor_pattern,
    wordy,
)

Marker = Callable[[str], str]

# The regex starts at a key word (fast); the rest of the name is read backwards from there in
# Python. Between the name and the value: an optional type (`var t string = …`, `t: str = …`)
# and any assignment operator (`=`, `:`, `:=`, `::=`, `.=`, `??=`, `=>`, a comma in a call).
_KEYWORDS = (
    r"password|passwd|passphrase|pass|pwd|secret|token|credentials?|creds|salt|cookie|key|auth|"
    r"signature|pat"
)
_TAIL = r"(?P<tail>[\w.-]{0,40}?)"
_TYPE = (
    r"(?P<type>(?:[ \t]+|[ \t]*:[ \t]*)[A-Za-z_][\w.\[\]<>?*&]{0,30}"
    r"(?=[ \t]+(?::{1,3}|[?.+|]{1,2})?=(?![=>])))?"
)
_SEP = (
    r"(?P<sep>[ \t]*(?::{1,3}=|=>|[?+.]=|\?\?=|\|\|=|[:=])[ \t]*(?:!{1,2}[\w/]+[ \t]+)?"
    r"|(?<=[\"'])[ \t]*,[ \t]*(?=[\"'`])|[ \t]+(?=[\"']?[^\s\"'=:]{4,})(?![^\s\"'=:]+[:=](?:\s|$)))"
)
_VAL = (
    r"(?P<val>\\\"(?:(?!\\\")[^\n]){0,400}\\\"|\$\{\{[^}\n]*\}\}|\"(?:[^\"\\\n]|\\.)*\""
    r"|'[^'\n]*'|`[^`\n]*`|\$\{[^}\s]*\}"
    r"|(?:[^\s\"'`&;,]|&(?![A-Za-z][\w.-]*=)|[;,](?![A-Za-z][\w.-]{2,}=))+)"
)
_ASSIGN = re.compile(rf"(?:{_KEYWORDS}){_TAIL}(?P<q1>\\?[\"']?){_TYPE}{_SEP}{_VAL}", re.IGNORECASE)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
PLACEHOLDER = re.compile(
    r"^(?:[|>][-+]?|\$\w+|\$\{.*\}?|\$\(.*|<.*|\[.*|\{\{.*|%\w+%|\{\w*\}|\*+|x+|\.\.\.|…|null|"
    r"nil|none|true|false|yes|no|changeme|change_me|changeit|redacted|secret|password|token|test|"
    r"your[-_ ].*|.*[-_]here|.+(?:\.\.\.|…)|\[REDACTED:.*)$",
    re.IGNORECASE,
)
# An unquoted "value" that is really an expression: a call, a subscript, a known object.
_CODE = re.compile(
    r"[(\[]|^(?:self|this|cls|os|process|config|settings|env|args|opts|options|params|req|"
    r"request|ctx|secrets|vars|var|local|module|data|props|payload|user|creds)\.[A-Za-z_][\w.]*$"
)
# A file path is where a secret is kept, not the secret (`private_key: ~/.ssh/id_rsa`).
PATH = re.compile(
    r"^(?:(?:~|\.{1,2})?/[\w.@-]+(?:/[\w.@-]+)+/?|[A-Za-z]:\\[^\s]*|[\w-]+\.(?:pem|key|json|txt))$"
)
_MARKUP = (
    re.compile(
        r"<(?P<name>[\w:.$-]{0,40}(?:pass|pwd|secret|token|key|credential)[\w:.$-]{0,20})>"
        r"[ \t\r\n]*(?P<v>(?:(?!</)\S){1,400})[ \t\r\n]*</(?P=name)>",
        re.IGNORECASE,
    ),
    re.compile(r"\b(?:key|name)=\"(?P<name>[^\"\n]{1,60})\"[ \t]+value=\"(?P<v>[^\"\n]{1,400})\""),
    # <entry key="token">v</entry>, <property name="db.password">v</property>, .NET
    # <setting name="ApiSecret"><value>v</value></setting>
    re.compile(
        r"<(?P<tag>[\w:.-]{1,40})[ \t][^<>\n]{0,200}?\b(?:key|name)=[\"'](?P<name>[^\"'\n]{1,60})[\"']"
        r"[^<>\n]{0,200}>[ \t\r\n]*(?:<value>[ \t\r\n]*)?(?P<v>(?:(?!</)[^\s<]){1,400})"
        r"[ \t\r\n]*(?:</value>[ \t\r\n]*)?</(?P=tag)>"
    ),
)
# YAML block scalars under a secret-like name: `token: |` + indented lines.
_YAML_BLOCK = re.compile(
    r"^(?P<ind>[ \t]*)[\"']?(?P<name>[\w.-]{1,60})[\"']?:[ \t]*[|>][-+]?[ \t]*\n"
    r"(?P<s>(?:(?P=ind)[ \t]+\S[^\n]*(?:\n|$))+)",
    re.MULTILINE | re.IGNORECASE,
)
_BLOCK_NAME = re.compile(r"pass|pwd|secret|token|key|credential", re.IGNORECASE)
# Where an unquoted value ends inside what _VAL took (which already stops before the next
# `&name=`, `;name=` or `,name=`): `&&`, a `\n` escape inside a JSON string, or closing
# punctuation.
_VALUE_END = re.compile(r"&&|\\[nrt]|[.;,)}\]>]+$")


def name_before(text: str, end: int) -> str:
    """The identifier characters just before `end` (the start of a key-like name)."""
    start = end
    while start > 0 and end - start < 80 and text[start - 1] in _NAME_CHARS:
        start -= 1
    return text[start:end]


def _split_value(raw: str) -> tuple[str, str, str]:
    """(quote, value, rest): the secret part of a raw value and what follows it on the line."""
    if len(raw) >= 4 and raw.startswith('\\"') and raw.endswith('\\"'):
        return '\\"', raw[2:-2], ""  # a JSON string inside a JSON string: \"password\": \"v\"
    if len(raw) >= 2 and raw[0] in "\"'`" and raw[-1] == raw[0]:
        return raw[0], raw[1:-1], ""
    cut = _VALUE_END.search(raw)
    if cut:
        return "", raw[: cut.start()], raw[cut.start() :]
    return "", raw, ""


def _spaced_value_ok(name: str, value: str, kind: str) -> bool:
    """`name value` with only a space between: a flag's argument, or a generated value."""
    if len(value) < 8 and not name.startswith("-"):
        return False
    if name.startswith("-") and not value.startswith("-"):
        return True  # `--db-password hunter2`
    if looks_random(value, 8) and re.search(r"\d", value):
        return True  # prose has words after `key `; a generated value has digits among letters
    # A named secret followed by a long mix of letters and digits (`set aws_secret_access_key X`).
    return (
        len(value) >= 12
        and bool(re.search(r"\d", value))
        and bool(re.search(r"[A-Za-z]", value))
        and not wordy(value)
    )


def _replacer(found: set[str], marker: Marker, vendor: bool) -> Callable[[re.Match[str]], str]:
    def repl(m: re.Match[str]) -> str:
        raw = m.group("val")
        if inside_marker(m.string, m.start()) or inside_marker(m.string, m.start("val")):
            return m.group(0)
        quote, value, rest = _split_value(raw)
        if not value or PLACEHOLDER.match(value) or PLACEHOLDER.match(raw) or PATH.match(value):
            return m.group(0)
        if quote == "`" and " " in value:
            return m.group(0)  # `` KEY=`cmd arg` ``: a command's output, not a literal
        if not quote and _CODE.search(value):
            return m.group(0)  # `token = request.headers.get(…)`: code in a traceback, no value
        head = m.string[m.start() : m.start("q1")]
        name = name_before(m.string, m.start()) + head
        kind = kind_for_name(name, value)
        if kind is None or (vendor and kind not in ("api-key", "aws-secret-key")):
            return m.group(0)
        sep = m.group("sep").strip()
        if sep == "" and not _spaced_value_ok(name, value, kind):
            return m.group(0)  # `--token abc`-style needs a secret-looking value (prose is common)
        if sep == "," and re.fullmatch(r"[a-z_]+", value):
            return m.group(0)  # ("password", "email"): a list of field names, not a call
        found.add(kind)
        prefix = m.string[m.start() : m.start("val")]
        return f"{prefix}{quote}{marker(kind)}{quote}{rest}"

    return repl


_VENDOR_ASSIGN: re.Pattern[str] | None = None


def _vendor_assign() -> re.Pattern[str]:
    global _VENDOR_ASSIGN
    if _VENDOR_ASSIGN is None:
        _VENDOR_ASSIGN = re.compile(
            rf"(?:{vendor_pattern().pattern[4:]}){_TAIL}(?P<q1>\\?[\"']?){_TYPE}{_SEP}{_VAL}",
            re.IGNORECASE,
        )
    return _VENDOR_ASSIGN


def redact_assignments(text: str, found: set[str], marker: Marker) -> str:
    """Values of secret-bearing names: key words first, then names that only say whose key."""
    if "<" in text:
        text = _markup_values(text, found, marker)
    if "|" in text or ">" in text:
        text = _YAML_BLOCK.sub(lambda m: _yaml_block(m, found, marker), text)
    text = _ASSIGN.sub(_replacer(found, marker, vendor=False), text)
    return _vendor_assign().sub(_replacer(found, marker, vendor=True), text)


def _yaml_block(m: re.Match[str], found: set[str], marker: Marker) -> str:
    """`password: |` followed by indented lines: the lines are the value."""
    body = m["s"]
    if not _BLOCK_NAME.search(m["name"]):
        return m[0]
    kind = kind_for_name(m["name"], "".join(body.split()))
    if kind is None or body.lstrip().startswith("[REDACTED:"):
        return m[0]
    indent = body[: len(body) - len(body.lstrip(" \t"))]
    tail = "\n" if body.endswith("\n") else ""
    found.add(kind)
    return m.string[m.start() : m.start("s")] + indent + marker(kind) + tail


def _markup_values(text: str, found: set[str], marker: Marker) -> str:
    """`<password>v</password>` and `key="ApiKey" value="v"` (XML config, .NET appSettings)."""

    def repl(m: re.Match[str]) -> str:
        value = m["v"]
        if PLACEHOLDER.match(value) or PATH.match(value):
            return m[0]
        kind = kind_for_name(m["name"], value)
        if kind is None:
            return m[0]
        found.add(kind)
        return m.string[m.start() : m.start("v")] + marker(kind) + m.string[m.end("v") : m.end()]

    for pattern in _MARKUP:
        text = pattern.sub(repl, text)
    return text
