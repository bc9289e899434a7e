"""Property tests: every rule takes any script and any output without failing."""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from termwise.agent.rules import suggest_fixes

from tests.support.work import calls_made

SHELLS = ("bash", "zsh", "fish", "pwsh", "powershell", "cmd")
# Pieces of real failures, so the fuzzer reaches the rules' branches, not only noise.
_SCRIPT = st.sampled_from(
    [
        "git",
        "push",
        "commit",
        "diff",
        "branch",
        "0d",
        "stash",
        "ls",
        "man",
        "2",
        "-s",
        "cd",
        "..",
        "cp",
        "mv",
        "touch",
        "a/b/",
        "brew",
        "install",
        "choco",
        "adb",
        "hg",
        "fab",
        "x:y=1",
        "open",
        "example.org",
        "./run.sh",
        "python",
        "java",
        "Main.java",
        "systemctl",
        "nginx",
        "start",
        "sudo",
        "ln",
        "mkdir",
        "grep",
        ".",
        "'",
        '"',
        "ç",
        "λσ",
        "ךד",
        "$",
        "&&",
        "|",
        ";",
        " ",
        "-h",
        "Get-ChildItem",
        "dir",
        "/a",
    ]
)
_OUTPUT = st.sampled_from(
    [
        "",
        "\n",
        "Did you mean?\n\t",
        "Did you mean one of these?\n",
        "   install\n",
        "is ambiguous:\n    ",
        "(did you mean one of ",
        "Command(s) not found:\n    x\n",
        "Available commands:\n\n    y\n",
        "Android Debug Bridge version 1.0.41\n",
        "usage: x\n",
        "not authenticated",
        "Multiple apps in git remotes\n",
        " (heroku)\n",
        "--app ",
        "Files=0, Tests=0",
        "The file ",
        " does not exist.\n",
        "Cannot find path '",
        "' because it does not exist.",
        "No such file or directory",
        "fatal: A branch named '",
        "' already exists.",
        "To reinstall 1.0, run `brew reinstall x`",
        "requirement",
        "No module named 'x'",
        "[main 1a2b3c4] msg\n",
        "hook failed",
        "No manual entry for x",
        "permission denied",
        "image\n is being used by running container abc123",
        "`",
        "'",
    ]
)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    script=st.lists(_SCRIPT | st.text(max_size=6), max_size=8).map(" ".join),
    output=st.lists(_OUTPUT | st.text(max_size=12), max_size=10).map("".join),
    code=st.sampled_from([None, 0, 1, 2, 126, 127, 9009]),
    shell=st.sampled_from(SHELLS),
)
def test_no_rule_fails_on_any_input(
    script: str, output: str, code: int | None, shell: str, caplog: pytest.LogCaptureFixture
) -> None:
    """No rule raises (the engine would hide it, so its log is checked), and the answer keeps
    its shape: at most five distinct, non-empty commands."""
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="termwise.agent.rules.engine"):
        got = suggest_fixes(script, output, code, shell)
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert not failed, failed
    commands = [s.command for s in got]
    assert len(commands) <= 5 and len(set(commands)) == len(commands)
    # A line break only where the user's own multi-line script is carried over.
    assert all(c.strip() and ("\n" not in c or "\n" in script) for c in commands)


def _calls(script: str, output: str, shell: str) -> int:
    """Function calls made by one suggest_fixes: a measure of work no load skews."""
    return calls_made(lambda: suggest_fixes(script, output, None, shell))


@pytest.mark.parametrize("shell", ["bash", "powershell"])
@pytest.mark.parametrize(
    "script, unit",
    [
        ("git branch 0d x", "Did you mean?\n\tapp-log\n"),
        ("fab deploy", "Command(s) not found:\n    x\nAvailable commands:\n\n    y\n"),
        ("adb shel", "Android Debug Bridge version 1.0.41\n -d   use USB\n"),
        ("open x.io", "The file x.io does not exist.\n' because "),
        ("man 2 read", "No manual entry for read in section 2\n"),
    ],
)
def test_rules_work_grows_linearly(shell: str, script: str, unit: str) -> None:
    """Eight times the output makes at most about eight times the calls (no quadratic blow-up)."""
    suggest_fixes(script, unit, None, shell)  # data files load once per process, outside the count
    small = _calls(script, unit * 40, shell)
    large = _calls(script, unit * 320, shell)
    assert large <= 10 * small + 1000, (small, large)
