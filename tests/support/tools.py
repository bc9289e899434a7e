"""One rule for tests that need a tool: skip on a developer's machine, fail on Linux CI.

`.ci/run` installs every tool the Linux suite uses, so under `CI=true` on Linux a missing
tool is a broken set-up, never a reason to pass quietly. Elsewhere (a laptop, the Windows or
macOS jobs, where these POSIX tools are not expected) the test is skipped with the reason.
Use `require("zsh")` inside a test or fixture, or mark it `@pytest.mark.requires("zsh")`.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

DISPLAY = "display"  # not a program: an X display (pytest-xvfb provides one)


def missing(*tools: str) -> list[str]:
    """The tools (and `display`) this machine lacks."""
    lacking = []
    for tool in tools:
        if tool == DISPLAY:
            if not os.environ.get("DISPLAY"):
                lacking.append("an X display")
        elif shutil.which(tool) is None:
            lacking.append(tool)
    return lacking


def strict() -> bool:
    """Whether a missing tool fails the test (Linux CI) instead of skipping it."""
    return os.environ.get("CI") == "true" and sys.platform.startswith("linux")


def require(*tools: str) -> None:
    """Skip (or, on Linux CI, fail) unless every tool is here."""
    lacking = missing(*tools)
    if not lacking:
        return
    message = f"needs {', '.join(lacking)}"
    if strict():
        pytest.fail(f"{message}; .ci/run installs it on Linux CI, so its absence is a failure")
    pytest.skip(message)


def params(*tools: str) -> list[object]:
    """One pytest parameter per tool, each marked as requiring it (never silently dropped)."""
    return [pytest.param(tool, marks=pytest.mark.requires(tool)) for tool in tools]
