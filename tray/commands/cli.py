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

COMMAND_MODULES = (
    "termwise.tray.commands.session",  # serve, shell, attach, sessions, context, send
    "termwise.tray.commands.agent",  # ask, fix, check, redact, config
    "termwise.tray.commands.memory",  # mem, chat
    "termwise.tray.commands.deploy",  # deploy
    "termwise.tray.commands.doctor",  # doctor
    "termwise.tray.commands.prompt_words",  # type-at-prompt (internal, for the `??` word)
    "termwise.tray.commands.deploy_word",  # deploy-here (internal, for the `deploy` word)
)

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
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
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
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
