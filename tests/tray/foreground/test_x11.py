"""Under Xvfb: two xterm windows attached to two sessions; the focused window's session is the active one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.tray.foreground import Foreground, platform_probe

from tests.tray.serve_support import ServeProcess, serve_fixture, termwise, wait_until

pytestmark = pytest.mark.skipif(
    not (os.environ.get("DISPLAY") and shutil.which("xterm") and shutil.which("xdotool")),
    reason="needs an X display (pytest-xvfb), xterm and xdotool",
)


@pytest.fixture(autouse=True)
def plain_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shells start from an empty HOME, and the test itself is not inside a session."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.delenv("TERMWISE_SESSION", raising=False)


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


class XtermWindow:
    """A real xterm running `termwise attach ID`, and its top-level window."""

    def __init__(self, session_id: str, title: str) -> None:
        argv = [sys.executable, "-m", "termwise.tray.cli", "attach", session_id]
        self.proc = subprocess.Popen(
            ["xterm", "-T", title, "-geometry", "80x24", "-e", *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        found = xdotool(
            "search", "--sync", "--onlyvisible", "--pid", str(self.proc.pid), timeout=30
        )
        self.window = int(found.split()[0])

    def focus(self) -> None:
        # No window manager under Xvfb: windowactivate needs one, windowfocus sets the X focus.
        xdotool("windowfocus", "--sync", str(self.window))

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def xdotool(*args: str, timeout: float = 15) -> str:
    result = subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr
    return result.stdout


def last_command_of_active_session() -> str:
    """What `termwise context --json` (no --session, no $TERMWISE_SESSION) says ran last."""
    result = termwise("context", "--json", "--blocks", "1")
    assert result.returncode == 0, result.stderr
    return str(json.loads(result.stdout)[-1]["command"])


def active_id(serve: ServeProcess) -> str | None:
    return next((s["id"] for s in serve.client.sessions() if s["active"]), None)


def clients(serve: ServeProcess) -> dict[str, int]:
    return {s["id"]: s["clients"] for s in serve.client.sessions()}


def test_the_focused_xterm_decides_the_active_session(serve: ServeProcess) -> None:
    """Focusing one xterm, then the other, makes its session the one `termwise context` reads, whatever got input last."""
    first = serve.client.create("bash")["id"]
    second = serve.client.create("bash")["id"]
    serve.run_command(first, "echo in-first")
    serve.run_command(second, "echo in-second")  # input: the second is the last-input session
    windows = [XtermWindow(first, "tw-first"), XtermWindow(second, "tw-second")]
    other = subprocess.Popen(["xterm", "-T", "tw-other", "-e", "sleep", "120"])
    try:
        assert wait_until(lambda: clients(serve) == {first: 1, second: 1}, 30), clients(serve)
        windows[0].focus()
        assert wait_until(lambda: active_id(serve) == first, 10)
        assert last_command_of_active_session() == "echo in-first"
        windows[1].focus()
        assert wait_until(lambda: active_id(serve) == second, 10)
        assert last_command_of_active_session() == "echo in-second"
        windows[0].focus()
        assert wait_until(lambda: active_id(serve) == first, 10)
        assert last_command_of_active_session() == "echo in-first"
        # A window showing no session: nothing to tell by, the last input decides.
        xdotool(
            "windowfocus",
            "--sync",
            xdotool("search", "--sync", "--onlyvisible", "--pid", str(other.pid)).split()[0],
        )
        assert wait_until(lambda: active_id(serve) == second, 10)
        assert last_command_of_active_session() == "echo in-second"
    finally:
        for window in windows:
            window.close()
        other.terminate()
        other.wait(10)


def test_the_x11_probe_names_the_focused_window_process() -> None:
    """The platform probe reports the pid of the xterm holding the focus, found without a window manager."""
    probe = platform_probe()
    assert probe is not None
    proc = subprocess.Popen(["xterm", "-T", "tw-probe", "-e", "sleep", "60"])
    try:
        window = int(
            xdotool("search", "--sync", "--onlyvisible", "--pid", str(proc.pid)).split()[0]
        )
        xdotool("windowfocus", "--sync", str(window))
        found: list[Foreground | None] = [None]

        def answered() -> bool:
            found[0] = probe.foreground()  # the first query may still be connecting
            return found[0] is not None

        assert wait_until(answered, 10)
        assert found[0] == Foreground(pid=proc.pid, window=window)
    finally:
        proc.terminate()
        proc.wait(10)
        probe.close()
