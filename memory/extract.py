"""Notice what users say about themselves ("I like …", "我正在做 …") and remember it.

English and Chinese phrasings become `pref:`, `project:` and `goal:` profile entries.
A sentence the injected `is_secret` check flags is never written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from termwise.memory.store import MemoryStore

IsSecret = Callable[[str], bool]

# (pattern, key prefix, how the content starts, tags). The captured object ends at
# sentence punctuation; "don't like" patterns come first so "like" never steals them.
_EN_END = r"(?P<what>[^.!?\n;,]+)"
_ZH_END = r"(?P<what>[^。！？；，,!?;\n]+)"
_RULES: tuple[tuple[re.Pattern[str], str, str, tuple[str, ...]], ...] = (
    (
        re.compile(rf"\bI\s+(?:don'?t|do\s+not|never)\s+like\s+{_EN_END}", re.I),
        "pref",
        "dislikes",
        ("preference",),
    ),
    (re.compile(rf"\bI\s+dislike\s+{_EN_END}", re.I), "pref", "dislikes", ("preference",)),
    (
        re.compile(rf"\bI\s+(?:really\s+)?(?:like|love|prefer)\s+{_EN_END}", re.I),
        "pref",
        "likes",
        ("preference",),
    ),
    (
        re.compile(rf"\bI(?:'m|\s+am)\s+(?:currently\s+)?working\s+on\s+{_EN_END}", re.I),
        "project",
        "working on",
        ("project",),
    ),
    (
        re.compile(rf"\bmy\s+(?:main\s+)?goal\s+is\s+(?:to\s+)?{_EN_END}", re.I),
        "goal",
        "goal:",
        ("goal",),
    ),
    (re.compile(rf"我不喜欢{_ZH_END}"), "pref", "不喜欢", ("preference",)),
    (re.compile(rf"我(?:很|最|比较)?喜欢{_ZH_END}"), "pref", "喜欢", ("preference",)),
    (re.compile(rf"我(?:正在做|在做|正在开发){_ZH_END}"), "project", "正在做", ("project",)),
    (re.compile(rf"我的目标是{_ZH_END}"), "goal", "目标是", ("goal",)),
)
_CJK = re.compile(r"[\u3400-\u9fff]")
_LEADING = re.compile(r"^(?:a|an|the|to|using|use|my|on)\s+", re.I)
_STOP = frozenset("a an the to of for in on with my it and or when that this".split())


@dataclass(frozen=True)
class Extracted:
    """Something the user said about themselves, ready to upsert."""

    key: str
    content: str
    tags: tuple[str, ...]
    sentence: str


@dataclass
class Extraction:
    """What a piece of text produced: entries written and statements withheld as secrets."""

    written: list[Extracted] = field(default_factory=list)
    withheld: int = 0  # statements not remembered because they looked like secrets


def slug(text: str, words: int = 3) -> str:
    """A short key part from the object of a statement ("short answers" → short_answers)."""
    text = text.strip().lower()
    if _CJK.search(text):
        return re.sub(r"[\s\W_]+", "", text)[:12] or "item"
    text = _LEADING.sub("", text)
    parts = [w for w in re.findall(r"[a-z0-9+#.-]+", text) if w not in _STOP]
    return "_".join(parts[:words]).strip(".-") or "item"


def find_statements(text: str) -> list[Extracted]:
    """Statements about the user in text, each once, in the order rules are tried."""
    found: list[Extracted] = []
    taken: list[tuple[int, int]] = []
    for pattern, prefix, lead, tags in _RULES:
        for match in pattern.finditer(text):
            span = match.span()
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue  # already read by a more specific rule
            what = match.group("what").strip(" ,，、:：\t")
            if not what:
                continue
            taken.append(span)
            joiner = "" if _CJK.search(lead) else " "
            content = f"{lead}{joiner}{what}"
            found.append(Extracted(f"{prefix}:{slug(what)}", content, tags, match.group(0)))
    return found


def remember_statements(store: MemoryStore, text: str, is_secret: IsSecret) -> Extraction:
    """Upsert every statement found in text, except those `is_secret` flags."""
    result = Extraction()
    for item in find_statements(text):
        if is_secret(item.sentence) or is_secret(item.content):
            result.withheld += 1
            continue
        store.upsert(item.key, "profile", item.content, item.tags)
        result.written.append(item)
    return result
