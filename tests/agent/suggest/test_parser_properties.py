"""Properties of the suggestion parser over text it does not control: never raises, split-proof, linear.

A few thousand examples each in the normal suite; `TERMWISE_HYPOTHESIS_PROFILE=nightly`
runs 100,000. Time is measured by tests/bench/test_model_parse_bench.py; here memory is
checked, which does not depend on how loaded the machine is.
"""

from __future__ import annotations

import json
import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st
from termwise.agent.suggest.json_stream import ObjectCutter
from termwise.agent.suggest.parser import (
    Dropped,
    ParsedQuestion,
    ParsedSuggestion,
    Problem,
    SuggestionParser,
)

EXAMPLES = max(2_000, settings().max_examples or 0)

# Pieces that steer the parser into its corners: braces, strings, escapes, fences, newlines.
TOKENS = [
    "{", "}", "[", "]", '"', "\\", "\n", "\r\n", " ", ":", ",", "```", "```json", "```bash",
    "~~~", '{"command": "', '"}', '{"suggestions": [', "]}", '{"question": "', "ls -la",
    "x", "é", "\x00", "\u2028", '\\"', "$ ", "#", "null", "1",
]  # fmt: skip
hostile = st.one_of(
    st.lists(st.sampled_from(TOKENS), max_size=80).map("".join),
    st.text(max_size=300),
    st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace")),
)
command = st.builds(
    lambda tool, args: " ".join([tool, *args]),
    st.sampled_from(["ls", "git", "grep", "docker", "du", "find", "echo", "kubectl", "npm"]),
    st.lists(st.from_regex(r"-{0,2}[a-z0-9./_é]{1,8}", fullmatch=True), max_size=4),
)


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    pieces, last = [], 0
    for p in points:
        pieces.append(text[last:p])
        last = p
    pieces.append(text[last:])
    return pieces


def _parse(pieces: list[str], shell: str = "bash") -> list[object]:
    parser = SuggestionParser(shell)
    items: list[object] = []
    for piece in pieces:
        items.extend(parser.feed(piece))
    items.extend(parser.finish())
    return items


def _commands(items: list[object]) -> list[str]:
    return [i.suggestion.command for i in items if isinstance(i, ParsedSuggestion)]


@settings(max_examples=EXAMPLES)
@given(
    text=hostile,
    cuts=st.lists(st.integers(0, 400), max_size=12),
    shell=st.sampled_from(["bash", "zsh", "pwsh", "cmd"]),
)
def test_any_text_split_anywhere_never_raises(text: str, cuts: list[int], shell: str) -> None:
    """Whatever the model sends, cut wherever the network cuts it, items come out, no exception."""
    items = _parse(_split(text, cuts), shell)
    kinds = (ParsedSuggestion, ParsedQuestion, Problem, Dropped)
    assert all(isinstance(i, kinds) for i in items)
    assert len(_commands(items)) <= 5


@settings(max_examples=EXAMPLES)
@given(text=hostile, cuts=st.lists(st.integers(0, 400), max_size=12))
def test_where_the_stream_is_cut_does_not_change_the_result(text: str, cuts: list[int]) -> None:
    """Text fed whole or in pieces gives the same suggestions, questions and problems."""
    assert _parse(_split(text, cuts)) == _parse([text])


@settings(max_examples=EXAMPLES // 2)
@given(
    commands=st.lists(command, min_size=1, max_size=5, unique_by=lambda c: " ".join(c.split())),
    wrapped=st.booleans(),
    indent=st.sampled_from([None, 2]),
    data=st.data(),
)
def test_every_well_formed_suggestion_comes_out(
    commands: list[str], wrapped: bool, indent: int | None, data: st.DataObject
) -> None:
    """NDJSON or one {"suggestions": [...]} object, compact or pretty, split anywhere: all arrive."""
    objs = [{"command": c, "explanation": "e", "caveats": ""} for c in commands]
    if wrapped:
        text = json.dumps({"suggestions": objs}, indent=indent)
    else:
        text = "".join(json.dumps(o) + "\n" for o in objs)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10))
    items = _parse(_split(text, cuts))
    assert _commands(items) == [c.strip() for c in commands]
    assert not [i for i in items if isinstance(i, Problem)]


@settings(max_examples=max(30, EXAMPLES // 100))
@given(depth=st.integers(1, 100_000), kind=st.sampled_from(["[", '{"a":', '[{"b":']))
def test_any_nesting_depth_is_a_problem_not_a_recursion_error(depth: int, kind: str) -> None:
    """Nesting as deep as a model likes ends in a note, and the next line still parses."""
    close = {"[": "]", '{"a":': "}", '[{"b":': "}]"}[kind]
    text = '{"command": "x", "why": ' + kind * depth + "1" + close * depth + "}\n"
    items = _parse([text, '{"command": "pwd"}\n'])
    assert "pwd" in _commands(items)


def _peak(text: str) -> int:
    tracemalloc.start()
    try:
        parser = SuggestionParser()
        for i in range(0, len(text), 512):
            parser.feed(text[i : i + 512])
        parser.finish()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_grows_linearly_with_hostile_input() -> None:
    """Eight times the input never needs much more than eight times the memory."""
    shapes = [
        "[" * 20_000,  # endless nesting
        '{"command": "' + "a" * 20_000,  # a string that never ends
        '{"a":1}' * 3_000,  # many objects on one line
        "{ " * 10_000,  # braces that start nothing
        "\\" * 20_000,  # escapes
        "```\n" * 5_000,  # fences
    ]
    for shape in shapes:
        small = _peak(shape)
        large = _peak(shape * 8)
        assert large <= 12 * small + 200_000, (shape[:20], small, large)


def test_cutter_drops_text_of_overlong_objects() -> None:
    """An object past the size bound is followed to its end but not kept in memory."""
    cutter = ObjectCutter(max_chars=1_000)
    cuts = cutter.scan('{"command": "' + "a" * 10_000 + '"}')
    assert len(cuts) == 1 and getattr(cuts[0], "reason", "") == "too long"
    assert len(cuts[0].text) <= 1_000  # type: ignore[union-attr]
