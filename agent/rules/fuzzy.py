"""Edit distance (with transpositions) and nearest-word lookup for typo rules."""

from __future__ import annotations

from collections.abc import Iterable


def distance(a: str, b: str, limit: int = 3) -> int:
    """Optimal-string-alignment distance between `a` and `b`, capped at `limit + 1`."""
    if a == b:
        return 0
    la, lb = len(a), len(b)
    if abs(la - lb) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(lb + 1))
    for i in range(1, la + 1):
        cur = [i] + [0] * lb
        best = cur[0]
        ca = a[i - 1]
        for j in range(1, lb + 1):
            cost = 0 if ca == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
            best = min(best, v)
        if best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[lb]


def max_typos(word: str) -> int:
    """How many edits still look like a typo for a word of this length."""
    n = len(word)
    if n <= 2:
        return 1
    if n <= 4:
        return 1
    if n <= 8:
        return 2
    return 3


def closest(
    word: str,
    candidates: Iterable[str],
    n: int = 3,
    limit: int | None = None,
    ignore_case: bool = False,
) -> list[str]:
    """Up to `n` candidates nearest to `word`, nearest first (ties keep candidate order)."""
    lim = max_typos(word) if limit is None else limit
    key = word.lower() if ignore_case else word
    scored: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    chars = set(key)
    for i, cand in enumerate(candidates):
        if cand in seen or cand == word:
            continue
        seen.add(cand)
        c = cand.lower() if ignore_case else cand
        if abs(len(c) - len(key)) > lim:
            continue
        # Each edit adds or removes at most one distinct letter: a cheap lower bound.
        other = set(c)
        if len(chars - other) > lim or len(other - chars) > lim:
            continue
        d = distance(key, c, lim)
        if d <= lim:
            scored.append((d, i, cand))
    scored.sort()
    return [c for _, _, c in scored[:n]]
