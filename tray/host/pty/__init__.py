"""PTY backends behind one protocol: ptyprocess on POSIX, pywinpty (ConPTY) on Windows."""

from __future__ import annotations

import sys

from termwise.tray.host.pty.base import (
    DEFAULT_TERMINATION,
    PtyProcess,
    TerminationPolicy,
    poll_until,
)

__all__ = ["DEFAULT_TERMINATION", "PtyProcess", "TerminationPolicy", "poll_until", "spawn_pty"]


def spawn_pty(
    argv: list[str],
    *,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    rows: int = 24,
    cols: int = 80,
) -> PtyProcess:
    """Start `argv` on a new pseudo-terminal with this platform's backend."""
    if not argv:
        raise ValueError("spawn_pty needs a program to run")
    if sys.platform == "win32":
        from termwise.tray.host.pty.windows import WindowsPty

        return WindowsPty.spawn(argv, cwd=cwd, env=env, rows=rows, cols=cols)
    from termwise.tray.host.pty.posix import PosixPty

    return PosixPty.spawn(argv, cwd=cwd, env=env, rows=rows, cols=cols)
