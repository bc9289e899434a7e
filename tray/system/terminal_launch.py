"""Open a terminal window attached to a session: Windows Terminal or a console, a Linux
terminal emulator, macOS Terminal, or the user's `terminal.command` template."""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence

from termwise.tray.errors import TrayError

log = logging.getLogger(__name__)

# Win32 creation flag (subprocess defines it only on Windows).
CREATE_NEW_CONSOLE = 0x00000010

# Linux emulators in the order tried, each with the flag that runs a command.
LINUX_TERMINALS = (
    ("x-terminal-emulator", ["-e"]),
    ("gnome-terminal", ["--"]),
    ("konsole", ["-e"]),
    ("xterm", ["-e"]),
)

Which = Callable[[str], "str | None"]


class NoTerminal(TrayError):
    """No terminal program could be found to open a window."""


def attach_argv(session_id: str) -> list[str]:
    """The command that attaches a terminal to a session of this installation."""
    from termwise.tray.system.selfcmd import self_argv

    return [*self_argv(), "attach", session_id]


def join_command(argv: Sequence[str], platform: str = sys.platform) -> str:
    """One command line for a template's {attach}, quoted for the platform's shell."""
    if platform == "win32":
        return subprocess.list2cmdline(list(argv))
    return shlex.join(argv)


def from_template(template: str, attach: Sequence[str], platform: str = sys.platform) -> list[str]:
    """The user's `terminal.command` with {attach} filled in, split into argv."""
    if "{attach}" not in template:
        raise TrayError(f"terminal.command {template!r} has no {{attach}} placeholder")
    line = template.replace("{attach}", join_command(attach, platform))
    if platform == "win32":
        # Split as the program's C runtime will (Popen joins the list again with
        # list2cmdline): a one-element list would make the whole line the program name.
        return split_windows_command(line)
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise TrayError(f"terminal.command cannot be read: {exc}") from None


def split_windows_command(line: str) -> list[str]:
    """Split a Windows command line the way the Microsoft C runtime does.

    Spaces and tabs separate arguments outside double quotes; 2n backslashes before a
    quote give n backslashes and the quote toggles quoting, 2n+1 give n backslashes and a
    literal quote; `""` inside quotes is a literal quote; other backslashes are literal.
    The inverse of subprocess.list2cmdline.
    """
    args: list[str] = []
    current: list[str] = []
    started = quoted = False
    i, n = 0, len(line)
    while i < n:
        char = line[i]
        if char == "\\":
            end = i
            while end < n and line[end] == "\\":
                end += 1
            count = end - i
            started = True
            if end < n and line[end] == '"':
                current.append("\\" * (count // 2))
                if count % 2:
                    current.append('"')
                    end += 1
            else:
                current.append("\\" * count)
            i = end
        elif char == '"':
            started = True
            if quoted and line.startswith('""', i):
                current.append('"')
                i += 2
            else:
                quoted = not quoted
                i += 1
        elif char in " \t" and not quoted:
            if started:
                args.append("".join(current))
                current, started = [], False
            i += 1
        else:
            current.append(char)
            started = True
            i += 1
    if started:
        args.append("".join(current))
    return args


def terminal_argv(
    attach: Sequence[str],
    *,
    template: str = "",
    platform: str = sys.platform,
    which: Which = shutil.which,
) -> list[str]:
    """argv that opens a window running `attach` (raises NoTerminal when nothing fits)."""
    if template.strip():
        return from_template(template, attach, platform)
    if platform == "win32":
        wt = which("wt.exe") or which("wt")
        if wt:
            return [wt, "new-tab", "--title", "Termwise", *attach]
        return list(attach)  # started with CREATE_NEW_CONSOLE: a console window of its own
    if platform == "darwin":
        # Terminal.app runs a script file; a one-line shell script does the attach.
        return ["open", "-a", "Terminal", _mac_script(attach)]
    for name, flag in LINUX_TERMINALS:
        found = which(name)
        if found:
            return [found, *flag, *attach]
    names = ", ".join(n for n, _ in LINUX_TERMINALS)
    raise NoTerminal(f"no terminal program found (tried {names}); set terminal.command in Settings")


def _mac_script(attach: Sequence[str]) -> str:
    import tempfile

    fd, path = tempfile.mkstemp(prefix="termwise-attach-", suffix=".command")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("#!/bin/sh\nexec " + shlex.join(attach) + "\n")
    os.chmod(path, 0o700)
    return path


def open_terminal(session_id: str, *, template: str = "") -> subprocess.Popen[bytes]:
    """Start a terminal window attached to `session_id`; returns the started process."""
    argv = terminal_argv(attach_argv(session_id), template=template)
    log.info("opening a terminal for session %s: %s", session_id, argv)
    options: dict[str, object] = {"stdin": subprocess.DEVNULL}
    if sys.platform == "win32":
        uses_wt = os.path.basename(argv[0]).lower().startswith("wt")
        options["creationflags"] = 0 if uses_wt or template.strip() else CREATE_NEW_CONSOLE
    else:
        options["start_new_session"] = True  # closing the tray leaves the window alone
    try:
        return subprocess.Popen(argv, **options)  # type: ignore[call-overload]
    except OSError as exc:
        raise TrayError(f"cannot start the terminal {argv[0]!r}: {exc}") from None
