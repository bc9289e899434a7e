"""Permission denied: sudo, sudo tee, chmod +x, --user, elevated Windows shells."""

from __future__ import annotations

import pytest

from tests.agent.rules.cases_permission import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_permission_table(case: T) -> None:
    """Each permission failure yields the way to run it with the rights it needs."""
    check(case)
