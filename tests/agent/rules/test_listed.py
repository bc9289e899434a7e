"""Hint blocks, abbreviations, task lists and logins that tools print."""

from __future__ import annotations

import pytest
from termwise.agent.rules import suggest_fixes

from tests.agent.rules.cases_listed import ADB_HELP, CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_listed_table(case: T) -> None:
    """Each listing yields the command the user meant."""
    check(case)


def test_help_text_does_not_rewrite_a_known_subcommand() -> None:
    """A known subcommand followed by a file name is left alone (the file is not a typo)."""
    got = suggest_fixes("adb push instal.txt /sdcard/", ADB_HELP, 1)
    assert all("install" not in s.command for s in got)


def test_a_word_ending_in_try_is_not_an_instruction() -> None:
    """ "in regis-try `crates-io`" does not make `crates-io` a command to run."""
    out = "error: could not find `ripgrpe` in registry `crates-io` with version `*`\n"
    assert all(s.command != "crates-io" for s in suggest_fixes("cargo install ripgrpe", out, 101))
