"""Credentials on command lines and in headers: `curl -u user:password`, `Authorization: <value>`."""

from __future__ import annotations

import re
from collections.abc import Callable

from termwise.agent.privacy.redact_names import dummy, inside_marker

Marker = Callable[[str], str]

# `curl`/`wget`/`xh` … `-u`/`--user`/`--proxy-user` CREDENTIAL, possibly after `\`-continued lines.
_USER_FLAG = re.compile(
    r"\b(?:curl|wget|xh|http)\b(?:[^\n]|\\\r?\n){0,600}?[ \t\n]"
    r"(?:-u|--(?:proxy-|http-)?user)(?:[ \t]*|=)"
    r"(?P<cred>\"[^\"\n]*\"(?::\"[^\"\n]*\")?|'[^'\n]*'|[^\s\"':]*:(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+))"
)
# A value in place of a secret: a variable, a template, a prompt, a word people type in examples.
_STAND_IN = re.compile(
    r"^(?:\$.*|<.*|\[.*|\{\{.*|%.*%|\*+|x+|y+|test|pass|password|passwd|pwd|secret|token|changeme|"
    r"changeit|example|user|username)$",
    re.IGNORECASE,
)
# `Authorization: <credential>` with no scheme word (schemes are handled by the token rules).
_BARE_AUTH = re.compile(
    r"(?i)\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?!(?:basic|bearer|token|api-?token|api-?key|digest|negotiate|apikey|sso-key|key|ntlm|"
    r"hmac|aws4-hmac-sha256|signature)\b)(?P<s>[^\s\"',;[]{8,})"
)


def redact_cli_credentials(text: str, found: set[str], marker: Marker) -> str:
    if "-u" in text or "-user" in text:
        text = _USER_FLAG.sub(lambda m: _user_flag(m, found, marker), text)
    if "uthorization" in text:
        text = _BARE_AUTH.sub(lambda m: _bare_auth(m, found, marker), text)
    return text


def _unquote(part: str) -> str:
    return part[1:-1] if len(part) >= 2 and part[0] in "\"'" and part[-1] == part[0] else part


def _user_flag(m: re.Match[str], found: set[str], marker: Marker) -> str:
    cred = m["cred"]
    if inside_marker(m.string, m.start("cred")) or "[REDACTED:" in cred:
        return m[0]
    if cred[:1] in "<[$" or cred[1:2] in ("$", "<"):
        return m[0]  # `-u <user:password>`, `-u "$USER:$PASS"`: stand-ins
    inner = (
        _unquote(cred) if cred[:1] in "\"'" and ":" not in cred[1:-1].replace('":"', "") else cred
    )
    if cred[:1] in "\"'" and '":"' not in cred:
        inner = _unquote(cred)
    user, sep, password = inner.partition(":")
    if not sep:
        return m[0]  # `-u user`: curl prompts for the password
    user, password = _unquote(user), _unquote(password)
    secret = password or user  # `-u "token:"`: a token passed as the user name
    secret = secret.strip("{}") if secret.startswith("{") and secret.endswith("}") else secret
    if not secret or _STAND_IN.match(secret) or dummy(secret) or len(secret) < 3:
        return m[0]
    start = m.start("cred") + cred.rfind(secret)
    found.add("password")
    return (
        m.string[m.start() : start] + marker("password") + m.string[start + len(secret) : m.end()]
    )


def _bare_auth(m: re.Match[str], found: set[str], marker: Marker) -> str:
    value = m["s"]
    if value.startswith("[REDACTED:") or _STAND_IN.match(value) or dummy(value):
        return m[0]
    if re.fullmatch(r"[A-Za-z]+", value) and value.lower() == value:
        return m[0]  # `authorization: required` — a word, not a credential
    found.add("token")
    return m.string[m.start() : m.start("s")] + marker("token")
