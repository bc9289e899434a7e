"""Fixes read from the command line when the failure printed nothing worth reading."""

from __future__ import annotations

import pytest
from termwise.agent.rules import suggest_fixes

from tests.agent.rules.cases_script_only import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_script_only_table(case: T) -> None:
    """Each silent failure yields the command its shape suggests."""
    check(case)


def test_output_reading_fixes_rank_first() -> None:
    """When the message names the fix, the guesses from the command line come after it."""
    got = suggest_fixes(
        "mkdir a/b", "mkdir: cannot create directory ‘a/b’: No such file or directory\n", 1
    )
    assert got[0].command == "mkdir -p a/b"
    assert all(s.rule != "mkdir_parents_flag" for s in got)


def test_a_silent_success_of_other_commands_gets_no_guess() -> None:
    """`make` that exited 0 with no output is not a failure: nothing is suggested."""
    assert suggest_fixes("make", "", 0) == []


def test_hook_skip_is_offered_with_its_caveat() -> None:
    """Skipping hooks says what it skips."""
    got = suggest_fixes("git commit -m x", "pre-commit hook failed: exit 1", 1)
    skip = next(s for s in got if "--no-verify" in s.command)
    assert "skipped" in skip.caveats
