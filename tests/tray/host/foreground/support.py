"""Real process trees standing in for terminal windows and the attach clients inside them."""

from __future__ import annotations

import os
import signal
import subprocess


class Terminal:
    """A shell (the 'terminal' process) with `n` children (the 'clients'), all real.

    Each child prints its pid, then becomes `sleep` under the same pid, so the
    ancestry of every client runs through the terminal's pid.
    """

    def __init__(self, n: int = 1, program: str = "sleep") -> None:
        child = f"sh -c 'echo $$; exec \"{program}\" 120'"
        script = " & ".join([child] * n) + " & wait" if n else "sleep 120; true"
        self.proc = subprocess.Popen(
            ["sh", "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        assert self.proc.stdout is not None
        self.clients = [int(self.proc.stdout.readline()) for _ in range(n)]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
