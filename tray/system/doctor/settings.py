"""Checks of the user's files: config validity and the memory folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from termwise.tray.system.doctor.base import CheckResult, DoctorContext, fail, ok, warn


def read_config(path: Path, env: dict[str, str]) -> tuple[object | None, list[str]]:
    """Parse the config without touching it (loading would set a broken file aside).

    Returns (config or None when the file is missing, problems).
    """
    from termwise.agent.base.config import parse_config

    if not path.exists():
        return None, []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{path}: cannot read the config file ({exc})"]
    config, problems = parse_config(text, path, env)
    return config, problems


def check_config(ctx: DoctorContext) -> list[CheckResult]:
    name = "Config"
    path = ctx.paths.config_file
    results: list[CheckResult] = []
    if ctx.config_problems:
        for problem in ctx.config_problems:
            results.append(
                fail(
                    name,
                    problem,
                    "edit the file at the line shown (Termwise would set it aside and use "
                    "defaults), or delete it to start again from defaults",
                )
            )
    elif not path.exists():
        results.append(ok(name, f"{path} does not exist yet; defaults apply until first start"))
    else:
        results.append(ok(name, f"{path} is valid"))
    aside = sorted(path.parent.glob(path.name + ".bad-*")) if path.parent.is_dir() else []
    if aside:
        results.append(
            warn(
                name,
                f"an earlier broken config was kept as {aside[-1]}",
                "copy what you need from it into config.yaml, then delete it",
            )
        )
    return results


def _nearest_existing(folder: Path) -> Path:
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def check_memory_folder(ctx: DoctorContext) -> CheckResult:
    name = "Memory folder"
    folder = ctx.paths.memory_dir
    fix = f"make {folder} writable by you (or set TERMWISE_HOME to a folder that is)"
    if not ctx.config.memory.enabled:
        return ok(name, "memory is off (memory.enabled: false)")
    if not folder.exists():
        base = _nearest_existing(folder)
        if base.is_dir() and os.access(base, os.W_OK | os.X_OK):
            return ok(name, f"{folder} will be created on first use")
        return fail(name, f"{folder} does not exist and {base} is not writable", fix)
    if not folder.is_dir():
        return fail(name, f"{folder} is not a folder", f"move the file {folder} away")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-", delete=True) as probe:
            probe.write(b"ok")
            probe.flush()
    except OSError as exc:
        return fail(name, f"{folder} is not writable: {exc.strerror or exc}", fix)
    entries = sum(1 for p in folder.rglob("*.md"))
    return ok(name, f"{folder} is writable ({entries} Markdown files)")
