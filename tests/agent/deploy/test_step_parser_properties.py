"""Properties of the deploy step parser over text it does not control: never raises, split-proof, linear.

A few thousand examples in the normal suite; `TERMWISE_HYPOTHESIS_PROFILE=nightly` runs 100,000.
"""

from __future__ import annotations

import json
import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st
from termwise.agent.deploy.plan import Step
from termwise.agent.deploy.step_parser import StepParser, StepProblem
from termwise.agent.suggest.json_stream import MAX_DEPTH

EXAMPLES = max(2_000, settings().max_examples or 0)

TOKENS = [
    "{", "}", "[", "]", '"', "\\", "\n", " ", ":", ",", "```", "```bash", "~~~", '{"step": 1, ',
    '"title": "', '"commands": ["', '"]}', '{"steps": [', "]}", "npm ci", "x", "é", "\x00",
    "## 1. Build", "$ ", "null",
]  # fmt: skip
hostile = st.one_of(
    st.lists(st.sampled_from(TOKENS), max_size=80).map("".join),
    st.text(max_size=300),
    st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace")),
)


def _parse(pieces: list[str]) -> list[object]:
    parser = StepParser()
    items: list[object] = []
    for piece in pieces:
        items.extend(parser.feed(piece))
    items.extend(parser.finish())
    return items


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    pieces, last = [], 0
    for p in points:
        pieces.append(text[last:p])
        last = p
    return [*pieces, text[last:]]


def _key(items: list[object]) -> list[object]:
    return [(i.title, i.commands) if isinstance(i, Step) else i for i in items]


@settings(max_examples=EXAMPLES)
@given(text=hostile, cuts=st.lists(st.integers(0, 400), max_size=12))
def test_any_text_split_anywhere_never_raises_and_gives_the_same_plan(
    text: str, cuts: list[int]
) -> None:
    """Whatever a model writes, cut anywhere: steps or problems, the same as fed whole."""
    items = _parse(_split(text, cuts))
    assert all(isinstance(i, (Step, StepProblem)) for i in items)
    assert _key(items) == _key(_parse([text]))


@settings(max_examples=max(30, EXAMPLES // 100))
@given(depth=st.integers(1, 100_000), kind=st.sampled_from(["[", '{"a":']))
def test_any_nesting_depth_is_a_problem_not_a_recursion_error(depth: int, kind: str) -> None:
    """A step nested as deep as a model likes is a note; the next step still parses."""
    close = "]" if kind == "[" else "}"
    text = '{"title": "t", "commands": ["ls"], "notes": ' + kind * depth + "1" + close * depth
    items = _parse([text + "}\n", json.dumps({"title": "Build", "commands": ["make"]}) + "\n"])
    titles = [i.title for i in items if isinstance(i, Step)]
    if depth + 1 > MAX_DEPTH:
        assert titles == ["Build"]
        assert any(isinstance(i, StepProblem) and "nested" in i.message for i in items)
    else:
        assert titles == ["t", "Build"]


def _peak(text: str) -> int:
    tracemalloc.start()
    try:
        parser = StepParser()
        for i in range(0, len(text), 512):
            parser.feed(text[i : i + 512])
        parser.finish()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_grows_linearly_with_hostile_input() -> None:
    """Eight times the input never needs much more than eight times the memory."""
    for shape in ["[" * 20_000, '{"title": "' + "a" * 20_000, '{"a":1}' * 3_000, "```\n" * 5_000]:
        small = _peak(shape)
        large = _peak(shape * 8)
        assert large <= 12 * small + 200_000, (shape[:20], small, large)
