"""The end of an attached session: all output and the exit code arrive even while keys
are typed as the shell exits; a terminal that falls behind is told why it was dropped."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import PtyProcess, spawn_pty
from termwise.tray.ipc.server import IpcServer

from tests.support.wine_limits import wine_limit
from tests.tray.serve_support import TERMWISE, ServeProcess, serve_fixture, wait_until

SIZE = 2_000_000


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


class Terminal:
    """A PTY running `termwise attach`, drained (or not) by a thread, like a terminal window."""

    def __init__(self, session_id: str) -> None:
        self.pty: PtyProcess = spawn_pty([*TERMWISE, "attach", session_id], rows=24, cols=80)
        self.output = bytearray()
        self.reading = threading.Event()
        self.reading.set()
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while True:
            self.reading.wait()
            data = self.pty.read(65536)
            if not data:
                return
            self.output += data

    def ended(self, timeout: float) -> int | None:
        code = self.pty.wait(timeout)
        self._thread.join(timeout)
        return code


@pytest.mark.parametrize("run", range(5))
@wine_limit("no-posix-tools")
def test_keys_typed_while_the_shell_exits_lose_no_output(
    serve: ServeProcess, tmp_path: Path, run: int
) -> None:
    """A shell prints 2 MB and exits while keys keep coming: the terminal gets every byte and the exit code."""
    script = tmp_path / "print-and-exit.sh"
    script.write_text(f"head -c {SIZE} /dev/zero | tr '\\0' Q\nexit 3\n")
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    term = Terminal(sid)
    try:
        assert wait_until(lambda: serve.client.sessions()[0]["clients"] == 1)
        term.pty.write(f". {script}\r".encode())
        typing = True

        def type_keys() -> None:
            while typing:
                try:
                    term.pty.write(b"k")
                except OSError:
                    return
                time.sleep(0.0005)

        typist = threading.Thread(target=type_keys, daemon=True)
        typist.start()
        try:
            code = term.ended(60)
        finally:
            typing = False
            typist.join(5)
        tail = bytes(term.output[-300:])
        assert code == 3, tail
        assert term.output.count(b"Q") == SIZE, (term.output.count(b"Q"), tail)
        assert b"lost the connection" not in term.output
    finally:
        term.pty.close()


@pytest.fixture
def impatient(termwise_home: Path) -> Iterator[IpcServer]:
    """An in-process host that drops a client after one second without progress."""
    paths = resolve_paths().ensure()
    host = SessionHost(Config(), paths)
    server = IpcServer(host, paths, stall_limit=1.0)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        host.shutdown()


@pytest.mark.skipif(sys.platform == "win32", reason="a PTY terminal")
def test_a_terminal_that_falls_behind_is_told_it_was_dropped(impatient: IpcServer) -> None:
    """A terminal that stops reading during a flood is dropped with "fell behind by N MB", and the shell lives on."""
    session = impatient.host.create("bash")
    term = Terminal(session.id)
    try:
        assert wait_until(lambda: session.client_count == 1)
        term.reading.clear()  # the window stops reading (frozen, or far too slow)
        term.pty.write(b"yes flood | head -c 20000000; echo done-$((6 * 7))\r")

        # Dropping the terminal frees the shell: the flood finishes without it.
        assert wait_until(lambda: any("yes flood" in b.command for b in session.blocks()), 60)
        term.reading.set()
        assert term.ended(30) == 1
        text = term.output.decode(errors="replace")
        assert "dropped: this terminal fell behind by" in text, text[-300:]
        assert "lost the connection" not in text
        assert session.alive
    finally:
        term.reading.set()
        term.pty.close()
