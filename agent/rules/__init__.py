"""The instant offline rules tier: known failures and their fixing commands, in milliseconds."""

from __future__ import annotations

from termwise.agent.base.types import Suggestion
from termwise.agent.rules import (  # noqa: F401  (importing a module registers its rules)
    build,
    devops,
    docker,
    files,
    git,
    git_remote,
    hints,
    langs,
    listed,
    misc,
    node,
    not_found,
    packages,
    permission,
    pip_npm,
    projects,
    python,
    python_setup,
    script_only,
    subcommands,
    system,
    typing_slips,
    usage,
    win_setup,
    windows,
)
from termwise.agent.rules.engine import RULES, Case, run_rules

__all__ = ["RULES", "suggest_fixes"]


def suggest_fixes(
    script: str,
    output: str,
    exit_code: int | None = None,
    shell: str = "bash",
    cwd: str | None = None,
) -> list[Suggestion]:
    """Ranked fixes for a failed command (at most 5, most specific first, no duplicates).

    `shell` is the shell it ran in (bash, zsh, fish, pwsh, powershell, cmd …); the commands
    returned use that shell's syntax. `cwd`, when given, lets rules look at the folder
    (package.json scripts, directory names).
    """
    return run_rules(Case(script or "", output or "", exit_code, shell, cwd))
