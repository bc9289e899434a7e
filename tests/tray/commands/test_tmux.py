"""Through a real terminal: tmux runs `termwise shell`, windows close and re-attach, sizes follow."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.agent.base.paths import resolve_paths
from termwise.tray.errors import HostUnavailable
from termwise.tray.ipc.client import HostClient

from tests.tray.serve_support import pid_alive, termwise, wait_until

pytestmark = pytest.mark.requires("tmux")

TERMWISE = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "termwise.tray.commands.cli"))


class Tmux:
    """A private tmux server (its own socket name) with helpers to drive and read it."""

    def __init__(self) -> None:
        self.name = f"tw-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.name, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.returncode == 0, f"tmux {args}: {result.stderr}"
        return result.stdout

    def screen(self, target: str) -> str:
        return self("capture-pane", "-p", "-t", target)

    def wait_for(self, target: str, text: str, timeout: float = 20.0) -> str:
        found = wait_until(lambda: text in self.screen(target), timeout, interval=0.1)
        screen = self.screen(target)
        assert found, f"{text!r} never appeared in {target}:\n{screen}"
        return screen

    def type(self, target: str, line: str) -> None:
        self("send-keys", "-t", target, "-l", line)
        self("send-keys", "-t", target, "Enter")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.name, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def tmux(
    termwise_home: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Tmux]:
    """A tmux server plus, in teardown, the host that `termwise shell` started inside it."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))  # no user dotfiles
    server = Tmux()
    server("new-session", "-d", "-s", "t", "-n", "hold", "-x", "100", "-y", "30", "sleep 600")
    server("set-option", "-g", "status", "off")
    try:
        yield server
    finally:
        server.kill()
        try:
            with HostClient(resolve_paths()) as client:
                pid = client.ping()
        except HostUnavailable:
            pid = None
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
            if not wait_until(lambda: not pid_alive(pid), 20):
                os.kill(pid, signal.SIGKILL)


def test_shell_in_tmux_survives_its_window_and_reattaches(tmux: Tmux) -> None:
    """`termwise shell` in tmux runs commands; closing the window keeps the session; attach shows it again; resizes reach the shell."""
    tmux("new-window", "-t", "t", "-n", "first", f"{TERMWISE} shell --shell bash")
    # A prompt, from a host that `termwise shell` started on demand.
    assert wait_until(lambda: any(c in tmux.screen("t:first") for c in "$#%"), 30, 0.1)
    tmux.type("t:first", "echo tmux-$((3 * 3))")
    tmux.wait_for("t:first", "tmux-9")
    tmux.type("t:first", "stty size")
    tmux.wait_for("t:first", "30 100")

    tmux("kill-window", "-t", "t:first")
    listed = termwise("sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    sessions = json.loads(listed.stdout)
    assert len(sessions) == 1 and sessions[0]["alive"]
    assert wait_until(lambda: json.loads(termwise("sessions", "--json").stdout)[0]["clients"] == 0)
    sid = sessions[0]["id"]
    assert "stty size" in termwise("sessions").stdout  # its last command

    tmux("new-window", "-t", "t", "-n", "again", f"{TERMWISE} attach {sid}")
    screen = tmux.wait_for("t:again", "tmux-9")  # the session's screen comes back
    assert "echo tmux-$((3 * 3))" in screen
    tmux.type("t:again", "echo back-$((2 + 2))")
    tmux.wait_for("t:again", "back-4")

    tmux("resize-window", "-t", "t:again", "-x", "120", "-y", "40")
    tmux.type("t:again", "clear; stty size")
    tmux.wait_for("t:again", "40 120")

    tmux.type("t:again", "exit")
    assert wait_until(lambda: not json.loads(termwise("sessions", "--json").stdout)[0]["alive"])
