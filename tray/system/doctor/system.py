"""Checks of the machine: Python, PTY backend, shells, terminal, clipboard, hotkey, keyring."""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import sys
import time

from termwise.tray.system.doctor.base import (
    CheckResult,
    DoctorContext,
    fail,
    ok,
    self_command,
    warn,
)

PTY_TIMEOUT = 15.0
MIN_PYTHON = (3, 10)

# Tried in this order when terminal.command is empty (as the config's description says).
LINUX_TERMINALS = ("x-terminal-emulator", "gnome-terminal", "konsole", "xfce4-terminal", "xterm")


def check_python(ctx: DoctorContext) -> CheckResult:
    name = "Python"
    version = platform.python_version()
    where = "frozen build" if getattr(sys, "frozen", False) else sys.executable
    detail = f"{version} ({platform.python_implementation()}, {platform.machine()}), {where}"
    if sys.version_info < MIN_PYTHON:
        need = ".".join(map(str, MIN_PYTHON))
        return fail(name, detail, f"Termwise needs Python {need} or newer; install one")
    return ok(name, detail)


def check_pty(ctx: DoctorContext) -> CheckResult:
    """Spawn `termwise --version` in a real PTY and read it back."""
    name = "PTY backend"
    backend = "pywinpty" if ctx.platform == "win32" else "ptyprocess"
    fix = (
        "reinstall Termwise (pip install --force-reinstall pywinpty)"
        if ctx.platform == "win32"
        else "reinstall Termwise (pip install --force-reinstall ptyprocess)"
    )
    try:
        from termwise.tray.host.pty import spawn_pty

        pty = spawn_pty([*self_command(), "--version"], env=dict(ctx.env))
    except Exception as exc:
        return fail(name, f"{backend} cannot start a process: {type(exc).__name__}: {exc}", fix)
    output = b""
    deadline = time.monotonic() + PTY_TIMEOUT
    try:
        while time.monotonic() < deadline and b"termwise" not in output:
            chunk = pty.read(4096)
            if not chunk:
                break
            output += chunk
    finally:
        pty.terminate()
        pty.close()
    if ctx.platform == "win32":
        # Name the pseudo console that really ran it: WinPTY when ConPTY could not start.
        backend = f"pywinpty ({getattr(pty, 'backend', 'ConPTY')})"
    if b"termwise" not in output:
        return fail(name, f"{backend} started a process but read back {output[-200:]!r}", fix)
    detail = f"{backend}: a process ran in a pseudo-terminal and was read back"
    fallback = getattr(pty, "fallback_reason", "")
    if fallback:
        return warn(
            name,
            f"{detail}; ConPTY could not start ({fallback})",
            "WinPTY works but has no reliable resize: use Windows 10 1809 or newer for ConPTY",
        )
    return ok(name, detail)


def check_shells(ctx: DoctorContext) -> CheckResult:
    name = "Shells"
    from termwise.tray.host.shells import KNOWN_SHELLS, available_shells, default_shell

    found = available_shells(ctx.env)
    if not found:
        return fail(
            name,
            f"none of {', '.join(KNOWN_SHELLS)} found on PATH",
            "install bash or zsh (Windows: PowerShell or cmd should always be there; check PATH)",
        )
    configured = ctx.config.terminal.default_shell.strip()
    listing = ", ".join(f"{k} ({v})" for k, v in found.items())
    if configured and configured.lower().removesuffix(".exe") not in found:
        return fail(
            name,
            f"terminal.default_shell is {configured!r}, which is not installed; found: {listing}",
            f"install {configured} or set terminal.default_shell to one of: {', '.join(found)}",
        )
    chosen = default_shell(configured, ctx.env)
    return ok(name, f"{listing}; new sessions use {chosen}")


def _find_terminal(ctx: DoctorContext) -> str | None:
    path = ctx.env.get("PATH", os.defpath)
    if ctx.platform == "win32":
        return shutil.which("wt.exe", path=path) or "conhost.exe (built in)"
    if ctx.platform == "darwin":
        return "Terminal.app (open -a Terminal)"
    for candidate in LINUX_TERMINALS:
        found = shutil.which(candidate, path=path)
        if found:
            return found
    return None


def check_terminal(ctx: DoctorContext) -> CheckResult:
    """The program that opens a terminal window for `termwise attach` from the tray."""
    name = "Terminal launcher"
    template = ctx.config.terminal.command.strip()
    if template:
        try:
            program = shlex.split(template, posix=ctx.platform != "win32")[0]
            if ctx.platform == "win32":  # non-POSIX splitting keeps the quotes
                program = program.strip('"')
        except (ValueError, IndexError):
            return fail(name, f"terminal.command cannot be parsed: {template!r}", "fix its quoting")
        found = shutil.which(program, path=ctx.env.get("PATH", os.defpath))
        if found is None:
            return fail(
                name,
                f"terminal.command runs {program!r}, which is not on PATH",
                "install it, give its full path, or empty terminal.command to detect one",
            )
        if "{attach}" not in template:
            return warn(
                name,
                f"terminal.command ({template!r}) has no {{attach}} placeholder",
                "add {attach} where the attach command goes, e.g. `xterm -e {attach}`",
            )
        return ok(name, f"terminal.command: {found}")
    found_terminal = _find_terminal(ctx)
    if found_terminal is None:
        return warn(
            name,
            f"no terminal emulator found (tried {', '.join(LINUX_TERMINALS)})",
            "install one (e.g. `apt-get install xterm`) or set terminal.command in config.yaml",
        )
    return ok(name, found_terminal)


def check_clipboard(ctx: DoctorContext) -> CheckResult:
    name = "Clipboard"
    if ctx.platform in ("win32", "darwin"):
        return ok(name, "the system clipboard is used directly")
    path = ctx.env.get("PATH", os.defpath)
    if ctx.env.get("WAYLAND_DISPLAY"):
        tool = shutil.which("wl-copy", path=path)
        if tool:
            return ok(name, f"Wayland: {tool}")
    tools = [t for t in ("xclip", "xsel") if shutil.which(t, path=path)]
    if not tools:
        return warn(
            name,
            "neither xclip nor xsel is installed: copying a suggestion will not work",
            "install one: `apt-get install xclip` (or wl-clipboard on Wayland)",
        )
    if not ctx.env.get("DISPLAY") and not ctx.env.get("WAYLAND_DISPLAY"):
        return warn(
            name,
            f"{tools[0]} is installed but there is no DISPLAY to own the clipboard",
            "run Termwise inside your desktop session",
        )
    return ok(name, f"{', '.join(tools)} on display {ctx.env.get('DISPLAY', '')}")


def check_hotkey(ctx: DoctorContext) -> CheckResult:
    name = "Hotkey backend"
    combo = ctx.config.hotkey.combo
    if not ctx.config.hotkey.enabled:
        return ok(name, "disabled in config (hotkey.enabled: false)")
    module = "keyboard" if ctx.platform == "win32" else "pynput"
    if ctx.platform not in ("win32", "darwin"):
        if ctx.env.get("WAYLAND_DISPLAY") and not ctx.env.get("DISPLAY"):
            return warn(
                name,
                "Wayland without X11: global hotkeys cannot be grabbed",
                f"bind {combo} to `termwise` in your desktop's keyboard settings",
            )
        if not ctx.env.get("DISPLAY"):
            return warn(
                name,
                "no DISPLAY: the hotkey needs an X11 session",
                "run Termwise inside your desktop session",
            )
    try:
        __import__(module)
    except Exception as exc:  # pynput raises various errors when X is unusable
        return fail(
            name,
            f"{module} cannot be loaded: {type(exc).__name__}: {exc}",
            f"reinstall Termwise (pip install --force-reinstall {module})",
        )
    return ok(name, f"{module} loaded; {combo} shows the overlay")


def check_keyring(ctx: DoctorContext) -> CheckResult:
    name = "Keyring"
    try:
        import keyring
        from keyring.backends import fail as fail_backend
    except Exception as exc:
        return fail(name, f"keyring cannot be loaded: {exc}", "reinstall Termwise")
    backend = keyring.get_keyring()
    label = f"{type(backend).__module__}.{type(backend).__name__}"
    if isinstance(backend, fail_backend.Keyring):
        return warn(
            name,
            "no system keyring: API keys cannot be stored",
            "put the key in the provider's environment variable (e.g. OPENAI_API_KEY) or "
            "TERMWISE_API_KEY; on Linux install and unlock a Secret Service "
            "(gnome-keyring or KWallet)",
        )
    if "keyrings.alt" in label or "plaintext" in label.lower():
        return warn(
            name,
            f"{label} stores keys in a plain file",
            "uninstall keyrings.alt and use the system keyring",
        )
    return ok(name, label)


def check_command_on_path(ctx: DoctorContext) -> CheckResult:
    """`termwise` typed in a terminal should be this installation, not an older one."""
    name = "termwise on PATH"
    from termwise.tray.system.selfcmd import termwise_program

    mine = termwise_program()
    found = shutil.which("termwise", path=ctx.env.get("PATH", os.defpath))
    if found is None:
        where = f" ({os.path.dirname(mine)})" if mine else ""
        return warn(
            name,
            "`termwise` is not on PATH: terminals cannot run it by name",
            f"add this installation's folder{where} to PATH (the Windows installer's "
            "PATH component does it)",
        )
    if mine and os.path.normcase(os.path.realpath(found)) != os.path.normcase(
        os.path.realpath(mine)
    ):
        return warn(
            name,
            f"`termwise` on PATH is {found}, another installation than this one ({mine})",
            "remove the other installation or put this one first on PATH",
        )
    return ok(name, found)
