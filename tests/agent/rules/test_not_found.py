"""Command not found: hints used verbatim, typos corrected, missing tools installed."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import pytest
from termwise.agent.rules import env, suggest_fixes

from tests.agent.rules.cases_not_found import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_not_found_table(case: T) -> None:
    """Each real not-found message yields the fix a person would type next."""
    check(case)


def test_typo_resolves_against_programs_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A typo of a program that only exists on this machine's PATH is corrected to it."""
    # Windows finds programs by extension (PATHEXT), POSIX by the executable bit.
    prog = tmp_path / ("frobnicate.cmd" if sys.platform == "win32" else "frobnicate")
    prog.write_text("#!/bin/sh\necho hi\n")
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ.get("PATH", ""))
    if sys.platform == "win32":  # cmd's own words for a program it cannot find
        error = "'frobnicat' is not recognized as an internal or external command,\noperable program or batch file."
        got = suggest_fixes("frobnicat --all", error, 1, "cmd")
    else:
        got = suggest_fixes("frobnicat --all", "bash: frobnicat: command not found", 127)
    assert [s.command for s in got][:1] == ["frobnicate --all"]


def test_a_program_installed_meanwhile_is_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived process (the host runs the rules for `termwise fix`) sees a program
    that appeared on PATH after its first look, and stops offering one that went away."""
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ.get("PATH", ""))
    name = "zqxwtool" + (".cmd" if sys.platform == "win32" else "")
    if sys.platform == "win32":  # cmd's own words for a program it cannot find
        failed: tuple = (
            "zqxwtoll --version",
            "'zqxwtoll' is not recognized as an internal "
            "or external command,\noperable program or batch file.",
            1,
            "cmd",
        )
    else:
        failed = ("zqxwtoll --version", "bash: zqxwtoll: command not found", 127)
    assert "zqxwtool --version" not in [s.command for s in suggest_fixes(*failed)]
    time.sleep(0.05)  # a coarse folder clock must still tick
    prog = tmp_path / name
    prog.write_text("#!/bin/sh\necho hi\n")
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR)
    assert [s.command for s in suggest_fixes(*failed)][:1] == ["zqxwtool --version"]
    prog.unlink()
    assert "zqxwtool --version" not in [s.command for s in suggest_fixes(*failed)]


def test_install_follows_the_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    """On Fedora the missing tool is installed with dnf, on Arch with pacman."""
    monkeypatch.setenv("TERMWISE_PKG_MANAGER", "dnf")
    assert (
        suggest_fixes("rg x", "bash: rg: command not found")[0].command
        == "sudo dnf install ripgrep"
    )
    monkeypatch.setenv("TERMWISE_PKG_MANAGER", "pacman")
    assert (
        suggest_fixes("rg x", "bash: rg: command not found")[0].command == "sudo pacman -S ripgrep"
    )


def test_distro_detected_from_os_release() -> None:
    """os-release's ID and ID_LIKE pick the package manager."""
    ubuntu = env.parse_os_release('NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n')
    rocky = env.parse_os_release('ID="rocky"\nID_LIKE="rhel centos fedora"\n')
    mint = env.parse_os_release("ID=linuxmint\nID_LIKE=ubuntu\n")
    arch = env.parse_os_release("ID=arch\n")
    weird = env.parse_os_release("ID=somethingelse\nID_LIKE=arch\n")
    assert [env.manager_for(x) for x in (ubuntu, rocky, mint, arch, weird)] == [
        "apt",
        "dnf",
        "apt",
        "pacman",
        "pacman",
    ]


def test_success_and_empty_input_give_nothing() -> None:
    """A command that printed nothing alarming gets no suggestions."""
    assert suggest_fixes("ls", "a.txt  b.txt\n", 0) == []
    assert suggest_fixes("", "", None) == []
