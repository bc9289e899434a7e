"""Suggestions as JSON both ways, and the host's rules tier read back by `termwise fix`."""

from __future__ import annotations

import json
import time
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from termwise.agent.base.types import Block, SessionContext, Suggestion, Verdict
from termwise.agent.suggest.wire import (
    instant_json,
    rules_environment,
    rules_from_json,
    suggestion_from_json,
    suggestion_json,
)

PUSH_FAIL = SessionContext(
    blocks=[
        Block(
            "git psuh",
            "git: 'psuh' is not a git command. See 'git --help'.\n\n"
            "The most similar command is\n\tpush\n",
            1,
            "/src/app",
        )
    ],
    shell="bash",
    cwd="/src/app",
)


def test_a_judged_suggestion_survives_the_round_trip() -> None:
    s = Suggestion(
        "rm -rf build",
        "removes the build folder",
        "deletes files",
        "rules",
        "clean",
        Verdict("dangerous", ("deletes recursively",), "it is gone for good"),
    )
    again = suggestion_from_json(json.loads(json.dumps(suggestion_json(s))))
    assert again == s


def test_the_host_tier_is_the_rules_tier_with_verdicts() -> None:
    found = instant_json(PUSH_FAIL, rules_environment())
    assert [f["command"] for f in found][:1] == ["git push"]
    assert all(f["source"] == "rules" and f["verdict"]["level"] for f in found)
    back = rules_from_json(json.loads(json.dumps(found)))
    assert back is not None and back[0].verdict is not None
    assert back[0].verdict.level == "confirm"  # publishing commits asks first


def test_anything_unreadable_makes_the_client_run_the_rules_itself() -> None:
    good = suggestion_json(Suggestion("ls", source="rules", verdict=Verdict("safe")))
    assert rules_from_json([good]) is not None
    assert rules_from_json(None) is None  # an older host sends no "rules"
    assert rules_from_json({"command": "ls"}) is None
    assert rules_from_json([good, {**good, "verdict": None}]) is None  # unjudged
    assert rules_from_json([{**good, "verdict": {"level": "fine"}}]) is None
    assert rules_from_json([{**good, "source": "model"}]) is None
    assert rules_from_json([{**good, "command": 3}]) is None
    assert rules_from_json([{**good, "verdict": {"level": "safe", "reasons": [1]}}]) is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=40,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "command": JSON,
        "explanation": JSON,
        "caveats": JSON,
        "source": st.sampled_from(["rules", "model", "x"]) | JSON,
        "rule": JSON,
        "verdict": st.fixed_dictionaries(
            {}, optional={"level": st.sampled_from(["safe", "confirm", "dangerous"]) | JSON,
                          "reasons": JSON, "explanation": JSON}
        ) | JSON,
    },
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(FIELDS, max_size=5) | JSON)
def test_any_reply_is_read_or_refused_never_raises(items: Any) -> None:
    """What the host sends is checked field by field: suggestions or None, nothing else."""
    found = rules_from_json(items)
    assert found is None or all(
        isinstance(s.command, str) and s.verdict is not None and s.source == "rules" for s in found
    )


def test_reading_a_large_reply_stays_linear() -> None:
    one = suggestion_json(Suggestion("ls", source="rules", verdict=Verdict("safe", ("x",) * 50)))

    def cost(n: int) -> float:
        items = [one] * n
        start = time.perf_counter()
        rules_from_json(items)
        return time.perf_counter() - start

    small, large = min(cost(2_000) for _ in range(3)), min(cost(20_000) for _ in range(3))
    assert large < small * 30  # ten times the items: about ten times the time
