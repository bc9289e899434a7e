"""The `termwise` command line: a thin dispatcher over per-family command modules.

Each module in `COMMAND_MODULES` defines `register(subparsers)`; it must import only
the standard library at module level, so `termwise attach` starts fast (no Qt).
`termwise` with no subcommand starts the tray.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

# Which module registers each subcommand. A command line naming one of them builds only
# that module's parsers (the lean path: `termwise check` imports neither the other command
# modules nor their standard-library imports); help and unknown words build them all.
# tests/tray/commands/test_cli_lean.py keeps this table equal to what the modules register.
COMMANDS: dict[str, str] = {
    **dict.fromkeys(
        ("serve", "shell", "attach", "sessions", "context", "send"),
        "termwise.tray.commands.session",
    ),
    **dict.fromkeys(("ask", "fix", "check", "redact", "config"), "termwise.tray.commands.agent"),
    **dict.fromkeys(("mem", "chat"), "termwise.tray.commands.memory"),
    "deploy": "termwise.tray.commands.deploy",
    "doctor": "termwise.tray.commands.doctor",
    "type-at-prompt": "termwise.tray.commands.prompt_words",  # internal, for the `??` word
    "deploy-here": "termwise.tray.commands.deploy_word",  # internal, for the `deploy` word
}
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))
GLOBAL_FLAGS = ("--json-logging", "--smoke-test")  # top-level options that take no value

# Exit codes with a meaning of their own (documented in the README).
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3  # no host running, no model answering …
EXIT_BROKEN_PIPE = 141  # what a shell shows for a program ended by SIGPIPE


def version() -> str:
    from termwise.tray import VERSION

    return VERSION


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that never takes a prefix for an option (`--json` is not `--jsonl`).

    Subparsers are built with the parent's class, so every `termwise` subcommand gets it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)


class Formatter(argparse.HelpFormatter):
    """argparse's help formatter, sized without importing shutil.

    argparse builds a formatter for every argument added (to check its metavar), and the
    stock one imports shutil (with bz2, lzma …) to ask for the terminal width: a few ms of
    every start for a width that only help text uses.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def terminal_columns(fallback: int = 80) -> int:
    """$COLUMNS, else the width of the terminal on stdout, else `fallback` (as shutil does)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else fallback


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    """The command line with the subcommands of `modules` (all of them by default)."""
    parser = Parser(
        prog="termwise",
        description="Terminal helper: owns your shells, explains failures, suggests fixes.",
    )
    parser.add_argument("--version", action="version", version=f"termwise {version()}")
    parser.add_argument(
        "--json-logging", action="store_true", help="also write logs as JSON lines to stderr"
    )
    parser.add_argument(
        "--smoke-test",
        action="store_true",
        help="start, open a session, run a command, read it back, exit 0 (installer check)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


def modules_for(argv: Sequence[str]) -> Sequence[str]:
    """The command modules a command line needs: the one of the subcommand it names, none
    for `--version`, all of them for help, an unknown word or no subcommand at all."""
    for word in argv:
        if word in GLOBAL_FLAGS:
            continue
        if word == "--version":
            return ()
        module = COMMANDS.get(word)
        return COMMAND_MODULES if module is None else (module,)
    return COMMAND_MODULES


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    args = build_parser(modules_for(argv)).parse_args(argv)  # the parser is not kept alive
    if args.smoke_test:
        from termwise.tray.system.smoke import run_smoke_test

        return run_smoke_test(args)
    func = getattr(args, "func", None)
    if func is None:
        problem = no_display(os.environ, sys.platform)
        if problem:
            # Qt would abort the interpreter (exit 134) with advice to reinstall.
            print(f"termwise: {problem}", file=sys.stderr)
            return EXIT_UNAVAILABLE
        from termwise.tray.app.app import main as tray_main

        return int(tray_main(args) or 0)
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        if not _reader_gone(exc):
            raise
        # The reader went away (`termwise check --jsonl … | head`): end quietly, as
        # `yes | head` does, and keep Python from complaining when it flushes at exit.
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except _user_errors() as exc:
        # Errors raised on purpose are written for users: one line, no traceback.
        print(f"termwise: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", EXIT_FAILURE))


def _reader_gone(exc: OSError) -> bool:
    """Whether `exc` means the reader of our standard output went away.

    POSIX says so with EPIPE (BrokenPipeError). Windows' C runtime reports a write to a pipe
    whose reader closed as EINVAL; an empty WriteFile on stdout's handle then fails too
    (ERROR_NO_DATA), which tells it apart from an EINVAL raised by anything else.
    """
    if isinstance(exc, BrokenPipeError):
        return True
    if sys.platform != "win32" or exc.errno != errno.EINVAL:
        return False
    import _winapi
    import msvcrt

    try:
        _winapi.WriteFile(msvcrt.get_osfhandle(sys.stdout.fileno()), b"")
    except (OSError, ValueError):
        return True
    return False


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# Qt platforms that draw without any display server.
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb")


def no_display(env: Mapping[str, str], platform: str) -> str | None:
    """Why the tray cannot start here (no X11 or Wayland display), or None when it can."""
    if not platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    qpa = env.get("QT_QPA_PLATFORM", "").split(":", 1)[0].strip().lower()
    if qpa.startswith(HEADLESS_PLATFORMS):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no display (neither DISPLAY nor WAYLAND_DISPLAY is set), so the tray cannot start; "
        "run `termwise serve` for the session host without a tray, and `termwise doctor` "
        "to check this machine"
    )


def _user_errors() -> tuple[type[BaseException], ...]:
    from termwise.agent.base.errors import AgentError
    from termwise.memory.errors import MemoryStoreError
    from termwise.tray.errors import TrayError

    return (AgentError, MemoryStoreError, TrayError)


if __name__ == "__main__":
    sys.exit(main())
