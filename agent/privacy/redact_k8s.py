"""Kubernetes `Secret` manifests: every value under `data:` / `stringData:` is a secret."""

from __future__ import annotations

import re
from collections.abc import Callable

Marker = Callable[[str], str]

# `kind: Secret` exactly (not ExternalSecret, SealedSecret's template, SopsSecret, SecretStore).
_KIND_YAML = re.compile(
    r"(?im)^[ \t]*[\"']?kind[\"']?[ \t]*:[ \t]*[\"']?secret[\"']?[ \t]*(?:#.*)?$"
)
_KIND_JSON = re.compile(r"\"kind\"[ \t]*:[ \t]*\"Secret\"")
_DOC_SPLIT = re.compile(r"(?m)^---[^\n]*$")
_DATA_KEY = re.compile(r"^(?P<ind>[ \t]*)[\"']?(?:data|stringData)[\"']?[ \t]*:[ \t]*(?P<rest>.*)$")
_ENTRY = re.compile(
    r"^(?P<head>(?P<ind>[ \t]*)(?:-[ \t]+)?[\"']?[\w.\-/]+[\"']?[ \t]*:)(?P<sp>[ \t]*)(?P<v>.*)$"
)
# Values that stand for a value: empty, a template, a reference.
_PLACEHOLDER = re.compile(r"^(?:|\"\"|''|\{\{.*\}\}|\$\{[^}]*\}|<[^>]*>|~|null)$")
_JSON_DATA = re.compile(r"\"(?:data|stringData)\"[ \t]*:[ \t]*\{(?P<body>[^{}]*)\}")
_JSON_PAIR = re.compile(r"(?P<k>\"[^\"\n]*\"[ \t]*:[ \t]*)\"(?P<v>(?:[^\"\\\n]|\\.)*)\"")
_FLOW_PAIR = re.compile(r"(?P<k>[\w.\-\"']+[ \t]*:[ \t]*)(?P<v>[^,}\s][^,}]*)")


def redact_k8s_secrets(text: str, found: set[str], marker: Marker) -> str:
    """Replace the values in the data maps of each `kind: Secret` document (YAML or JSON)."""
    if "ecret" not in text or "ata" not in text:
        return text
    yaml_hit = _KIND_YAML.search(text) is not None
    json_hit = _KIND_JSON.search(text) is not None
    if not (yaml_hit or json_hit):
        return text
    out: list[str] = []
    pos = 0
    for sep in [*_DOC_SPLIT.finditer(text), None]:
        end = sep.start() if sep else len(text)
        doc = text[pos:end]
        if _KIND_YAML.search(doc):
            doc = _yaml_doc(doc, found, marker)
        if _KIND_JSON.search(doc):
            doc = _JSON_DATA.sub(lambda m: _json_data(m, found, marker), doc)
        out.append(doc)
        if sep:
            out.append(sep.group(0))
            pos = sep.end()
    return "".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _yaml_doc(doc: str, found: set[str], marker: Marker) -> str:
    lines = doc.split("\n")
    out: list[str] = []
    block = -1  # indentation of the `data:` key while inside its map
    scalar = -1  # indentation of an entry whose value continues on the next lines
    for line in lines:
        stripped = line.strip()
        if block >= 0 and (not stripped or stripped.startswith("#")):
            out.append(line)
            continue
        ind = _indent(line)
        if scalar >= 0:
            if ind > scalar:
                continue  # the value's lines (block scalar or a folded plain value)
            scalar = -1
        if block >= 0 and ind <= block:
            block = -1
        if block < 0:
            m = _DATA_KEY.match(line)
            if m:
                rest = m["rest"].strip()
                if rest.startswith("{"):
                    out.append(_flow_map(line, found, marker))
                    continue
                if not rest or rest.startswith("#"):
                    block = len(m["ind"])
            out.append(line)
            continue
        entry = _ENTRY.match(line)
        if entry is None:
            out.append(line)
            continue
        value = entry["v"].strip()
        if value[:1] in ("|", ">") and re.fullmatch(r"[|>][-+0-9]*(?:[ \t]+#.*)?", value):
            out.append(line)
            out.append(" " * (ind + 2) + marker("k8s-secret"))
            found.add("k8s-secret")
            scalar = ind
            continue
        if _PLACEHOLDER.match(value) or value.startswith("[REDACTED:"):
            out.append(line)
            continue
        quote = value[0] if value[:1] in "\"'" and value[-1:] == value[0] and len(value) > 1 else ""
        out.append(f"{entry['head']}{entry['sp'] or ' '}{quote}{marker('k8s-secret')}{quote}")
        found.add("k8s-secret")
        scalar = ind  # a plain value may fold onto more-indented lines
    return "\n".join(out)


def _flow_map(line: str, found: set[str], marker: Marker) -> str:
    """`data: {password: cGFzcw==, user: YWRtaW4=}` on one line."""
    head, _, body = line.partition("{")

    def repl(m: re.Match[str]) -> str:
        if _PLACEHOLDER.match(m["v"].strip()):
            return m[0]
        found.add("k8s-secret")
        return m["k"] + marker("k8s-secret")

    return head + "{" + _FLOW_PAIR.sub(repl, body)


def _json_data(m: re.Match[str], found: set[str], marker: Marker) -> str:
    """`"data": {"password": "cGFzcw=="}` from `kubectl get secret -o json`."""

    def repl(p: re.Match[str]) -> str:
        if not p["v"] or p["v"].startswith("[REDACTED:"):
            return p[0]
        found.add("k8s-secret")
        return f'{p["k"]}"{marker("k8s-secret")}"'

    body = _JSON_PAIR.sub(repl, m["body"])
    return m.string[m.start() : m.start("body")] + body + m.string[m.end("body") : m.end()]
