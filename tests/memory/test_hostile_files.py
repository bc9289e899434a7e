"""Memory and config files as a user (or a crash) might leave them: parsing never raises."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from termwise.agent.base.config import parse_config
from termwise.memory.format import parse_text

_LINES = st.sampled_from(
    [
        "<!-- termwise-memory v1 -->",
        "## fact:a",
        "## ",
        "## bad key with spaces",
        "- type: fact",
        "- type: nonsense",
        "- content: hello",
        "  continued",
        "- tags: a, b",
        "- updated_at: 2026-01-01",
        "",
        "\x00\ufffd",
    ]
)
_TEXT = st.lists(st.one_of(_LINES, st.text(max_size=30)), max_size=40).map("\n".join)


@given(_TEXT)
def test_memory_files_parse_without_raising(text: str) -> None:
    parsed = parse_text(text)
    assert len(parsed.entries) <= text.count("## ")
    for problem in parsed.problems:
        assert 1 <= problem.line <= text.count("\n") + 1


_YAML = st.lists(
    st.sampled_from(
        [
            "ui:",
            "  theme: dark",
            "hotkey: [",
            "providers:",
            "  - name: x",
            "  - 3",
            "*a",
            "&a x",
            "!!python/object:os.system x",
            "session: {max_blocks: lots}",
            "- - - -",
            "\t",
            ": :",
        ]
    )
    | st.text(max_size=20),
    max_size=20,
).map("\n".join)


@given(_YAML)
def test_config_text_parses_without_raising(text: str) -> None:
    config, problems = parse_config(text, Path("config.yaml"), env={})
    assert config is not None and isinstance(problems, list)
