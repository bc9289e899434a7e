"""The lean command line: a subcommand builds only its own module's parsers, and the client
commands (`check`, `context`, `sessions`, `send`) load none of the heavy libraries."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.tray.commands import cli

from tests.support.wine_limits import wine_limit
from tests.tray.serve_support import ServeProcess, serve_fixture

# Never needed by the client commands: Qt, the model SDK and its HTTP stack, the YAML
# parser, the GUI and app packages, and dataclasses (with inspect) for the host commands.
HEAVY = ("PySide6", "openai", "httpx", "pydantic", "yaml", "termwise.overlay", "termwise.tray.app")


def _subcommands(parser: argparse.ArgumentParser) -> set[str]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(action.choices)


def test_the_command_table_names_what_each_module_registers() -> None:
    """COMMANDS (the lean path's map) and the modules' register() agree, word for word."""
    for module in cli.COMMAND_MODULES:
        registered = _subcommands(cli.build_parser((module,)))
        assert registered == {c for c, m in cli.COMMANDS.items() if m == module}, module
    assert _subcommands(cli.build_parser()) == set(cli.COMMANDS)


def test_help_and_unknown_words_still_see_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    """`termwise --help` lists all commands; a typo is told the full list of choices."""
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in ("check", "context", "deploy", "doctor", "mem"))
    with pytest.raises(SystemExit) as exc:
        cli.main(["chekc", "--", "ls"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'chekc'" in err and "check" in err


def test_modules_for_picks_the_subcommands_module() -> None:
    assert cli.modules_for(["check", "--", "ls"]) == ("termwise.tray.commands.agent",)
    assert cli.modules_for(["--json-logging", "context"]) == ("termwise.tray.commands.session",)
    assert cli.modules_for(["--version"]) == ()
    assert cli.modules_for([]) == cli.COMMAND_MODULES
    assert cli.modules_for(["-h"]) == cli.COMMAND_MODULES


def _modules_after(args: list[str]) -> tuple[int, set[str]]:
    """Run the command line in a fresh interpreter; its exit code and every module it loaded."""
    code = (
        "import sys\n"
        "from termwise.tray.commands.cli import main\n"
        "try:\n"
        f"    rc = main({args!r})\n"
        "except SystemExit as exc:\n"
        "    rc = exc.code\n"
        "print('\\nMODULES ' + ' '.join(sorted(sys.modules)), flush=True)\n"
        "sys.exit(rc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("MODULES ")]
    assert line, done.stdout + done.stderr
    return done.returncode, set(line[-1].split()[1:])


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY)}


def test_check_loads_no_heavy_library() -> None:
    """`termwise check` (its rules cache warm) loads no Qt, SDK or YAML parser."""
    _modules_after(["check", "--", "ls"])  # the first run fills the cache
    rc, modules = _modules_after(["check", "--", "rm", "-rf", "/"])
    assert rc == 11
    assert not _heavy(modules)
    assert "termwise.tray.commands.session" not in modules  # only its own command module
    # dataclasses (with inspect) and building its classes, then logging, were a quarter
    # of `check`'s start; it runs once per command a user types.
    assert not {"dataclasses", "inspect", "logging"} & modules


def test_version_loads_no_command_module() -> None:
    rc, modules = _modules_after(["--version"])
    assert rc == 0
    assert not {
        m
        for m in modules
        if m.startswith("termwise.tray.commands.") and m != "termwise.tray.commands.cli"
    }


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


@wine_limit("no-posix-tools")  # a bash session
def test_host_client_commands_load_no_heavy_library(serve: ServeProcess) -> None:
    """`context`, `sessions` and `send` talk to the host with the standard library alone."""
    sid = str(serve.client.create("bash")["id"])
    serve.run_command(sid, "echo lean")
    for args in (["context", "--session", sid], ["sessions"], ["send", "--session", sid, "true"]):
        rc, modules = _modules_after(args)
        assert rc == 0, args
        assert not _heavy(modules), (args, _heavy(modules))
        # dataclasses (with inspect, ast, dis) was a tenth of `context`'s start.
        assert "dataclasses" not in modules, args
        assert "termwise.tray.commands.agent" not in modules, args


@wine_limit("no-posix-tools")  # a bash session
def test_the_ask_word_loads_no_heavy_library_without_a_model(serve: ServeProcess) -> None:
    """`??` after a failed command, with no model set up: rules only, no SDK, Qt or YAML."""
    sid = str(serve.client.create("bash")["id"])
    serve.run_command(sid, "git psuh")
    args = ["ask", "--from-prompt", "--plain", "--session", sid]
    _modules_after(args)  # the first run fills the rules-data cache
    rc, modules = _modules_after(args)
    assert rc in (0, 1, 3), rc  # suggestions, none, or "no model" for what rules miss
    assert not _heavy(modules), _heavy(modules)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/maps")
def test_an_idle_host_with_a_warm_config_has_no_yaml_parser(termwise_home: Path) -> None:
    """`termwise serve` reads a config that parsed cleanly before from the cache: PyYAML's
    C extension (mapped whenever yaml is imported) is not in the host's memory."""
    import yaml
    from termwise.agent.base.config import load_config
    from termwise.agent.base.paths import resolve_paths

    assert yaml.__with_libyaml__  # else the check below would prove nothing
    config_file = resolve_paths().config_file
    load_config(config_file)  # creates the default file
    load_config(config_file)  # parses it and fills the cache
    serve = ServeProcess(termwise_home)
    try:
        serve.client.create("bash")
        maps = Path(f"/proc/{serve.proc.pid}/maps").read_text()
    finally:
        serve.stop()
    assert "_yaml" not in maps
    assert "PySide6" not in maps and "Qt6" not in maps
    # the bytecode helper is started with posix_spawn: subprocess (with its C parts) would
    # be imported for that alone
    assert "_posixsubprocess" not in maps


@wine_limit("no-posix-tools")  # a bash session
def test_fix_takes_the_rules_tier_from_the_host(serve: ServeProcess, tmp_path: Path) -> None:
    """`termwise fix` asks the host, where the rules are loaded once, for the rules tier:
    it answers `git push` judged `confirm` and never loads the rules or the safety engine."""
    from termwise.agent.suggest.wire import instant_json, rules_environment

    sid = str(serve.client.create("bash", cwd=str(tmp_path))["id"])
    serve.run_command(sid, "git psuh")
    args = ["fix", "--offline", "--json", "--session", sid]
    _modules_after(args)  # the first run fills the config cache
    rc, modules = _modules_after(args)
    assert rc == 0
    loaded = {m for m in modules if m.startswith(("termwise.agent.rules", "termwise.agent.safety"))}
    assert not loaded, loaded
    assert not _heavy(modules), _heavy(modules)
    reply = serve.client.context(sid, 5, rules=True)
    assert isinstance(reply.rules, list) and reply.rules[0]["command"] == "git push"
    assert reply.rules[0]["verdict"]["level"] == "confirm"
    # The same as this process finds from the same blocks.
    from termwise.agent.suggest.wire import block_from_json, session_context

    ctx = session_context([block_from_json(b) for b in reply], shell="bash", cwd=str(tmp_path),
                          session_id=sid)  # fmt: skip
    assert instant_json(ctx, rules_environment()) == reply.rules
    assert serve.client.context(sid, 5).rules is None  # only when asked


@wine_limit("no-posix-tools")  # a bash session
def test_fix_at_the_host_reads_the_callers_path(
    serve: ServeProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host runs the rules with the PATH of the shell `termwise fix` was typed in (a
    folder its rc file added), not with its own."""
    import os
    import stat

    tools = tmp_path / "mytools"
    tools.mkdir()
    prog = tools / "frobulate"
    prog.write_text("#!/bin/sh\necho hi\n")
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR)
    sid = str(serve.client.create("bash", cwd=str(tmp_path))["id"])
    serve.run_command(sid, "frobulat --all")
    path = f"{tools}{os.pathsep}{os.environ['PATH']}"
    monkeypatch.setenv("PATH", path)
    assert serve.client.context(sid, 5, rules=True).rules[0]["command"] == "frobulate --all"
    fix = subprocess.run([sys.executable, "-m", "termwise.tray.commands.cli", "fix", "--offline",
                          "--plain", "--session", sid], capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL)  # fmt: skip
    assert fix.returncode == 0, fix.stderr
    assert fix.stdout.splitlines()[0].startswith("1. frobulate --all"), fix.stdout
    monkeypatch.setenv("PATH", path.split(os.pathsep, 1)[1])
    offered = serve.client.context(sid, 5, rules=True).rules
    assert "frobulate --all" not in [r["command"] for r in offered]
