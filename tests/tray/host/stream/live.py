"""A real shell in a real PTY, launched the way Termwise launches it, read by StreamParser."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from termwise.tray.host.pty import PtyProcess, TerminationPolicy, spawn_pty
from termwise.tray.host.shells import launch_command
from termwise.tray.host.stream import CommandBlock, StreamParser

SESSION_ID = "test-session-1"


class LiveShell:
    """Drives one shell: type a command, wait for its block (polling with a deadline)."""

    def __init__(self, name: str, home: Path, env: dict[str, str] | None = None) -> None:
        base = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "USER": os.environ.get("USER", "tester"),
        }
        base.update(env or {})
        self.spec = launch_command(name, session_id=SESSION_ID, base_env=base)
        self.parser = StreamParser()
        self.pty: PtyProcess = spawn_pty(self.spec.argv, env=self.spec.env, cwd=str(home))
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        while True:
            chunk = self.pty.read()
            if not chunk:
                return
            self.parser.feed(chunk)

    def wait_for(self, check, timeout: float = 15.0, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                tail = self.parser.raw_tail(3000)
                raise AssertionError(f"timed out waiting for {what}; output tail: {tail!r}")
            time.sleep(0.02)

    def wait_ready(self) -> None:
        self.wait_for(lambda: self.parser.has_marks, what="the first prompt mark")

    def last_index(self) -> int:
        blocks = self.parser.blocks()
        return blocks[-1].index if blocks else -1

    def run(self, command: str, timeout: float = 15.0) -> CommandBlock:
        """Type `command` and Enter; the block it produced."""
        before = self.last_index()
        self.pty.write(command.encode() + b"\r")
        return self.wait_block(before, timeout, command)

    def wait_block(self, after: int, timeout: float = 15.0, what: str = "") -> CommandBlock:
        self.wait_for(lambda: self.last_index() > after, timeout, f"the block of {what!r}")
        return next(b for b in self.parser.blocks() if b.index > after)

    def close(self) -> None:
        self.pty.terminate(TerminationPolicy(1.0, 1.0, 2.0))
        self.pty.close()
        self._reader.join(5)
