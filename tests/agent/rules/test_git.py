"""Git: did-you-mean, upstream, rejected pushes, branches, identity and friends."""

from __future__ import annotations

import pytest
from termwise.agent.rules import suggest_fixes

from tests.agent.rules.cases_git import CASES, REJECTED
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_git_table(case: T) -> None:
    """Each git failure yields the command git (or a seasoned user) would run next."""
    check(case)


def test_force_push_is_offered_with_a_warning() -> None:
    """The force push is among the options but explained as discarding others' commits."""
    got = suggest_fixes("git push", REJECTED, 1)
    lease = next(s for s in got if "--force-with-lease" in s.command)
    assert got[0].command != lease.command
    assert "discard" in lease.explanation.lower()


def test_force_push_carries_a_caveat() -> None:
    """The risky option states its risk in the suggestion's caveats; the safe ones do not."""
    got = suggest_fixes("git push", REJECTED, 1)
    lease = next(s for s in got if "--force-with-lease" in s.command)
    assert "lost" in lease.caveats
    assert got[0].caveats == ""


def test_a_broken_submodule_pointer_is_not_a_missing_repository() -> None:
    """`not a git repository: ../.git/modules/lib` names a gitdir that is gone: no `git init`."""
    out = "fatal: not a git repository: ../.git/modules/lib\n"
    assert all(s.command != "git init" for s in suggest_fixes("git submodule update", out, 128))


def test_a_misspelt_remote_branch_gets_no_second_prefix() -> None:
    """`origin/mian` is not fixed into `origin/origin/mian`."""
    out = "merge: origin/mian - not something we can merge\n"
    got = suggest_fixes("git merge origin/mian", out, 1)
    assert all("origin/origin" not in s.command for s in got)
