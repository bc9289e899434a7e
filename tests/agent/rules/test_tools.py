"""Docker, package managers, CLI subcommand typos, build tools and SSH."""

from __future__ import annotations

from pathlib import Path

import pytest
from termwise.agent.rules import suggest_fixes

from tests.agent.rules.cases_tools import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_tools_table(case: T) -> None:
    """Each tool failure yields the tool's own hint or the nearest real subcommand."""
    check(case)


def test_make_target_from_the_real_makefile(tmp_path: Path) -> None:
    """With a cwd, a mistyped make target is matched against the Makefile's targets."""
    (tmp_path / "Makefile").write_text("deploy-staging:\n\techo hi\n\nlint:\n\truff .\n")
    got = suggest_fixes(
        "make deploy-stagng",
        "make: *** No rule to make target 'deploy-stagng'.  Stop.",
        2,
        "bash",
        cwd=str(tmp_path),
    )
    assert got[0].command == "make deploy-staging"


def test_missing_prerequisite_is_not_a_typo() -> None:
    """`No rule to make target 'foo.o', needed by …` is a missing file, not a mistyped target."""
    got = suggest_fixes(
        "make", "make: *** No rule to make target 'foo.o', needed by 'app'.  Stop.", 2
    )
    assert not any(s.rule == "make_no_target" for s in got)


def test_package_manager_of_another_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    """`apt install` on Fedora becomes `dnf install`; on a Mac (zsh, /Users paths) `brew install`."""
    monkeypatch.setenv("TERMWISE_PKG_MANAGER", "dnf")
    got = suggest_fixes("sudo apt-get install -y htop", "sudo: apt-get: command not found", 1)
    assert got[0].command == "sudo dnf install htop"
    got = suggest_fixes(
        "apt install wget", "zsh: command not found: apt\n(cwd /Users/me)", 127, "zsh"
    )
    assert got[0].command == "brew install wget"
