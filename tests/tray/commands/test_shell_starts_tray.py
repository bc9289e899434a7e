"""`termwise shell` with nothing running starts the tray on a desktop, `serve` elsewhere."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

import pytest
from termwise.agent.base.paths import resolve_paths
from termwise.tray.errors import HostUnavailable
from termwise.tray.host.pty import spawn_pty
from termwise.tray.ipc.client import HostClient
from termwise.tray.ipc.launch import host_argv

from tests.support.wine_limits import wine_limit
from tests.tray.serve_support import wait_until

CLI = [sys.executable, "-m", "termwise.tray.commands.cli"]


@pytest.mark.parametrize(
    ("env", "serve"),
    [
        ({"DISPLAY": ":5"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, False),
        ({}, sys.platform not in ("win32", "darwin")),
        ({"DISPLAY": ":5", "TERMWISE_HOST": "serve"}, True),
        ({"TERMWISE_HOST": "tray"}, False),
    ],
)
def test_what_starts_when_no_host_answers(env: dict[str, str], serve: bool) -> None:
    """A desktop gets the tray (so a later `termwise` finds the sessions); a server gets `serve`."""
    argv = host_argv(env)
    assert argv[: len(CLI)] == CLI
    assert (argv[-1] == "serve") is serve


@pytest.mark.requires("display")
@wine_limit("no-posix-tools")
def test_shell_on_a_desktop_starts_the_tray(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """In a terminal on a desktop, `termwise shell` starts the tray, which then owns the session."""
    monkeypatch.setenv("TERMWISE_HOST", "auto")
    term = spawn_pty([*CLI, "shell", "--shell", "bash"], cwd=str(tmp_path), rows=24, cols=80)
    output = bytearray()

    def pump() -> None:
        while chunk := term.read(65536):
            output.extend(chunk)

    threading.Thread(target=pump, daemon=True).start()
    client = HostClient(resolve_paths())
    pid = None
    try:

        def host_pid() -> int | None:
            try:
                return int(client.ping())
            except HostUnavailable:
                return None

        assert wait_until(lambda: host_pid() is not None, 40), bytes(output[-2000:])
        pid = host_pid()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        assert b"serve" not in cmdline, "a headless host was started instead of the tray"
        assert wait_until(lambda: len(client.sessions()) == 1, 20)
        term.write(b"echo from-the-tray-session\r")
        assert wait_until(lambda: b"from-the-tray-session" in output, 20)
    finally:
        term.close()
        if pid is not None:
            os.kill(pid, signal.SIGTERM)  # the tray quits cleanly on SIGTERM
            assert wait_until(lambda: not Path(f"/proc/{pid}").exists() or _zombie(pid), 20)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z"
    except (OSError, IndexError):
        return True
