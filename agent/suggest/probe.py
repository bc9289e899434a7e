"""Environment probe: OS, shell, WSL and installed tool versions, probed once and cached."""

from __future__ import annotations

import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CACHE_NAME = "environment.json"
CACHE_MAX_AGE = 7 * 24 * 3600.0
TOOL_TIMEOUT = 5.0

# tool name -> the command that prints its version (the first one found on PATH is used).
TOOLS: dict[str, tuple[tuple[str, ...], ...]] = {
    "git": (("git", "--version"),),
    "python": (("python3", "--version"), ("python", "--version")),
    "py": (("py", "--version"),),
    "pip": (("pip3", "--version"), ("pip", "--version")),
    "node": (("node", "--version"),),
    "npm": (("npm", "--version"),),
    "docker": (("docker", "--version"),),
    "conda": (("conda", "--version"),),
    "winget": (("winget", "--version"),),
    "scoop": (("scoop", "--version"),),
    "choco": (("choco", "--version"),),
    "brew": (("brew", "--version"),),
    "apt": (("apt", "--version"),),
}

_VERSION = re.compile(r"\d+(?:\.\d+)+[\w.+-]*")


def probe_environment(
    refresh: bool = False,
    cache_dir: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    clock: Any = time.time,
) -> dict[str, Any]:
    """What this machine has: {"os", "os_version", "platform", "shell", "wsl", "tools"}.

    Cached as JSON in `cache_dir` (default: the user cache folder); `refresh=True`
    probes again. A broken cache file is ignored and rewritten.
    """
    if cache_dir is None:
        from termwise.agent.base.paths import resolve_paths

        cache_dir = resolve_paths().cache_dir
    cache = cache_dir / CACHE_NAME
    if not refresh:
        cached = _read_cache(cache, clock())
        if cached is not None:
            return cached
    info = _probe(os.environ if env is None else env)
    info["probed_at"] = clock()
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_text(json.dumps(info, indent=1), encoding="utf-8")
        os.replace(tmp, cache)
    except OSError as exc:  # a read-only cache folder must not stop a suggestion
        log.warning("cannot cache the environment probe in %s: %s", cache_dir, exc)
    return info


def _read_cache(path: Path, now: float) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("tools"), dict):
        return None
    if now - float(data.get("probed_at", 0)) > CACHE_MAX_AGE:
        return None
    return data


def _probe(env: Mapping[str, str]) -> dict[str, Any]:
    with ThreadPoolExecutor(max_workers=6) as pool:
        versions = dict(zip(TOOLS, pool.map(_tool_version, TOOLS.values()), strict=True))
    return {
        "os": _os_name(),
        "os_version": _os_version(),
        "platform": platform.platform(terse=True),
        "machine": platform.machine(),
        "shell": _login_shell(env),
        "wsl": _is_wsl(),
        "tools": {name: v for name, v in versions.items() if v},
    }


def _tool_version(candidates: tuple[tuple[str, ...], ...]) -> str:
    for argv in candidates:
        exe = shutil.which(argv[0])
        if exe is None:
            continue
        flags = 0
        if sys.platform == "win32":
            flags = subprocess.CREATE_NO_WINDOW  # no console flashing up from the tray app
        try:
            done = subprocess.run(
                [exe, *argv[1:]],
                capture_output=True,
                text=True,
                timeout=TOOL_TIMEOUT,
                stdin=subprocess.DEVNULL,
                errors="replace",
                creationflags=flags,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            log.debug("probe %s failed: %s", argv[0], exc)
            continue
        m = _VERSION.search(done.stdout + "\n" + done.stderr)
        if m:
            return m.group(0)
    return ""


def _os_name() -> str:
    if sys.platform == "win32":
        return "Windows"
    if sys.platform == "darwin":
        return "macOS"
    return platform.system() or sys.platform


def _os_version() -> str:
    if sys.platform == "win32":
        return platform.version()
    if sys.platform == "darwin":
        return platform.mac_ver()[0]
    try:
        text = Path("/etc/os-release").read_text(encoding="utf-8")
    except OSError:
        return platform.release()
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', text, re.MULTILINE)
    return m.group(1) if m else platform.release()


def _is_wsl() -> bool:
    if sys.platform != "linux":
        return False
    try:
        return "microsoft" in Path("/proc/sys/kernel/osrelease").read_text().lower()
    except OSError:
        return False


def _login_shell(env: Mapping[str, str]) -> str:
    if sys.platform == "win32":
        return "powershell" if env.get("PSModulePath") else Path(env.get("COMSPEC", "cmd")).stem
    return Path(env.get("SHELL", "")).name


def describe_environment(info: Mapping[str, Any]) -> str:
    """One line for a prompt: 'Linux (Debian GNU/Linux 12); git 2.39.5, python 3.11.7 …'."""
    os_part = str(info.get("os", ""))
    if info.get("os_version"):
        os_part += f" ({info['os_version']})"
    if info.get("wsl"):
        os_part += " under WSL"
    tools = info.get("tools") or {}
    tool_part = ", ".join(f"{k} {v}" for k, v in tools.items())
    return f"{os_part}; tools: {tool_part}" if tool_part else os_part
