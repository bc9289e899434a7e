"""The X11 probe against a real X server that is missing, frozen, or restarted: never blocks, recovers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from termwise.tray.host.foreground import Foreground, ForegroundProbe, platform_probe
from termwise.tray.host.foreground.timebox import TimeBoxedProbe

from tests.tray.serve_support import wait_until

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 on Linux"),
    pytest.mark.requires("Xvfb", "xterm"),
]


class XServer:
    """A private Xvfb with one focused xterm on it."""

    def __init__(self, number: int | None = None) -> None:
        # A high display number: the low ones are where other test runs' Xvfb start.
        number = free_display() if number is None else number
        read_fd, write_fd = os.pipe()
        # -displayfd: Xvfb writes its display number there once it accepts clients.
        self.proc = subprocess.Popen(
            ["Xvfb", f":{number}", "-displayfd", str(write_fd), "-nolisten", "tcp"],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write_fd)
        self.xterm: subprocess.Popen[bytes] | None = None
        try:
            with os.fdopen(read_fd) as f:
                assert f.readline().strip() == str(number), "Xvfb did not start"
            self.number = number
            self.display = f":{number}"
            self.env = {**os.environ, "DISPLAY": self.display}
            self.xterm = subprocess.Popen(["xterm", "-e", "sleep", "120"], env=self.env)
            window = self.xdotool(
                "search", "--sync", "--onlyvisible", "--pid", str(self.xterm.pid)
            ).split()[0]
            self.xdotool("windowfocus", "--sync", window)
        except BaseException:
            self.close()
            raise

    def xdotool(self, *args: str) -> str:
        out = subprocess.run(
            ["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=30
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    def close(self) -> None:
        for proc in (self.xterm, self.proc):
            if proc is None:
                continue
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGCONT)
                proc.terminate()  # Xvfb removes its socket and lock on SIGTERM
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def xterm_pid(server: XServer) -> int:
    assert server.xterm is not None
    return server.xterm.pid


def free_display() -> int:
    return next(n for n in range(300, 400) if not os.path.exists(f"/tmp/.X{n}-lock"))


@pytest.fixture
def xserver() -> Iterator[XServer]:
    server = XServer()
    yield server
    server.close()


def answer_of(probe: ForegroundProbe) -> tuple[bool, Foreground | None]:
    """(whether the call came back within 5 s, its answer), asked on another thread."""
    result: list[Foreground | None] = []
    thread = threading.Thread(target=lambda: result.append(probe.foreground()), daemon=True)
    thread.start()
    thread.join(5.0)
    return (not thread.is_alive(), result[0] if result else None)


def pid_in_front(probe: ForegroundProbe, pid: int) -> bool:
    found = probe.foreground()
    return found is not None and found.pid == pid


def test_no_x_server_at_the_display_means_cannot_tell() -> None:
    """A DISPLAY nobody serves gives 'cannot tell' at once, every time, without an exception."""
    probe = platform_probe({"DISPLAY": ":1999"})
    assert probe is not None
    try:
        for _ in range(3):
            assert answer_of(probe) == (True, None)
    finally:
        probe.close()


def test_no_display_at_all_means_no_probe() -> None:
    """Without DISPLAY (a server, Wayland only) there is no probe: the host goes by last input."""
    assert platform_probe({}) is None
    assert platform_probe({"WAYLAND_DISPLAY": "wayland-0"}) is None


def test_a_frozen_x_server_never_blocks_the_caller(xserver: XServer) -> None:
    """While the X server is stopped, the probe answers 'cannot tell' promptly; it sees the window again once it runs."""
    probe = platform_probe({"DISPLAY": xserver.display})
    assert probe is not None
    try:
        assert wait_until(lambda: pid_in_front(probe, xterm_pid(xserver)), 10)
        os.kill(xserver.proc.pid, signal.SIGSTOP)
        assert answer_of(probe) == (True, None)  # this query hangs on the worker …
        assert answer_of(probe) == (True, None)  # … and later ones do not queue behind it
        os.kill(xserver.proc.pid, signal.SIGCONT)
        assert wait_until(lambda: pid_in_front(probe, xterm_pid(xserver)), 10)
    finally:
        probe.close()


def test_the_probe_reconnects_after_the_x_server_restarts(xserver: XServer) -> None:
    """When the X server goes away the probe says 'cannot tell'; a new server on the same display is found again."""
    # Imported here: x11.py imports Xlib, which only Linux installs; collecting this
    # file must work on every platform (the skip above applies to the tests only).
    from termwise.tray.host.foreground.x11 import X11Probe

    probe = TimeBoxedProbe(lambda: X11Probe(xserver.display), retry_after=0.0)
    try:
        assert wait_until(lambda: pid_in_front(probe, xterm_pid(xserver)), 10)
        xserver.close()
        assert wait_until(lambda: answer_of(probe) == (True, None), 10)
        again = XServer(xserver.number)
        try:
            assert wait_until(lambda: pid_in_front(probe, xterm_pid(again)), 15)
        finally:
            again.close()
    finally:
        probe.close()
