"""Grep-style retrieval: key hit +2, content hit +1 per query term, recent entries +1.

Chinese, Japanese and Korean text has no spaces between words, so runs of those
characters become overlapping character pairs (bigrams); a single character stays
a term of its own. Other text is split into lower-cased words.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from termwise.memory.format import Entry

KEY_HIT = 2
CONTENT_HIT = 1
RECENT_BONUS = 1
RECENT_DAYS = 14
DENSE_AFTER = 32  # hits before a term may count as common
DENSE_SHARE = 8  # common: found in more than 1 of this many texts so far

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+")
_CJK_RE = re.compile(rf"[{_CJK}]")
# A query term is made only of these characters, so each place a term occurs in a text
# lies inside one maximal run of them: the search index keeps those runs as its words.
WORD_RUN_RE = re.compile(rf"[\w{_CJK}]+")
_STOP_WORDS = frozenset(
    "a an and are as at be by can do does for from how i in is it me my of on or "
    "the to what which with you your".split()
)
# Pairs that carry no topic of their own (question words, "my").
_STOP_PAIRS = frozenset("什么 怎么 一下 我的 是什 么样 如何 哪个 可以 我们".split())


def query_terms(query: str) -> list[str]:
    """Terms of a query, in order, without repeats."""
    terms: list[str] = []
    for token in _TOKEN_RE.findall(query.lower()):
        if _CJK_RE.match(token):
            if len(token) == 1:
                pieces = [token]
            else:
                pieces = [token[i : i + 2] for i in range(len(token) - 1)]
                pieces = [p for p in pieces if p not in _STOP_PAIRS]
        elif len(token) < 2 or token in _STOP_WORDS:
            continue
        else:
            pieces = [token]
        for piece in pieces:
            if piece not in terms:
                terms.append(piece)
    return terms


@dataclass(frozen=True)
class Hit:
    """A retrieved entry with its score and where it lives."""

    entry: Entry
    score: int
    file: str = ""  # relative to the memory folder
    line: int = 0  # 1-based line of the section title

    def snippet(self) -> str:
        """One line for a prompt: key, kind, date and content."""
        entry = self.entry
        when = f", {entry.updated_at}" if entry.updated_at else ""
        return f"{entry.key} ({entry.type}{when}): {entry.content}"


class Retriever:
    """Scores a fixed list of entries; build once per change, query many times."""

    def __init__(
        self,
        entries: Sequence[Entry],
        places: Sequence[tuple[str, int]] | None = None,
        *,
        recent_days: int = RECENT_DAYS,
    ) -> None:
        self.entries = list(entries)
        self.places = list(places) if places is not None else [("", 0)] * len(self.entries)
        self.recent_days = recent_days
        self._keys = _Column(e.key.lower() for e in self.entries)
        self._texts = _Column((e.content + " " + " ".join(e.tags)).lower() for e in self.entries)
        self._recent_cache: tuple[int, frozenset[int]] | None = None
        self._dates = [
            d.toordinal() if (d := e.updated_date()) is not None else 0 for e in self.entries
        ]

    def search(self, query: str, n: int = 3, *, today: date | None = None) -> list[Hit]:
        terms = query_terms(query)
        if not terms or not self.entries or n <= 0:
            return []
        # Counter.update counts in C; a key hit is counted twice (+2).
        scores: Counter[int] = Counter()
        for term in terms:
            key_hits = self._keys.hits(term)
            scores.update(key_hits)
            scores.update(key_hits)
            scores.update(self._texts.hits(term))
        if not scores:
            return []
        scores.update(self._recent(today or date.today()).intersection(scores))
        # Only entries scoring at least the nth best score can be in the answer.
        floor = heapq.nlargest(n, scores.values())[-1]
        contenders = [i for i, score in scores.items() if score >= floor]
        # Ties go to the newer entry, then to the one written later.
        best = heapq.nlargest(n, contenders, key=lambda i: (scores[i], self._dates[i], i))
        return [Hit(self.entries[i], scores[i], self.places[i][0], self.places[i][1]) for i in best]

    def _recent(self, today: date) -> frozenset[int]:
        cutoff = today.toordinal() - self.recent_days
        if self._recent_cache is None or self._recent_cache[0] != cutoff:
            ids = frozenset(i for i, day in enumerate(self._dates) if day >= cutoff)
            self._recent_cache = (cutoff, ids)
        return self._recent_cache[1]


class _Column:
    """One text per entry, joined into a blob so a rare term is found by a few `find` calls."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.texts = list(texts)
        self.starts: list[int] = []
        pos = 0
        for text in self.texts:
            self.starts.append(pos)
            pos += len(text) + 1
        self.blob = "\x00".join(self.texts)

    def hits(self, term: str) -> list[int]:
        """Indexes of the texts containing term, in order."""
        found: list[int] = []
        starts, last = self.starts, len(self.starts) - 1
        at = self.blob.find(term)
        while at != -1:
            index = bisect_right(starts, at) - 1
            found.append(index)
            if index == last:
                break
            if len(found) >= DENSE_AFTER and len(found) * DENSE_SHARE > index:
                # A common term: testing each remaining text is cheaper than hopping.
                rest = self.texts[index + 1 :]
                found += [i for i, text in enumerate(rest, index + 1) if term in text]
                break
            at = self.blob.find(term, starts[index + 1])
        return found
