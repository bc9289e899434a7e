"""A real `termwise serve` subprocess for command-line and terminal tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from termwise.agent.base.paths import resolve_paths
from termwise.tray.errors import HostUnavailable
from termwise.tray.ipc.client import HostClient

TERMWISE = [sys.executable, "-m", "termwise.tray.commands.cli"]


def termwise(
    *args: str, timeout: float = 60.0, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the `termwise` command line as a real subprocess."""
    return subprocess.run(
        [*TERMWISE, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
    )


class ServeProcess:
    """`termwise serve` running under this test's TERMWISE_HOME."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.stderr_path = home / "serve.stderr"
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [*TERMWISE, "serve"],
            stdin=subprocess.DEVNULL,
            stdout=self._stderr,
            stderr=self._stderr,
            start_new_session=True,
        )
        self.client = HostClient(resolve_paths())
        deadline = time.monotonic() + 30
        while True:
            try:
                self.client.ping()
                break
            except HostUnavailable:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"serve did not start:\n{self.stderr()}") from None
                time.sleep(0.05)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def run_command(self, session_id: str, command: str, timeout: float = 15.0) -> dict:
        """Type a command through the client and wait for its block."""
        blocks = self.client.context(session_id, 1)
        after = blocks[-1]["index"] if blocks else -1
        self.client.send(session_id, command, enter=True)
        block = self.client.wait_block(session_id, after, timeout)
        assert block is not None, f"no block for {command!r}"
        return block

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int | None:
        self.client.close()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self._stderr.close()
        return self.proc.returncode


def serve_fixture(home: Path) -> Iterator[ServeProcess]:
    server = ServeProcess(home)
    try:
        yield server
    finally:
        server.stop()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is gone for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def commands(blocks: Sequence[dict]) -> list[str]:
    return [b["command"] for b in blocks]
