"""Package runners that start another program: `npx wrangler delete`, `pnpm exec`, `uv run`.

The program they start is judged as if typed alone; a runner that may download the package
first adds its own `confirm`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from termwise.agent.safety.rules import RuleSet

if TYPE_CHECKING:
    from termwise.agent.safety.engine import Analyzer


class Runner(NamedTuple):
    # verb → whether it may fetch the package; no verbs: the runner itself runs the program
    verbs: dict[str, bool]
    values: frozenset[str]  # options that take the next word as their value
    command_options: frozenset[str] = frozenset()  # their value is a whole command line
    fetches: bool = False  # for runners without verbs
    lead_words: frozenset[str] = frozenset()  # words allowed before the verb (`uv tool run`)
    # `pnpm wrangler …` / `yarn wrangler …`: a first word that is not one of the runner's own
    # commands starts the project's script or installed program of that name
    own_commands: frozenset[str] = frozenset()


class Start(NamedTuple):
    """Where in the runner's arguments the started program begins, and how it is started."""

    at: int
    fetches: bool  # the runner may download the package first
    line: str | None  # a command line given whole (`npx -c '…'`)
    project: bool = False  # `pnpm wrangler`: the project's script of that name, or its program


_NPX_VALUES = frozenset(
    {"-p", "--package", "--node-options", "--cache", "--registry", "--userconfig"}
)
_PY_PROJECT = frozenset({"-C", "--directory", "-P", "--project"})
_CONDA = frozenset({"-n", "--name", "-p", "--prefix", "--cwd"})
_UV_VALUES = frozenset(
    {
        "--with",
        "--with-editable",
        "--with-requirements",
        "--python",
        "-p",
        "--project",
        "--directory",
        "--package",
        "--extra",
        "--group",
        "--env-file",
        "--index",
        "--index-url",
        "--from",
    }
)

_PNPM_OWN = frozenset(
    "add i install update up upgrade remove rm uninstall un link ln unlink import rebuild rb prune "
    "fetch install-test it patch patch-commit patch-remove audit list ls la ll outdated why licenses "
    "run run-script test t tst start stop restart exec dlx create init publish pack store root bin "
    "setup server env deploy doctor config c get set cache self-update recursive multi m help "
    "approve-builds ignored-builds catalog version docs home login logout whoami owner dist-tag "
    "search view info show star unstar stars team token unpublish deprecate undeprecate access "
    "adduser ci clean-install dedupe sbom query pkg profile repo bugs fund edit explore x".split()
)
_YARN_OWN = frozenset(
    "add audit autoclean bin cache check config constraints create dedupe dlx exec explain "
    "generate-lock-entry global help import info init install licenses link list login logout node "
    "npm outdated owner pack patch patch-commit plugin policies publish rebuild remove run search "
    "set stage tag team test unlink unplug up upgrade upgrade-interactive version versions why "
    "workspace workspaces sdks start".split()
)

RUNNERS: dict[str, Runner] = {
    "npx": Runner({}, _NPX_VALUES, frozenset({"-c", "--call"}), fetches=True),
    "pnpx": Runner({}, _NPX_VALUES, frozenset({"-c", "--call"}), fetches=True),
    "bunx": Runner({}, frozenset({"-p", "--package"}), fetches=True),
    "uvx": Runner({}, _UV_VALUES, fetches=True),
    "npm": Runner(
        {"exec": True, "x": True},
        frozenset({"-p", "--package", "-w", "--workspace", "--prefix", "-C"}),
        frozenset({"-c", "--call"}),
    ),
    "pnpm": Runner(
        {"exec": False, "dlx": True},
        frozenset({"--dir", "-C", "--filter", "-F", "--package"}),
        frozenset({"-c"}),
        own_commands=_PNPM_OWN,
    ),
    "yarn": Runner(
        {"dlx": True, "exec": False},
        frozenset({"-p", "--package", "--cwd"}),
        own_commands=_YARN_OWN,
    ),
    "bun": Runner({"x": True}, frozenset({"--cwd", "-p", "--package"})),
    "uv": Runner({"run": False}, _UV_VALUES, lead_words=frozenset({"tool"})),
    "poetry": Runner({"run": False}, _PY_PROJECT),
    "bundle": Runner({"exec": False}, frozenset({"--gemfile"})),
    "pdm": Runner({"run": False}, frozenset({"-p", "--project"})),
    "hatch": Runner({"run": False}, frozenset({"-e", "--env"})),
    "pipx": Runner({"run": True}, frozenset({"--spec", "--python", "--pip-args", "--index-url"})),
    "conda": Runner({"run": False}, _CONDA),
    "mamba": Runner({"run": False}, _CONDA),
    "micromamba": Runner({"run": False}, _CONDA),
}


# node_modules/.bin/wrangler, node_modules/wrangler/bin/wrangler.js, node_modules/@s/cli/bin/x.mjs
_MODULE_BIN = (
    r"(?:^|[/\\])node_modules[/\\](?:\.bin[/\\](?P<bin>[^/\\.]+)(?:\.(?:cmd|ps1|exe))?"
    r"|(?:@[^/\\]+[/\\])?[^/\\]+[/\\](?:bin|dist|lib|cli)[/\\](?P<file>[^/\\.]+)(?:\.[cm]?[jt]s)?)$"
)
_SCRIPT_HOSTS = {"node": (), "nodejs": (), "bun": ("run",), "deno": ("run",)}


def module_program(name: str, args: list[str]) -> tuple[str, int] | None:
    """(program, index of its first argument) when `node node_modules/x/bin/x.js …` runs a
    package's own program, which is judged as if typed by name."""
    if name not in _SCRIPT_HOSTS:
        return None
    i = 0
    if args[:1] and args[0] in _SCRIPT_HOSTS[name]:
        i = 1
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        i += 1
    if i >= len(args):
        return None
    if "node_modules" not in args[i]:
        return None
    match = re.search(_MODULE_BIN, args[i])  # compiled on first use (re caches it)
    if match is None:
        return None
    return (match.group("bin") or match.group("file")), i + 1


def handle(
    analyzer: Analyzer, name: str, args: list[str], dynamic: list[bool], rules: RuleSet, depth: int
) -> bool:
    """Judge the program a runner starts; False when `args` start none (`npm install`)."""
    module = module_program(name, args)
    if module is not None:
        program, first = module
        rest = args[first:]
        # its code is the package's, not the program of that name on PATH: never "safe"
        analyzer.add(
            "confirm", "package-program", f"{name} runs the {program} program of a package"
        )
        analyzer.argv(
            [program, *rest], [False, *(dynamic or [False] * len(args))[first:]], rules, depth + 1
        )
        return True
    found = started(name, args)
    if found is None:
        return False
    start, fetches, line, project = found
    if project:
        # a package.json script of that name wins over the program, so it is never "safe"
        analyzer.add(
            "confirm",
            "project-script",
            f"{name} runs the project's {args[start]} script or program",
        )
    if fetches:
        analyzer.add(
            "confirm", "package-runner", f"{name} may download the package before running it"
        )
    if line is not None:
        analyzer.text(line, rules.family, depth + 1)
        return True
    words = [_program(args[start]) if fetches else args[start], *args[start + 1 :]]
    analyzer.argv(words, (dynamic or [False] * len(args))[start:], rules, depth + 1)
    return True


def started(name: str, args: list[str]) -> Start | None:
    """How `args` start a program; None when the runner starts nothing (`npm install`)."""
    runner = RUNNERS.get(name)
    if runner is None:
        return None
    i, fetches = 0, runner.fetches
    if runner.verbs:
        i = _skip_options(runner, args, 0)
        while i < len(args) and args[i] in runner.lead_words:
            i += 1
        if i < len(args) and runner.own_commands and args[i] not in runner.own_commands:
            return Start(i, False, None, project=True)  # exec/dlx are own commands
        if i >= len(args) or args[i] not in runner.verbs:
            return None
        fetches = runner.verbs[args[i]]
        i += 1
    for j in range(i, len(args)):
        option, eq, value = args[j].partition("=")
        if args[j] == "--" or not args[j].startswith("-"):
            break
        if option in runner.command_options:
            return Start(j, fetches, value if eq else (args[j + 1] if j + 1 < len(args) else ""))
    i = _skip_options(runner, args, i)
    if i < len(args) and args[i] == "--":
        i += 1
    return Start(i, fetches, None) if i < len(args) else None


def _program(package: str) -> str:
    """The program a fetched package runs: `wrangler@4` → wrangler, `@scope/cli@1` → cli."""
    if package.startswith("@") and "/" in package:
        package = package.split("/", 1)[1]
    return package.split("@", 1)[0] or package


def _skip_options(runner: Runner, args: list[str], i: int) -> int:
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        takes_value = "=" not in args[i] and args[i] in runner.values
        i += 2 if takes_value else 1
    return i
