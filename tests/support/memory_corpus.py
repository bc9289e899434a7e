"""A generated memory folder shaped like a long-used one: profile, facts and daily episodes.

Words follow a Zipf-like spread over a few thousand made-up words plus common tool names
and some Chinese, so some query terms are rare and some hit a large share of entries.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

from termwise.memory.format import Entry, new_file_text

TOOLS = (
    "git docker cargo npm pip kubectl ssh rsync make cmake python node rust go java "
    "build deploy test branch commit push pull cache image volume port proxy venv"
).split()
CJK = "部署 编辑器 数据库 服务器 测试 构建 镜像 分支 提交 网络".split()
_SYLLABLES = "ka to ri mu ne so ha ki lu po da ve shi an or el ix qu ze bo".split()

QUERIES = (
    "docker port proxy",  # common words: many entries score
    "how do I deploy with kubectl",
    "数据库 服务器",
    "zebrafish quokka",  # rare words: one entry in 997, one in 10,007
)


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def write_corpus(root: Path, n: int, *, seed: int = 7, today: date | None = None) -> None:
    """Write n entries under root: 1 % profile, 10 % facts, the rest in about n/100 day files."""
    rng = random.Random(seed)
    vocab = TOOLS + _vocabulary(rng, 3000) + CJK
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    rng.shuffle(weights)  # the common words are not all tool names
    end = today or date.today()

    def entry(i: int, kind: str, day: date) -> Entry:
        words = rng.choices(vocab, weights, k=rng.randint(6, 24))
        words += ["zebrafish"] * (i % 997 == 0) + ["quokka"] * (i % 10007 == 0)
        tags = tuple(rng.sample(TOOLS, rng.randint(0, 2)))
        key = f"{kind}:{rng.choice(vocab)}_{i}"
        return Entry(key, kind, " ".join(words), tags, day.isoformat())

    root.mkdir(parents=True, exist_ok=True)
    n_profile = max(1, n // 100)
    n_facts = max(1, n // 10)
    profile = [
        entry(i, "profile", end - timedelta(days=rng.randint(0, 900))) for i in range(n_profile)
    ]
    facts = [
        entry(n_profile + i, "fact", end - timedelta(days=rng.randint(0, 900)))
        for i in range(n_facts)
    ]
    (root / "profile.md").write_text(new_file_text("Profile", profile), encoding="utf-8")
    (root / "facts.md").write_text(new_file_text("Facts", facts), encoding="utf-8")
    episodes = root / "episodes"
    episodes.mkdir(exist_ok=True)
    rest = n - n_profile - n_facts
    days = max(1, n // 100)
    first = n_profile + n_facts
    for d in range(days):
        day = end - timedelta(days=d * 2)
        count = rest // days + (1 if d < rest % days else 0)
        items = [entry(first + d * 1000 + j, "episode", day) for j in range(count)]
        text = new_file_text(f"Episodes {day.isoformat()}", items)
        (episodes / f"{day.isoformat()}.md").write_text(text, encoding="utf-8")
