"""Run every check in report order; a check that crashes becomes a FAIL line, not a traceback."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from termwise.tray.system.doctor import providers, qt, settings, system
from termwise.tray.system.doctor.base import CheckResult, DoctorContext, fail

Check = Callable[[DoctorContext], "CheckResult | list[CheckResult]"]

CHECKS: tuple[tuple[str, Check], ...] = (
    ("Python", system.check_python),
    ("Qt platform", qt.probe_qt),
    ("Hotkey backend", system.check_hotkey),
    ("PTY backend", system.check_pty),
    ("Shells", system.check_shells),
    ("termwise on PATH", system.check_command_on_path),
    ("Terminal launcher", system.check_terminal),
    ("Keyring", system.check_keyring),
    ("Clipboard", system.check_clipboard),
    ("Config", settings.check_config),
    ("Memory folder", settings.check_memory_folder),
    ("Providers", providers.check_providers),
)


def _run_one(name: str, check: Check, ctx: DoctorContext) -> list[CheckResult]:
    try:
        result = check(ctx)
    except Exception as exc:
        return [
            fail(
                name,
                f"the check itself failed: {type(exc).__name__}: {exc}",
                "report this as a Termwise bug",
            )
        ]
    return result if isinstance(result, list) else [result]


def run_checks(
    ctx: DoctorContext, checks: Iterable[tuple[str, Check]] = CHECKS
) -> list[CheckResult]:
    """All results in the order of `checks`; slow ones (Qt child, network) run side by side."""
    checks = list(checks)
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(_run_one, name, check, ctx) for name, check in checks]
        return [result for future in futures for result in future.result()]
