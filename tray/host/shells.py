"""Which shells this machine has, and how Termwise launches each with its integration."""

from __future__ import annotations

import base64
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from termwise.tray.errors import TrayError
from termwise.tray.system.selfcmd import CMD_ENV, termwise_program

KNOWN_SHELLS = ("pwsh", "powershell", "cmd", "bash", "zsh", "wsl")

ZSH_WRAPPER_PREFIX = "termwise-zsh-"
STALE_WRAPPER_AGE = 3600.0  # seconds; a zsh reads its wrapper within moments of starting
# Wrapper files copied into a private ZDOTDIR, by the name zsh looks for.
_ZSH_FILES = {
    ".zshenv": "zshenv.zsh",
    ".zprofile": "zprofile.zsh",
    ".zshrc": "zshrc.zsh",
    "termwise.zsh": "termwise.zsh",
}


class UnknownShell(TrayError):
    """A shell name Termwise does not know; the message lists the ones it can start."""

    exit_code = 2


class ShellNotFound(TrayError):
    """A known shell whose program is not installed; the message names the program."""


@dataclass(frozen=True)
class LaunchSpec:
    """How to start one session's shell: the program and arguments, and its environment."""

    name: str
    argv: list[str]
    env: dict[str, str]


def _candidates(name: str, env: Mapping[str, str]) -> list[str]:
    """Program names or paths to try for a shell, best first."""
    if sys.platform == "win32":
        root = _env_value(env, "SystemRoot") or r"C:\Windows"
        return {
            "pwsh": ["pwsh.exe"],
            "powershell": [
                "powershell.exe",
                rf"{root}\System32\WindowsPowerShell\v1.0\powershell.exe",
            ],
            "cmd": [_env_value(env, "ComSpec"), "cmd.exe", rf"{root}\System32\cmd.exe"],
            # Git for Windows keeps bash.exe out of PATH (only git.exe is there), and
            # the bash.exe on PATH is often System32's WSL launcher (see find_shell).
            "bash": [*_git_bash_paths(env), "bash.exe"],
            "zsh": ["zsh.exe"],
            "wsl": ["wsl.exe", rf"{root}\System32\wsl.exe"],
        }.get(name, [])
    return {"pwsh": ["pwsh"], "bash": ["bash"], "zsh": ["zsh"]}.get(name, [])


def _env_value(env: Mapping[str, str], name: str) -> str:
    """A variable by its name in any case: Windows names are case-blind, and a plain
    dict copy of os.environ there holds them upper-cased (SYSTEMROOT, COMSPEC)."""
    if name in env:
        return env[name]
    wanted = name.upper()
    return next((value for key, value in env.items() if key.upper() == wanted), "")


def _git_bash_paths(env: Mapping[str, str]) -> list[str]:
    """Where the Git for Windows installer puts bash.exe (machine-wide or per user)."""
    roots = [_env_value(env, v) for v in ("ProgramFiles", "ProgramW6432", "ProgramFiles(x86)")]
    local = _env_value(env, "LOCALAPPDATA")
    if local:
        roots.append(os.path.join(local, "Programs"))
    return [os.path.join(root, "Git", "bin", "bash.exe") for root in roots if root]


def _without_wsl_bash(path: str, env: Mapping[str, str]) -> str:
    """PATH minus System32, whose bash.exe starts WSL's Linux bash: that bash cannot read
    a Windows rcfile path (the shell named `wsl` is the way to get it)."""
    system32 = os.path.join(_env_value(env, "SystemRoot") or r"C:\Windows", "System32")
    keep = [d for d in path.split(os.pathsep) if not _same_dir(d, system32)]
    return os.pathsep.join(keep)


def _same_dir(a: str, b: str) -> bool:
    return os.path.normcase(a.rstrip("\\/")) == os.path.normcase(b.rstrip("\\/"))


def find_shell(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """Absolute path of a known shell's program, or None when it is not installed."""
    env = os.environ if env is None else env
    if sys.platform == "win32":
        path = _env_value(env, "PATH") or os.defpath
        if name == "bash":
            path = _without_wsl_bash(path, env)
    else:
        path = env.get("PATH", os.defpath)
    for candidate in _candidates(name, env):
        if not candidate:
            continue
        if os.path.isabs(candidate):
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
            continue
        found = shutil.which(candidate, path=path)
        if found:
            return os.path.abspath(found)
    return None


def available_shells(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Known shells found on this machine: name -> absolute path, in KNOWN_SHELLS order."""
    shells: dict[str, str] = {}
    for name in KNOWN_SHELLS:
        found = find_shell(name, env)
        if found:
            shells[name] = found
    return shells


def default_shell(config_default: str = "", env: Mapping[str, str] | None = None) -> str:
    """The shell a new session gets: the configured one, else the user's login shell
    where it is one we know, else the platform's usual one."""
    if config_default:
        return config_default
    env = os.environ if env is None else env
    found = available_shells(env)
    if sys.platform == "win32":
        order = ("pwsh", "powershell", "cmd")
    else:
        login = os.path.basename(env.get("SHELL", ""))
        order = (login, "bash", "zsh") if login in KNOWN_SHELLS else ("bash", "zsh")
    for name in order:
        if name in found:
            return name
    return next(iter(found), "bash")


def launch_command(
    name: str | None,
    *,
    session_id: str,
    base_env: Mapping[str, str],
    config_default: str = "",
) -> LaunchSpec:
    """The argv and environment that start `name` (or the default shell) with Termwise's
    integration injected, the user's own profile still loaded and no dotfile touched."""
    shell = (name or default_shell(config_default, base_env)).strip()
    explicit = _is_path(shell)  # "/opt/homebrew/bin/bash": that very program
    key = os.path.basename(shell).lower().removesuffix(".exe") if explicit else shell.lower()
    key = key.removesuffix(".exe")
    if key not in KNOWN_SHELLS:
        found = ", ".join(available_shells(base_env)) or "none found"
        raise UnknownShell(
            f"unknown shell {shell!r}; Termwise can start: {', '.join(KNOWN_SHELLS)} "
            f"(on this machine: {found})"
        )
    if explicit:
        if not (os.path.isfile(shell) and os.access(shell, os.X_OK)):
            raise ShellNotFound(f"shell {key!r} is not installed: no program at {shell}")
        program: str | None = os.path.abspath(shell)
    else:
        program = find_shell(key, base_env)
    if program is None:
        raise ShellNotFound(f"shell {key!r} is not installed: no {_program_name(key)!r} on PATH")
    env = dict(base_env)
    env["TERMWISE_SESSION"] = session_id
    own = termwise_program()  # the words typed at a prompt call this installation
    if own:
        env[CMD_ENV] = own
    if sys.platform != "win32":
        env.setdefault("TERM", "xterm-256color")
    argv = _integrated_argv(key, program, env)
    return LaunchSpec(name=key, argv=argv, env=env)


def _is_path(name: str) -> bool:
    return os.sep in name or (os.altsep is not None and os.altsep in name)


def _program_name(key: str) -> str:
    names = _candidates(key, {}) or [key]
    return os.path.basename(names[0]) or key


def script_path(*parts: str) -> Path:
    """A shell-integration file shipped in `termwise.resources/shell`."""
    from termwise.agent.base.datafiles import resources_folder

    folder = resources_folder()
    if folder is not None:
        return folder.joinpath("shell", *parts)
    from importlib import resources

    return Path(str(resources.files("termwise.resources").joinpath("shell", *parts)))


def _integrated_argv(key: str, program: str, env: dict[str, str]) -> list[str]:
    if key == "bash":
        if sys.platform == "darwin":  # Terminal.app starts login shells; so do we
            env["TERMWISE_SHELL_LOGIN"] = "1"
        # as_posix: Git Bash on Windows reads C:/x/y but not C:\x\y.
        return [program, "--rcfile", script_path("termwise.bash").as_posix()]
    if key == "zsh":
        env["ZDOTDIR"] = _zsh_wrapper_dir(env)
        return [program, "-i"]
    if key in ("pwsh", "powershell"):
        # The script's text goes in as a command, not as a .ps1 path: execution policy
        # (Restricted by default on Windows PowerShell 5.1) blocks script files, not
        # commands. No -NoProfile: the user's profile loads first, as always.
        text = script_path("termwise.ps1").read_text(encoding="utf-8")
        encoded = base64.b64encode(text.encode("utf-16-le")).decode("ascii")
        return [program, "-NoLogo", "-NoExit", "-EncodedCommand", encoded]
    if key == "cmd":
        # `call`: cmd strips the quotes around a /k command that starts with one when
        # the path holds any of &<>()@^| (cmd /?), e.g. "…\Termwise (beta)\…"; a command
        # starting with a word keeps them.
        return [program, "/k", "call", str(script_path("termwise.cmd"))]
    return [program]  # wsl: the Linux side has its own dotfiles; no marks there yet


def _zsh_wrapper_dir(env: dict[str, str]) -> str:
    """A private ZDOTDIR holding the wrapper files; the user's own ZDOTDIR is passed on."""
    user = env.get("ZDOTDIR")
    if user:
        env["TERMWISE_USER_ZDOTDIR"] = user
    else:
        env.pop("TERMWISE_USER_ZDOTDIR", None)
    _remove_stale_wrappers()
    folder = Path(tempfile.mkdtemp(prefix=ZSH_WRAPPER_PREFIX))
    for target, source in _ZSH_FILES.items():
        text = script_path("zsh", source).read_text(encoding="utf-8")
        (folder / target).write_text(text, encoding="utf-8")
    return str(folder)


def _remove_stale_wrappers(max_age: float = STALE_WRAPPER_AGE) -> None:
    """A zsh killed before reading its .zshrc leaves its wrapper folder behind; clear
    old ones of ours (never a young one: a zsh may be starting from it right now)."""
    cutoff = time.time() - max_age
    for folder in Path(tempfile.gettempdir()).glob(f"{ZSH_WRAPPER_PREFIX}*"):
        try:
            info = folder.lstat()
        except OSError:
            continue
        owned = not hasattr(os, "getuid") or info.st_uid == os.getuid()
        if owned and stat.S_ISDIR(info.st_mode) and info.st_mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
