"""Secret redaction: every secret becomes a marker naming its kind before text leaves the machine."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from termwise.agent.privacy.redact_assign import redact_assignments
from termwise.agent.privacy.redact_cli import redact_cli_credentials
from termwise.agent.privacy.redact_k8s import redact_k8s_secrets
from termwise.agent.privacy.redact_names import dummy, inside_marker
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


# The user may be empty (redis://:pw@host); the password may hold `@` (up to the last one).
_URL_PASSWORD = re.compile(r"(?P<head>://[^/\s:@'\"]*:)(?P<pw>[^\s/'\"]+)(?=@[\w.\[-])")
_BEARER = re.compile(r"(?i)(?<=\bBearer )[A-Za-z0-9._~+/=-]{12,}")
_DATA_URI = re.compile(r"(?<=;base64,)[A-Za-z0-9+/]{16,}={0,2}")


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
            if inside_marker(s, m.start("s" if has_group and m.start("s") >= 0 else 0)):
                return m.group(0)  # never rewrite a marker an earlier rule wrote
            if has_group and m.start("s") >= 0:
                if m["s"].startswith("[REDACTED:") or dummy(m["s"]):
                    return m.group(0)
                found.add(kind)
                return s[m.start() : m.start("s")] + marker(kind) + s[m.end("s") : m.end()]
            if kind != "user" and dummy(m.group(0)):
                return m.group(0)  # `ghp_xxxxxxxx…`: a placeholder in the token's shape
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
    text = redact_k8s_secrets(text, found, marker)
    # Which cheap needles occur, checked once; each rule then runs only if one of its own does.
    rules, by_needle, always = compiled_rules()
    to_run = set(always)
    for needle, indexes in by_needle.items():
        if needle in text:
            to_run.update(indexes)
    for i in sorted(to_run):
        kind, pattern = rules[i]
        text = sub(kind, pattern, text)
    if "://" in text:
        text = _URL_PASSWORD.sub(lambda m: _url_password(m, found), text)
    if "earer " in text:
        text = _BEARER.sub(lambda m: _bearer(m, found), text)
    text = redact_cli_credentials(text, found, marker)
    text = redact_assignments(text, found, marker)
    text = _restore_data_uris(text, blobs)
    # A later rule may swallow an earlier marker into a wider one: report what the text shows.
    return RedactResult(text, sorted(k for k in found if marker(k) in text))


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


def _found(found: set[str], kind: str, prefix: str = "") -> str:
    found.add(kind)
    return prefix + marker(kind)


def _url_password(m: re.Match[str], found: set[str]) -> str:
    if m["head"].endswith("[REDACTED:"):  # a token rule already hid the whole userinfo
        return m.group(0)
    return _found(found, "url-password", m["head"])


def _bearer(m: re.Match[str], found: set[str]) -> str:
    """A Bearer token, unless it is a plain word ("Bearer authentication")."""
    if re.fullmatch(r"[a-z]+|[A-Z][a-z]+", m[0]) or dummy(m[0]):
        return m[0]
    return _found(found, "bearer-token")
