"""Secret redaction: every secret becomes a marker naming its kind before text leaves the machine."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from termwise.agent.privacy.redact_patterns import compiled_rules
from termwise.agent.privacy.redact_pem import redact_key_blocks

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RedactResult:
    """The redacted text and the kinds of secret replaced (sorted, each once)."""

    text: str
    found: list[str] = field(default_factory=list)


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# name = value in shell, env, JSON, YAML, INI and flag forms. The regex starts at the
# key word (fast); the full name is read backwards from there in Python.
_ASSIGN = re.compile(
    r"(?:password|passwd|passphrase|pass|pwd|secret|token|credentials?|salt|cookie|key|auth|"
    r"signature|pat)"
    r"(?:[_.-](?:base|b64|base64|hex|value|data|str|string|plain|raw))?"  # SECRET_KEY_BASE
    r"(?![A-Za-z0-9])"
    r"(?P<q1>[\"']?)"
    r"(?P<sep>[ \t]*(?::=|=>|[?+]=|[:=])[ \t]*|(?<=[\"'])[ \t]*,[ \t]*(?=[\"'])|[ \t]+(?=[\"']?[^\s\"'=:]{4,}))"
    r"(?P<val>\$\{\{[^}\n]*\}\}|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|\$\{[^}\s]*\}|[^\s\"',;}{)]+)",
    re.IGNORECASE,
)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
# The user may be empty (redis://:pw@host); the password may hold `@` (up to the last one).
_URL_PASSWORD = re.compile(r"(?P<head>://[^/\s:@'\"]*:)(?P<pw>[^\s/'\"]+)(?=@[\w.\[-])")
_AWS_SECRET_NAME = re.compile(r"aws_?secret|secret_?access_?key", re.IGNORECASE)
_STRONG = re.compile(
    r"password|passwd|passphrase|secret|token|api[_-]?key|apikey|private[_-]?key|(?<![a-z])pass(?![a-z])"
    r"|(?<=[_.-])pwd(?![a-z])",
    re.IGNORECASE,
)
_BEARER = re.compile(r"(?i)(?<=\bBearer )[A-Za-z0-9._~+/=-]{12,}")
_PLACEHOLDER = re.compile(
    r"^(?:[|>][-+]?|\$\{?\w+\}?|\$\(.*\)|<[^>]*>|\*+|x+|\.\.\.|…|null|none|true|false|yes|no|"
    r"changeme|redacted|\[REDACTED:[\w-]+\].*|%\w+%|\$?\{\{.*\}\}|"
    r"your[-_ ].*|.*[-_]here|.+(?:\.\.\.|…))$",
    re.IGNORECASE,
)


_MARKUP = (
    re.compile(
        r"<(?P<name>[\w:.-]{0,40}(?:pass|pwd|secret|token|key|credential)[\w:.-]{0,20})>"
        r"(?P<v>[^<\s]{1,400})</(?P=name)>",
        re.IGNORECASE,
    ),
    re.compile(r"\b(?:key|name)=\"(?P<name>[^\"\n]{1,60})\"[ \t]+value=\"(?P<v>[^\"\n]{1,400})\""),
)
# An unquoted "value" that is really an expression: a call, a subscript, a known object.
_CODE = re.compile(
    r"[(\[]|^(?:self|this|cls|os|process|config|settings|env|args|opts|options|params|req|"
    r"request|ctx|secrets|vars|props|data|payload|user|creds)\.[A-Za-z_][\w.]*$"
)
# YAML block scalars under a secret-like name: `token: |` + indented lines.
_YAML_BLOCK = re.compile(
    r"^(?P<ind>[ \t]*)[\"']?(?P<name>[\w.-]{1,60})[\"']?:[ \t]*[|>][-+]?[ \t]*\n"
    r"(?P<s>(?:(?P=ind)[ \t]+\S[^\n]*(?:\n|$))+)",
    re.MULTILINE | re.IGNORECASE,
)
_BLOCK_NAME = re.compile(r"pass|pwd|secret|token|key|credential", re.IGNORECASE)
_DATA_URI = re.compile(r"(?<=;base64,)[A-Za-z0-9+/]{16,}={0,2}")
_NOT_SECRET = re.compile(
    r"^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|(?:sha1|sha256|sha384|sha512|md5)[:-].*|[0-9a-f]{40}"  # a git commit id
    r"|(?:[A-Za-z0-9_.]+-)+[0-9a-f]{40,128})$"  # CI cache keys: words, then a content hash
)
# A file path is where a secret is kept, not the secret (`private_key: ~/.ssh/id_rsa`).
_PATH = re.compile(
    r"^(?:(?:~|\.{1,2})?/[\w.@-]+(?:/[\w.@-]+)+/?|[A-Za-z]:\\[^\s]*|[\w-]+\.(?:pem|key|json|txt))$"
)


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _looks_random(value: str, min_len: int = 16) -> bool:
    """High entropy and mixed characters: what generated secrets look like, unlike words."""
    if len(value) < min_len or " " in value:
        return False
    classes = sum(
        bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]")
    )
    return classes >= 2 and _entropy(value) >= min(3.3, math.log2(len(value)) - 0.2)


def _kind_for_name(name: str, value: str) -> str | None:
    """Which marker an assignment gets, or None to leave it alone."""
    lower = name.lower().lstrip("-")
    if _AWS_SECRET_NAME.search(lower) and re.fullmatch(r"[A-Za-z0-9/+=]{40}", value):
        return "aws-secret-key"
    if _STRONG.search(lower):
        if "pass" in lower or "pwd" in lower:
            return "password"
        if "private" in lower and "key" in lower:
            return "private-key"
        if "token" in lower:
            return "token"
        if "key" in lower:
            return "api-key"
        return "secret"
    # Weak names (key, salt, cookie, credentials …) only with a value that looks generated;
    # ids and digests (cache keys, `sha256:…`, UUIDs) are not secrets.
    if _NOT_SECRET.match(value):
        return None
    return "high-entropy" if _looks_random(value) else None


@lru_cache(maxsize=64)
def _user_pattern(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        # Redact the literal text rather than nothing: a typo must not leak the secret.
        log.warning("privacy.patterns: %r is not a valid regular expression (%s)", pattern, exc)
        return re.compile(re.escape(pattern))


def redact(text: str, extra_patterns: Sequence[str] = ()) -> RedactResult:
    """Replace every secret in `text` by `[REDACTED:<kind>]`; user patterns count as `user`."""
    found: set[str] = set()

    def sub(kind: str, pattern: re.Pattern[str], s: str) -> str:
        has_group = "s" in pattern.groupindex

        def repl(m: re.Match[str]) -> str:
            if has_group and m.start("s") >= 0:
                if m["s"].startswith("[REDACTED:"):
                    return m.group(0)
                found.add(kind)
                return s[m.start() : m.start("s")] + marker(kind) + s[m.end("s") : m.end()]
            found.add(kind)
            return marker(kind)

        return pattern.sub(repl, s)

    for pattern_text in extra_patterns:
        if pattern_text:
            text = sub("user", _user_pattern(pattern_text), text)
    text, blobs = _hide_data_uris(text)
    text, had_key = redact_key_blocks(text, marker("private-key"))
    if had_key:
        found.add("private-key")
    for kind, pattern, needs in compiled_rules():
        if needs and not any(n in text for n in needs):
            continue
        text = sub(kind, pattern, text)
    if "://" in text:
        text = _URL_PASSWORD.sub(lambda m: _found(found, "url-password", m["head"]), text)
    if "earer " in text:
        text = _BEARER.sub(lambda m: _bearer(m, found), text)
    if "<" in text:
        text = _markup_values(text, found)
    if "|" in text or ">" in text:
        text = _YAML_BLOCK.sub(lambda m: _yaml_block(m, found), text)
    text = _ASSIGN.sub(_assignment_replacer(found), text)
    return RedactResult(_restore_data_uris(text, blobs), sorted(found))


def _hide_data_uris(text: str) -> tuple[str, list[str]]:
    """Set aside the payloads of `data:…;base64,` URIs (inline images): random, not secret."""
    if ";base64," not in text:
        return text, []
    blobs: list[str] = []

    def park(m: re.Match[str]) -> str:
        blobs.append(m.group(0))
        return f"\x00twdata{len(blobs) - 1}\x00"

    return _DATA_URI.sub(park, text), blobs


def _restore_data_uris(text: str, blobs: list[str]) -> str:
    if not blobs:
        return text
    return re.sub(
        r"\x00twdata(\d+)\x00",
        lambda m: blobs[int(m[1])] if int(m[1]) < len(blobs) else m[0],
        text,
    )


def _name_before(text: str, end: int) -> str:
    """The identifier characters just before `end` (the start of a key-like name)."""
    start = end
    while start > 0 and end - start < 80 and text[start - 1] in _NAME_CHARS:
        start -= 1
    return text[start:end]


def _found(found: set[str], kind: str, prefix: str = "") -> str:
    found.add(kind)
    return prefix + marker(kind)


def _bearer(m: re.Match[str], found: set[str]) -> str:
    """A Bearer token, unless it is a plain word ("Bearer authentication")."""
    if re.fullmatch(r"[a-z]+|[A-Z][a-z]+", m[0]):
        return m[0]
    return _found(found, "bearer-token")


def _yaml_block(m: re.Match[str], found: set[str]) -> str:
    """`password: |` followed by indented lines: the lines are the value."""
    body = m["s"]
    if not _BLOCK_NAME.search(m["name"]):
        return m[0]
    kind = _kind_for_name(m["name"], "".join(body.split()))
    if kind is None or body.lstrip().startswith("[REDACTED:"):
        return m[0]
    indent = body[: len(body) - len(body.lstrip(" \t"))]
    tail = "\n" if body.endswith("\n") else ""
    return m.string[m.start() : m.start("s")] + indent + _found(found, kind) + tail


def _markup_values(text: str, found: set[str]) -> str:
    """`<password>v</password>` and `key="ApiKey" value="v"` (XML config, .NET appSettings)."""

    def repl(m: re.Match[str]) -> str:
        value = m["v"]
        if _PLACEHOLDER.match(value) or _PATH.match(value) or value.startswith("[REDACTED:"):
            return m[0]
        kind = _kind_for_name(m["name"], value)
        if kind is None:
            return m[0]
        return (
            m.string[m.start() : m.start("v")]
            + _found(found, kind)
            + m.string[m.end("v") : m.end()]
        )

    for pattern in _MARKUP:
        text = pattern.sub(repl, text)
    return text


def _spaced_value_ok(name: str, value: str, kind: str) -> bool:
    """`name value` with only a space between: a flag's argument, or a generated value."""
    if len(value) < 8 and not name.startswith("-"):
        return False
    if name.startswith("-") and not value.startswith("-"):
        return True  # `--db-password hunter2`
    return kind == "high-entropy" or _looks_random(value, 8)


def _assignment_replacer(found: set[str]) -> Callable[[re.Match[str]], str]:
    def repl(m: re.Match[str]) -> str:
        raw = m.group("val")
        value = raw[1:-1] if raw[:1] in "\"'" and raw[-1:] == raw[:1] and len(raw) >= 2 else raw
        if not value or _PLACEHOLDER.match(value) or _PATH.match(value) or value.startswith("["):
            return m.group(0)
        if raw == value and _CODE.search(value):
            return m.group(0)  # `token = request.headers.get(…)`: code in a traceback, no value
        name = _name_before(m.string, m.start()) + m.group(0)[: m.start("q1") - m.start()]
        kind = _kind_for_name(name, value)
        if kind is None:
            return m.group(0)
        sep = m.group("sep").strip()
        if sep == "" and not _spaced_value_ok(name, value, kind):
            return m.group(0)  # `--token abc`-style needs a secret-looking value (prose is common)
        if sep == "," and re.fullmatch(r"[a-z_]+", value):
            return m.group(0)  # ("password", "email"): a list of field names, not a call
        found.add(kind)
        quote = raw[0] if raw[:1] in "\"'" and raw[-1:] == raw[:1] and len(raw) >= 2 else ""
        prefix = m.string[m.start(0) : m.start("val")]  # the name part before m.start() stays
        return f"{prefix}{quote}{marker(kind)}{quote}"

    return repl
