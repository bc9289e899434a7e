"""PowerShell and cmd: the shell's own way of doing what a Unix habit tried."""

from __future__ import annotations

import pytest
from termwise.agent.rules import suggest_fixes
from termwise.agent.rules.translate import translate

from tests.agent.rules.cases_not_found import PS51
from tests.agent.rules.cases_windows import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_windows_table(case: T) -> None:
    """Each Windows-shell failure yields that shell's command, in its syntax."""
    check(case)


def test_pipelines_translate_segment_by_segment() -> None:
    """Every Unix stage of a pipeline is rewritten; other stages stay as typed."""
    assert translate("cat log.txt | grep -i fail | wc -l", "pwsh") == (
        "Get-Content log.txt | Select-String -Pattern fail | Measure-Object -Line"
    )
    assert translate("git log | head -5", "powershell") == "git log | Select-Object -First 5"


def test_untranslatable_gives_no_translation() -> None:
    """A Unix command without the argument its equivalent needs is not guessed at."""
    assert translate("grep", "cmd") is None
    assert translate("git status", "pwsh") is None


def test_windows_suggestions_never_use_posix_sudo() -> None:
    """Windows shells never get `sudo …` or `&&` chains from the rules (PowerShell 5.1)."""
    for script in ("rg x", "pip install x", "choco install git"):
        got = suggest_fixes(
            script, PS51.format(script.split()[0]) + "\nAccess is denied.", 1, "powershell"
        )
        assert got and not any(s.command.startswith("sudo ") for s in got)
        assert not any("&&" in s.command for s in got)


def test_sudo_for_a_linux_tool_points_at_wsl_not_at_gsudo() -> None:
    """`sudo apt …` in PowerShell means WSL: installing gsudo would not bring apt."""
    for script in ("sudo apt install build-essential", "sudo systemctl restart nginx"):
        got = [s.command for s in suggest_fixes(script, PS51.format("sudo"), 1, "powershell")]
        assert got[0] == f"wsl {script}"
        assert not any("gsudo" in g for g in got), got
    # A Windows command under sudo still gets Windows' ways to elevate, gsudo among them.
    got = [
        s.command
        for s in suggest_fixes("sudo choco install git", PS51.format("sudo"), 1, "powershell")
    ]
    assert "gsudo choco install git" in got
    assert any("gerardog.gsudo" in g for g in got)
