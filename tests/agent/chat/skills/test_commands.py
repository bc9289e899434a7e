"""run_readonly runs only safe commands, with a timeout; summarize needs a model."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from termwise.agent.chat.skills.base import SkillContext
from termwise.agent.chat.skills.registry import offered_skills, run_skill


def test_safe_command_runs_and_returns_its_output(ctx: SkillContext) -> None:
    """A command the safety rules call safe runs in the working folder; its output comes back."""
    # run_readonly runs cmd.exe on Windows, bash (or sh) elsewhere.
    listing = "dir" if sys.platform == "win32" else "ls"
    result = run_skill("run_readonly", {"command": listing}, ctx)
    assert result.ok
    assert result.text.startswith("exit code 0") and "notes.txt" in result.text


def test_cmd_switches_are_not_taken_for_paths(ctx: SkillContext, allowed: Path) -> None:
    """`dir /b` under cmd is a switch; under bash `/b` is a folder outside the allowed ones."""
    from termwise.agent.chat.skills.base import SkillError
    from termwise.agent.chat.skills.commands import _check_paths

    _check_paths("dir /b /s", ctx, "cmd")
    _check_paths('findstr /s /i "todo" *.py', ctx, "cmd")
    with pytest.raises(SkillError, match="outside"):
        _check_paths("ls /b", ctx, "bash")
    if sys.platform == "win32":
        result = run_skill("run_readonly", {"command": "dir /b"}, ctx)
        assert result.ok and "notes.txt" in result.text


def test_non_safe_commands_are_refused_and_not_run(ctx: SkillContext, allowed: Path) -> None:
    """A dangerous or unknown command is refused with the rule's reason, and nothing happens."""
    wipe, make = (
        ("rd /s /q src", "copy nul made.txt")
        if sys.platform == "win32"
        else (
            "rm -rf src",
            "touch made.txt",
        )
    )
    result = run_skill("run_readonly", {"command": wipe}, ctx)
    assert not result.ok and "refused" in result.text and "dangerous" in result.text
    assert (allowed / "src" / "main.py").exists()
    result = run_skill("run_readonly", {"command": make}, ctx)
    assert not result.ok and not (allowed / "made.txt").exists()


def test_safe_command_on_a_path_outside_is_refused(ctx: SkillContext, allowed: Path) -> None:
    """Even a read-only command may not read outside the allowed folders."""
    result = run_skill("run_readonly", {"command": f"cat {allowed.parent / 'outside.txt'}"}, ctx)
    assert not result.ok and "outside" in result.text and "private" not in result.text
    assert not run_skill("run_readonly", {"command": "cat ../outside.txt"}, ctx).ok


@pytest.mark.skipif(
    sys.platform == "win32", reason="cmd has no read-only command that waits (sleep is POSIX)"
)
def test_slow_command_is_stopped_at_the_timeout(ctx: SkillContext) -> None:
    """A command running past skills.readonly_timeout is stopped and reported."""
    ctx.config.skills.readonly_timeout = 0.5
    result = run_skill("run_readonly", {"command": "echo started; sleep 5; echo never"}, ctx)
    assert not result.ok
    assert "did not finish within 0.5 s" in result.text and "started" in result.text


def test_summarize_is_offered_only_with_a_model(ctx: SkillContext) -> None:
    """Without a model summarize is neither offered nor runnable; with one it returns its text."""
    assert "summarize" not in [s.name for s in offered_skills(ctx)]
    assert "needs a model" in run_skill("summarize", {"text": "long"}, ctx).text
    ctx.summarize = lambda text: f"short version of {len(text)} chars"
    assert "summarize" in [s.name for s in offered_skills(ctx)]
    assert run_skill("summarize", {"text": "abc"}, ctx).text == "short version of 3 chars"
