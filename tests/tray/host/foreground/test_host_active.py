"""SessionHost.active() follows the foreground window, with tabs and every fallback, on real shells."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.tray.host.foreground import ClientWindow, Foreground
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import PtyProcess, spawn_pty
from termwise.tray.host.session import Session
from termwise.tray.ipc.client import HostClient
from termwise.tray.ipc.server import IpcServer, client_window

from tests.tray.host.foreground.conftest import FAST_END, PointedProbe
from tests.tray.host.foreground.support import Terminal
from tests.tray.serve_support import wait_until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture
def windows() -> Iterator[tuple[Terminal, Terminal]]:
    """Window A with one client; window B with two (tabs)."""
    a, b = Terminal(1), Terminal(2)
    yield a, b
    a.close()
    b.close()


def three_sessions(host: SessionHost) -> tuple[Session, Session, Session]:
    return host.create("bash"), host.create("bash"), host.create("bash")


def test_the_foreground_window_beats_the_last_input(
    host: SessionHost, probe: PointedProbe, windows: tuple[Terminal, Terminal]
) -> None:
    """Whichever window is in front gives the active session, even when another got input later."""
    a, b = windows
    one, two, _ = three_sessions(host)
    host.attach_window(one.id, ClientWindow(pid=a.clients[0]))
    host.attach_window(two.id, ClientWindow(pid=b.clients[0]))
    host.set_active(two.id)
    probe.now = Foreground(pid=a.pid)
    assert host.active() is one
    probe.now = Foreground(pid=b.pid)
    assert host.active() is two
    probe.now = Foreground(pid=a.pid)
    assert host.active() is one


def test_among_tabs_of_the_front_window_the_last_input_wins(
    host: SessionHost, probe: PointedProbe, windows: tuple[Terminal, Terminal]
) -> None:
    """Two sessions in one window: the one typed into last is active; a session in another window never is."""
    a, b = windows
    one, two, three = three_sessions(host)
    host.attach_window(one.id, ClientWindow(pid=a.clients[0]))
    host.attach_window(two.id, ClientWindow(pid=b.clients[0]))
    host.attach_window(three.id, ClientWindow(pid=b.clients[1]))
    probe.now = Foreground(pid=b.pid)
    host.set_active(two.id)
    assert host.active() is two
    host.set_active(three.id)
    assert host.active() is three
    host.set_active(one.id)  # typed into the other window (through `send`): not in front
    assert host.active() is three
    host.set_active(two.id)
    assert host.active() is two


def test_when_nothing_can_tell_the_last_input_wins(
    host: SessionHost, probe: PointedProbe, windows: tuple[Terminal, Terminal]
) -> None:
    """No answer from the probe, or a front window showing no session: the session that last got input."""
    a, b = windows
    one, two, _ = three_sessions(host)
    host.attach_window(one.id, ClientWindow(pid=a.clients[0]))
    host.attach_window(two.id, ClientWindow(pid=b.clients[0]))
    host.set_active(two.id)
    probe.now = Foreground(pid=a.pid)
    assert host.active() is one
    probe.now = None  # the probe cannot tell
    assert host.active() is two
    browser = Terminal(0)
    try:
        probe.now = Foreground(pid=browser.pid)  # a window that is no terminal of ours
        assert host.active() is two
    finally:
        browser.close()
    probe.now = Foreground(pid=None, window=1234)  # a window without a pid
    assert host.active() is two


def test_a_detached_or_ended_session_is_not_chosen_by_its_window(
    host: SessionHost, probe: PointedProbe, windows: tuple[Terminal, Terminal]
) -> None:
    """Once its client detaches, or its shell ends, a window no longer names the session."""
    a, b = windows
    one, two, three = three_sessions(host)
    forget = host.attach_window(one.id, ClientWindow(pid=a.clients[0]))
    host.attach_window(two.id, ClientWindow(pid=b.clients[0]))
    host.set_active(three.id)
    probe.now = Foreground(pid=a.pid)
    assert host.active() is one
    forget()
    assert host.active() is three
    probe.now = Foreground(pid=b.pid)
    assert host.active() is two
    host.kill(two.id)
    assert wait_until(lambda: not two.alive)
    assert host.active() is three


def test_our_own_window_in_front_keeps_the_session_seen_at_the_hotkey(
    host: SessionHost, probe: PointedProbe, windows: tuple[Terminal, Terminal]
) -> None:
    """With the overlay (this process's window) in front, the session read at the hotkey stays; Tab (set_active) moves on."""
    a, b = windows
    one, two, three = three_sessions(host)
    host.attach_window(one.id, ClientWindow(pid=a.clients[0]))
    host.attach_window(two.id, ClientWindow(pid=b.clients[0]))
    host.set_active(two.id)
    probe.now = Foreground(pid=a.pid)
    assert host.active() is one  # the hotkey, terminal A in front
    probe.now = Foreground(pid=os.getpid())  # the overlay took the focus
    assert host.active() is one
    host.set_active(three.id)  # Tab in the overlay
    assert host.active() is three
    host.set_active(one.id)  # back to the first, even though it was already the input session
    assert host.active() is one


def test_a_failing_probe_or_none_falls_back_to_the_last_input(
    windows: tuple[Terminal, Terminal],
) -> None:
    """A probe that raises costs nothing but its answer; a host without a probe uses the last input."""

    class Broken:
        def foreground(self) -> Foreground | None:
            raise RuntimeError("display went away")

        def close(self) -> None:
            pass

    a, _ = windows
    for probe in (Broken(), None):
        host = SessionHost(
            Config(), resolve_paths().ensure(), termination=FAST_END, foreground=probe
        )
        try:
            one, two, _ = three_sessions(host)
            host.attach_window(one.id, ClientWindow(pid=a.clients[0]))
            host.set_active(two.id)
            assert host.active() is two
        finally:
            host.shutdown()


def test_shutdown_closes_the_probe(host: SessionHost, probe: PointedProbe) -> None:
    """Ending the host releases the probe (its display connection and thread)."""
    host.shutdown()
    assert probe.closed


def test_attach_request_window_fields_are_checked() -> None:
    """Only positive integers are taken from an attach request's window description."""
    assert client_window({"window": {"pid": 42, "console_window": 7}}) == ClientWindow(42, 7)
    assert client_window({"window": {"pid": "42", "console_window": True}}) == ClientWindow()
    assert client_window({"window": {"pid": -1}}) == ClientWindow()
    assert client_window({"window": [1]}) == ClientWindow()
    assert client_window({}) == ClientWindow()


class AttachedTerminal:
    """A 'terminal window' process (sh in a real PTY) running the real `termwise attach`."""

    def __init__(self, session_id: str) -> None:
        attach = f"{sys.executable} -m termwise.tray.commands.cli attach {session_id}"
        self.pty: PtyProcess = spawn_pty(["sh", "-c", f"{attach}; true"], rows=24, cols=80)
        self.output = bytearray()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while data := self.pty.read(65536):
            self.output += data

    def close(self) -> None:
        self.pty.close()


def test_real_attach_clients_report_their_window_through_ipc(
    host: SessionHost, probe: PointedProbe
) -> None:
    """Real `termwise attach` clients tell the server their pid; the window above each selects its session for `context`."""
    one, two = host.create("bash"), host.create("bash")
    one.send_text("echo from-one", enter=True)
    two.send_text("echo from-two", enter=True)
    assert wait_until(lambda: len(one.blocks()) >= 1 and len(two.blocks()) >= 1, 15)
    server = IpcServer(host, resolve_paths())
    server.start()
    terminals = [AttachedTerminal(one.id), AttachedTerminal(two.id)]
    client = HostClient(resolve_paths())
    try:
        assert wait_until(lambda: one.client_count == 1 and two.client_count == 1, 20)
        host.set_active(two.id)
        probe.now = Foreground(pid=terminals[0].pty.pid)
        assert client.context(None, 1)[-1]["command"] == "echo from-one"
        probe.now = Foreground(pid=terminals[1].pty.pid)
        assert client.context(None, 1)[-1]["command"] == "echo from-two"
        probe.now = Foreground(pid=terminals[0].pty.pid)
        assert [s["id"] for s in client.sessions() if s["active"]] == [one.id]
    finally:
        client.close()
        for t in terminals:
            t.close()
        server.stop()
