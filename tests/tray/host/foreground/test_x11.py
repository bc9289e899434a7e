"""Under Xvfb: two xterm windows attached to two sessions; the focused window's session is the active one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.tray.host.foreground import Foreground, platform_probe

from tests.tray.serve_support import ServeProcess, serve_fixture, termwise, wait_until

pytestmark = pytest.mark.requires("display", "xterm", "xdotool")


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

    def __init__(self, session_id: str, title: str, env: dict[str, str] | None = None) -> None:
        argv = [sys.executable, "-m", "termwise.tray.commands.cli", "attach", session_id]
        self.env = env
        self.proc = subprocess.Popen(
            ["xterm", "-T", title, "-geometry", "80x24", "-e", *argv],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        found = xdotool(
            "search", "--sync", "--onlyvisible", "--pid", str(self.proc.pid), timeout=30, env=env
        )
        self.window = int(found.split()[0])

    @classmethod
    def running(cls, script: str) -> XtermWindow:
        """An xterm running a shell script instead of one `termwise attach`."""
        window = cls.__new__(cls)
        window.env = None
        window.proc = subprocess.Popen(["xterm", "-e", "sh", "-c", script])
        found = xdotool("search", "--sync", "--onlyvisible", "--pid", str(window.proc.pid))
        window.window = int(found.split()[0])
        return window

    def focus(self) -> None:
        # No window manager under Xvfb: windowactivate needs one, windowfocus sets the X focus.
        xdotool("windowfocus", "--sync", str(self.window), env=self.env)

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def xdotool(*args: str, timeout: float = 15, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        ["xdotool", *args], capture_output=True, text=True, timeout=timeout, env=env
    )
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


def test_tabs_of_the_focused_window_go_by_the_last_input(serve: ServeProcess) -> None:
    """Two sessions attached inside one xterm act as tabs: the one that last got input is active while that window is in front."""
    one, two, three = (serve.client.create("bash")["id"] for _ in range(3))
    for sid in (one, two, three):
        serve.run_command(sid, f"echo in-{sid}")
    attach = f"{sys.executable} -m termwise.tray.commands.cli attach"
    # Both clients run under the same xterm (stdin from /dev/null: they only show output).
    tabs = XtermWindow.running(f"{attach} {one} </dev/null & {attach} {two} </dev/null; wait")
    other = XtermWindow(three, "tw-three")
    try:
        assert wait_until(lambda: clients(serve) == {one: 1, two: 1, three: 1}, 30)
        tabs.focus()
        serve.client.send(one, "")
        assert wait_until(lambda: active_id(serve) == one, 10)
        serve.client.send(two, "")
        # Polled: a probe answer later than its 10 ms box (a loaded machine) falls back to
        # the last input for that one query.
        assert wait_until(lambda: active_id(serve) == two, 10)
        serve.client.send(three, "")  # input to a session in a window that is not in front
        assert wait_until(lambda: active_id(serve) == two, 10)
        assert wait_until(lambda: last_command_of_active_session() == f"echo in-{two}", 10)
        other.focus()
        assert wait_until(lambda: active_id(serve) == three, 10)
    finally:
        tabs.close()
        other.close()


def test_a_host_without_a_display_goes_by_the_last_input(
    termwise_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host started without DISPLAY cannot tell which window is in front: focusing an xterm changes nothing, the last input decides."""
    display = os.environ["DISPLAY"]
    monkeypatch.delenv("DISPLAY")
    serve = ServeProcess(termwise_home)
    windows: list[XtermWindow] = []
    try:
        first = serve.client.create("bash")["id"]
        second = serve.client.create("bash")["id"]
        serve.run_command(first, "echo in-first")
        serve.run_command(second, "echo in-second")
        env = {**os.environ, "DISPLAY": display}
        windows = [XtermWindow(first, "tw-a", env), XtermWindow(second, "tw-b", env)]
        assert wait_until(lambda: clients(serve) == {first: 1, second: 1}, 30), clients(serve)
        windows[0].focus()
        assert last_command_of_active_session() == "echo in-second"
        assert active_id(serve) == second
        serve.client.send(first, "")  # input (nothing typed, but it counts) moves it
        assert last_command_of_active_session() == "echo in-first"
    finally:
        for window in windows:
            window.close()
        serve.stop()


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


def test_focus_on_an_inner_window_is_walked_up_to_the_terminal() -> None:
    """With the focus on a child window inside the xterm (no window manager), the probe still finds the xterm's pid."""
    from Xlib import X, display

    probe = platform_probe()
    assert probe is not None
    proc = subprocess.Popen(["xterm", "-T", "tw-inner", "-e", "sleep", "60"])
    x = display.Display()
    try:
        top = int(xdotool("search", "--sync", "--onlyvisible", "--pid", str(proc.pid)).split()[0])
        children = x.create_resource_object("window", top).query_tree().children
        assert children, "xterm has an inner window"
        x.set_input_focus(children[0], X.RevertToParent, X.CurrentTime)
        x.sync()
        assert x.get_input_focus().focus.id == children[0].id

        def sees_xterm() -> bool:
            found = probe.foreground()
            return found == Foreground(pid=proc.pid, window=top)

        assert wait_until(sees_xterm, 10)
    finally:
        x.close()
        proc.terminate()
        proc.wait(10)
        probe.close()
