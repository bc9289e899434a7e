"""tmux as a peer in tests and benchmarks: the pid of a running server."""

from __future__ import annotations

import subprocess


def tmux_server_pid(tmux: list[str]) -> int:
    """The pid of the tmux server that `tmux` (the argv with its socket) talks to."""
    done = subprocess.run(
        [*tmux, "display", "-p", "#{pid}"], capture_output=True, text=True, check=True, timeout=30
    )
    return int(done.stdout)
