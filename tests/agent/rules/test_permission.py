"""Permission denied: sudo, sudo tee, chmod +x, --user, elevated Windows shells."""

from __future__ import annotations

import pytest

from tests.agent.rules.cases_permission import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_permission_table(case: T) -> None:
    """Each permission failure yields the way to run it with the rights it needs."""
    check(case)


def test_remote_access_denied_is_not_a_sudo_problem() -> None:
    """An S3 'Access Denied' is about the account: no sudo, no elevated shell."""
    from termwise.agent.rules import suggest_fixes

    out = "An error occurred (AccessDenied) when calling the GetObject operation: Access Denied"
    for shell in ("bash", "powershell"):
        got = suggest_fixes("aws s3 cp s3://bucket/key .", out, 1, shell)
        assert not any(s.rule in ("perm_sudo", "perm_elevate") for s in got)
