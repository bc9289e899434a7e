"""The rules tier's data (YAML under resources/rules/), loaded on first use and cached."""

from __future__ import annotations

from functools import cache
from typing import Any

from termwise.agent.base.datafiles import resource_yaml


@cache
def load(name: str) -> Any:
    """The parsed `resources/rules/<name>.yaml` (read once per process, and kept parsed in
    the user's cache folder so a start does not load the YAML parser)."""
    (data,) = resource_yaml(f"rules-{name}", [f"rules/{name}.yaml"])
    return data or {}


def import_packages() -> dict[str, str]:
    """Python import name → the pip package that provides it."""
    return load("python_imports")["imports"]  # type: ignore[no-any-return]


def tools() -> dict[str, dict[str, str]]:
    """Tool (command) name → package name per package manager."""
    return load("tools")["tools"]  # type: ignore[no-any-return]


def tool_aliases() -> dict[str, str]:
    """Command name → the tool entry that provides it (e.g. npx → node)."""
    return load("tools")["aliases"]  # type: ignore[no-any-return]


def subcommands(app: str) -> list[str]:
    """Known subcommands of a common CLI (empty when unknown)."""
    return list(load("subcommands").get(app, []))


@cache
def known_command_set(family: str) -> frozenset[str]:
    """`known_commands(family)` as a set, for membership tests."""
    return frozenset(known_commands(family))


def known_commands(family: str) -> list[str]:
    """Builtins, cmdlets and common programs of a shell family, most common first."""
    return list(load("commands").get(family, []))


def typos() -> dict[str, str]:
    """Famous mistypings of command names and what was meant."""
    return load("commands")["typos"]  # type: ignore[no-any-return]


def windows_equivalents() -> dict[str, dict[str, str]]:
    """Unix command → templates for PowerShell and cmd."""
    return load("windows")["equivalents"]  # type: ignore[no-any-return]


def posix_equivalents() -> dict[str, str]:
    """Windows command or cmdlet → template of the POSIX command."""
    return load("windows")["posix_equivalents"]  # type: ignore[no-any-return]


def permission_messages() -> list[str]:
    """Lower-case fragments of error messages that mean 'needs root/administrator'."""
    return list(load("messages")["permission"])


def apt_renames() -> dict[str, str]:
    """Package names people try with apt → the Debian/Ubuntu package that exists."""
    return load("messages")["apt_renames"]  # type: ignore[no-any-return]


def headers() -> dict[str, dict[str, str]]:
    """Missing C header → development package per manager."""
    return load("messages")["headers"]  # type: ignore[no-any-return]
