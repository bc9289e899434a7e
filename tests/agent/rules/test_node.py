"""npm/yarn/pnpm/node: scripts, busy ports, package.json, dependencies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from termwise.agent.rules import suggest_fixes

from tests.agent.rules.cases_node import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_node_table(case: T) -> None:
    """Each JavaScript tooling failure yields its usual fix."""
    check(case)


def test_missing_script_uses_package_json_in_cwd(tmp_path: Path) -> None:
    """With a cwd, the nearest script comes from that project's package.json."""
    (tmp_path / "package.json").write_text(
        json.dumps({"scripts": {"storybook": "sb", "build:prod": "x"}})
    )
    got = suggest_fixes(
        "npm run storybok", 'npm ERR! Missing script: "storybok"', 1, "bash", cwd=str(tmp_path)
    )
    assert got[0].command == "npm run storybook"
    got = suggest_fixes(
        "npm run build:prd", 'npm error Missing script: "build:prd"', 1, "bash", cwd=str(tmp_path)
    )
    assert got[0].command == "npm run build:prod"


def test_broken_package_json_is_ignored(tmp_path: Path) -> None:
    """An unreadable package.json does not break the rule; the usual names still help."""
    (tmp_path / "package.json").write_text("{not json")
    got = suggest_fixes(
        "npm run tets", 'npm ERR! Missing script: "tets"', 1, "bash", cwd=str(tmp_path)
    )
    assert "npm run test" in [s.command for s in got]
