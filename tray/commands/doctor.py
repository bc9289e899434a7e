"""`termwise doctor`: report what works and how to fix what does not (stdlib-only imports here)."""

from __future__ import annotations

import argparse
import json
import os
import platform
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from termwise.tray.system.doctor import CheckResult

DEFAULT_TIMEOUT = 3.0
NAME_WIDTH = 18


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "doctor",
        help="check this machine and your settings, with fixes",
        description="Check Python, Qt, the system tray, hotkey, PTY backend, shells, "
        "terminal, keyring, clipboard, config, memory folder and every configured model "
        "provider. Each line is OK, WARN or FAIL with what to do; the exit code is 1 when "
        "anything FAILs.",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"how long to wait for each provider (default {DEFAULT_TIMEOUT:g})",
    )
    # Internal: the child process that tries Qt, so a missing display cannot abort doctor.
    p.add_argument("--qt-probe", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    if args.qt_probe:
        from termwise.tray.system.doctor.qt import probe_main

        return probe_main()
    from termwise.agent.base.config_schema import Config
    from termwise.agent.base.paths import resolve_paths
    from termwise.tray.system.doctor import DoctorContext, Status, run_checks
    from termwise.tray.system.doctor.settings import read_config

    env = dict(os.environ)
    paths = resolve_paths(env)
    config, problems = read_config(paths.config_file, env)
    ctx = DoctorContext(
        env=env,
        paths=paths,
        config=config if isinstance(config, Config) and not problems else Config(),
        config_problems=problems,
        timeout=args.timeout,
    )
    results = run_checks(ctx)
    failed = any(r.status is Status.FAIL for r in results)
    if args.json:
        report = {
            "version": _version(),
            "platform": platform.platform(),
            "ok": not failed,
            "checks": [r.to_json() for r in results],
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(render(results))
    return 1 if failed else 0


def _version() -> str:
    from termwise.tray.commands.cli import version

    return version()


def render(results: list[CheckResult]) -> str:
    """The report for people: one line per check, the fix indented under it."""
    lines = [f"termwise doctor (termwise {_version()}, {platform.system()} {platform.release()})"]
    counts = {"ok": 0, "warn": 0, "fail": 0}
    for r in results:
        counts[r.status.value] += 1
        lines.append(f"  {r.status.value.upper():<5} {r.name:<{NAME_WIDTH}} {r.detail}")
        if r.fix:
            lines.append(f"        {'':<{NAME_WIDTH}} fix: {r.fix}")
    summary = (
        f"{counts['ok']} ok, {_plural(counts['warn'], 'warning')}, "
        f"{_plural(counts['fail'], 'failure')}"
    )
    lines.append(summary if counts["fail"] else summary + " - nothing blocks Termwise")
    return "\n".join(lines)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
