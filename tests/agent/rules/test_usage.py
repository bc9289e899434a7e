"""Usage slips (flags out of place, doubled words, aliases) and Windows setup gaps."""

from __future__ import annotations

from pathlib import Path

import pytest
from termwise.agent.rules import suggest_fixes

from tests.agent.rules.cases_usage import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_usage_table(case: T) -> None:
    """Each slip yields the corrected command, the most specific fix first."""
    check(case)


def test_tmux_abbreviation_prefers_the_closest_completion() -> None:
    """An ambiguous tmux abbreviation ranks the shortest completion first."""
    out = (
        "ambiguous command: list, could be: list-buffers, list-clients, list-commands, "
        "list-keys, list-panes, list-sessions, list-windows"
    )
    got = [s.command for s in suggest_fixes("tmux list", out, 1)]
    assert got[:2] == ["tmux list-keys", "tmux list-panes"]


def test_wrapper_script_in_the_folder(tmp_path: Path) -> None:
    """`gradle` missing but ./gradlew present: run the project's wrapper."""
    (tmp_path / "gradlew").write_text("#!/bin/sh\n")
    got = suggest_fixes("gradle tasks", "bash: gradle: command not found", 127, cwd=str(tmp_path))
    assert "./gradlew tasks" in [s.command for s in got]


def test_program_in_the_folder_needs_dot_slash(tmp_path: Path) -> None:
    """A program built in this folder is run with ./ (the shell does not search the cwd)."""
    (tmp_path / "server").write_text("")
    got = suggest_fixes(
        "server --port 80", "bash: server: command not found", 127, cwd=str(tmp_path)
    )
    assert "./server --port 80" in [s.command for s in got]


def test_balanced_quotes_are_left_alone() -> None:
    """A script whose quotes already pair up gets no quote rewrite."""
    got = suggest_fixes("echo \"it's\" 'x'", "bash: foo: command not found", 127)
    assert not any(s.rule == "mismatched_quotes" for s in got)


def test_npm_script_name_without_run(tmp_path: Path) -> None:
    """`npm watch-test` where watch-test is a package.json script: run it with npm run."""
    (tmp_path / "package.json").write_text('{"scripts": {"watch-test": "jest --watch"}}')
    out = (
        'Unknown command: "watch-test"\n\nTo see a list of supported npm commands, run:\n  npm help'
    )
    got = [s.command for s in suggest_fixes("npm watch-test", out, 1, cwd=str(tmp_path))]
    assert got[:2] == ["npm run watch-test", "npm run-script watch-test"]


def test_unknown_package_far_from_any_name_gets_no_guess() -> None:
    """A package name nothing resembles gets no invented near-miss, only the usual advice."""
    out = "E: Unable to locate package libqwzx-dev"
    got = suggest_fixes("sudo apt install libqwzx-dev", out, 100)
    assert got and not any(s.rule == "package_name_typo" for s in got)


def test_latin_script_is_not_retyped() -> None:
    """A command with Cyrillic only in its arguments is not treated as a layout slip."""
    got = suggest_fixes("echo привет", "bash: echo: write error", 1)
    assert not any(s.rule == "keyboard_layout" for s in got)


def test_a_quiet_success_gets_no_follow_up() -> None:
    """`git branch feature` that worked (exit 0, no output) is not second-guessed."""
    assert suggest_fixes("git branch feature", "", 0) == []


def test_cmdlet_typo_is_not_sent_to_the_gallery() -> None:
    """A misspelt built-in cmdlet gets the spelling fix, not a module search."""
    out = (
        "Get-ChildItme : The term 'Get-ChildItme' is not recognized as the name of a cmdlet, "
        "function, script file, or operable program."
    )
    got = suggest_fixes("Get-ChildItme", out, 1, "powershell")
    assert got[0].command == "Get-ChildItem"
    assert not any(s.rule == "ps_cmdlet_missing" for s in got)
