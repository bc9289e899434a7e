"""The attach client: detach chord, light imports, and a real terminal attached to a real session."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from termwise.tray.commands.attach import exit_status
from termwise.tray.commands.chord import ChordFilter
from termwise.tray.host.pty import PtyProcess, spawn_pty

from tests.support.wine_limits import wine_limit
from tests.tray.serve_support import ServeProcess, wait_until

HEAVY = ("PySide6", "openai", "yaml")

pytestmark = pytest.mark.usefixtures("plain_home")


@pytest.mark.parametrize(
    ("chunks", "sent", "detached"),
    [
        ([b"ls -l\r"], b"ls -l\r", False),
        ([b"ab\x1dd"], b"ab", True),
        ([b"ab\x1d", b"dcd"], b"ab", True),  # chord split across reads
        ([b"\x1d\x1d"], b"\x1d", False),  # twice: one literal Ctrl+]
        ([b"\x1dx"], b"\x1dx", False),  # any other key: both keys go through
        ([b"d"], b"d", False),
    ],
)
def test_detach_chord(chunks: list[bytes], sent: bytes, detached: bool) -> None:
    """Ctrl+] then d detaches; Ctrl+] twice sends one Ctrl+]; everything else passes through."""
    chord = ChordFilter()
    out = b""
    seen = False
    for chunk in chunks:
        data, stop = chord.feed(chunk)
        out += data
        if stop:
            seen = True
            break
    assert (out, seen) == (sent, detached)


def test_exit_status_of_the_shell() -> None:
    """The attach client exits with the shell's code; unknown codes count as failure."""
    assert [exit_status(c) for c in (0, 7, 129, 300, None, "x", True)] == [0, 7, 129, 44, 1, 1, 1]


@pytest.mark.parametrize("module", ["termwise.tray.commands.attach", "termwise.tray.commands.cli"])
def test_attach_imports_nothing_heavy(module: str) -> None:
    """Starting `termwise attach` loads no Qt, no openai and no YAML."""
    # The importtime report names every module the start-up loaded.
    args = [sys.executable, "-X", "importtime", "-m", module]
    result = subprocess.run([*args, *(["attach"] if module.endswith("cli") else []), "--help"],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    imported = {line.split("|")[-1].strip().split(".")[0] for line in result.stderr.splitlines()}
    assert "termwise" in imported and "argparse" in imported
    assert not imported & set(HEAVY), imported & set(HEAVY)
    assert "detaches" in result.stdout


class Terminal:
    """A real PTY running `termwise attach`, with everything it prints collected."""

    def __init__(self, argv: list[str], rows: int = 30, cols: int = 90) -> None:
        self.pty: PtyProcess = spawn_pty(argv, rows=rows, cols=cols)
        self.output = bytearray()
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while True:
            data = self.pty.read(65536)
            if not data:
                return
            self.output += data

    def wait_for(self, needle: bytes, timeout: float = 15.0) -> None:
        assert wait_until(lambda: needle in self.output, timeout), (
            f"{needle!r} never appeared; got {bytes(self.output[-2000:])!r}"
        )

    def close(self) -> None:
        self.pty.close()


def attach_argv(session_id: str) -> list[str]:
    return [sys.executable, "-m", "termwise.tray.commands.cli", "attach", session_id]


def session_row(serve: ServeProcess, sid: str) -> dict:
    return next(s for s in serve.client.sessions() if s["id"] == sid)


@wine_limit("no-posix-tools")
def test_attach_relays_resizes_detaches_and_exits_with_the_shell(serve: ServeProcess) -> None:
    """A terminal attached to a session redraws it, types into it, resizes it, detaches, and ends with it."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "echo before-$((20 + 1))")
    term = Terminal(attach_argv(sid), rows=30, cols=90)
    try:
        term.wait_for(b"before-21")  # the redraw shows what happened before
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 1)
        row = session_row(serve, sid)
        assert (row["rows"], row["cols"]) == (30, 90)
        term.pty.write(b"echo typed-$((1 + 1))\r")
        term.wait_for(b"typed-2")
        assert wait_until(lambda: serve.client.context(sid, 1)[-1]["output"] == "typed-2")
        assert session_row(serve, sid)["active"]
        term.pty.resize(40, 100)
        assert wait_until(lambda: session_row(serve, sid)["rows"] == 40)
        assert serve.run_command(sid, "stty size")["output"] == "40 100"
        term.pty.write(b"\x1dd")
        assert term.pty.wait(15) == 0, bytes(term.output)[-600:]
        term.wait_for(b"detached from session")
    finally:
        term.close()
    assert session_row(serve, sid)["alive"]  # detaching leaves the shell running

    again = Terminal(attach_argv(sid))
    try:
        again.wait_for(b"40 100")  # re-attached: the earlier screen comes back
        again.pty.write(b"exit 7\r")
        assert again.pty.wait(15) == 7
    finally:
        again.close()
    assert wait_until(lambda: not session_row(serve, sid)["alive"])


@wine_limit("no-posix-tools")
def test_attach_to_unknown_session_explains(serve: ServeProcess) -> None:
    """Attaching to a session that does not exist names the running ones."""
    sid = serve.client.create("bash")["id"]
    result = subprocess.run(attach_argv("77"), capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert f"no session '77'; running: {sid}" in result.stderr


@wine_limit("no-posix-tools")
def test_sigterm_detaches_and_leaves_the_session(serve: ServeProcess) -> None:
    """A terminated attach client only detaches: the shell keeps running, clients drop to zero."""
    import signal

    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    term = Terminal(attach_argv(sid))
    try:
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 1)
        import os

        os.kill(term.pty.pid, signal.SIGTERM)
        assert term.pty.wait(15) == 128 + signal.SIGTERM
        term.wait_for(b"detached from session")
    finally:
        term.close()
    assert wait_until(lambda: session_row(serve, sid)["clients"] == 0)
    assert session_row(serve, sid)["alive"]


@pytest.mark.requires("zsh")
def test_shell_command_starts_in_the_folder_and_exits_with_the_shell(
    serve: ServeProcess, tmp_path: Path
) -> None:
    """`termwise shell --shell zsh --cwd DIR` in a terminal: zsh starts in DIR, and its exit code is ours."""
    folder = tmp_path / "work dir"
    folder.mkdir()
    argv = [
        sys.executable,
        "-m",
        "termwise.tray.commands.cli",
        "shell",
        "--shell",
        "zsh",
        "--cwd",
        str(folder),
    ]
    term = Terminal(argv)
    try:
        assert wait_until(lambda: len(serve.client.sessions()) == 1, 20)
        sid = serve.client.sessions()[0]["id"]
        assert serve.client.sessions()[0]["shell"] == "zsh"
        block = serve.run_command(sid, "pwd")
        assert block["output"] == str(folder) and block["cwd"] == str(folder)
        term.wait_for(str(folder).encode())
        term.pty.write(b"exit 3\r")
        assert term.pty.wait(15) == 3
    finally:
        term.close()


def test_shell_command_with_a_missing_folder_says_so(serve: ServeProcess, tmp_path: Path) -> None:
    """`termwise shell --cwd` with a folder that does not exist names it and starts nothing."""
    argv = [
        sys.executable,
        "-m",
        "termwise.tray.commands.cli",
        "shell",
        "--cwd",
        str(tmp_path / "nope"),
    ]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert f"{tmp_path / 'nope'}: no such folder" in result.stderr
    assert serve.client.sessions() == []


def test_console_text_turns_utf16_reads_into_whole_utf8() -> None:
    """Windows console input (ReadConsoleW) becomes UTF-8, even with a pair split in two."""
    from termwise.tray.commands.attach import ConsoleText

    typed = "é😀 ls\r"
    raw = typed.encode("utf-16-le")
    console = ConsoleText()
    # One UTF-16 code unit per read, as a slow typist (or a split read) delivers them.
    out = [console.feed(raw[i : i + 2]) for i in range(0, len(raw), 2)]
    assert b"".join(out) == typed.encode("utf-8")
    assert out[1] == b""  # the emoji's high surrogate alone is held back, not mangled
    assert out[2] == "😀".encode()


@wine_limit("no-posix-tools")
def test_sigterm_as_raw_mode_begins_still_restores_the_terminal(
    serve: ServeProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM landing just after raw mode is set (before the relay's loop) detaches and puts
    the terminal back: typed text echoes and lines are cooked again."""
    import os
    import signal
    import termios

    from termwise.agent.base.paths import resolve_paths
    from termwise.tray.commands import attach

    sid = serve.client.create("bash")["id"]
    master, slave = os.openpty()
    cooked = termios.tcgetattr(slave)

    def signalled_at_once(channel, in_fd, out_fd, size, read_keys=True):
        assert not termios.tcgetattr(slave)[3] & termios.ECHO  # raw mode is on
        os.kill(os.getpid(), signal.SIGTERM)  # the moment a slow start would be hit
        raise AssertionError("SIGTERM did not stop the attach")

    monkeypatch.setattr(attach, "relay", signalled_at_once)
    try:
        code = attach.run_attach(resolve_paths(), sid, in_fd=slave, out_fd=slave)
        assert code == 128 + signal.SIGTERM
        assert termios.tcgetattr(slave)[3] == cooked[3]  # ECHO and ICANON are back
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # ours was taken away again
    finally:
        os.close(master)
        os.close(slave)
    assert wait_until(lambda: session_row(serve, sid)["clients"] == 0)
    assert session_row(serve, sid)["alive"]


@wine_limit("no-posix-tools")
@pytest.mark.parametrize("direct", ["1", "0"])
def test_output_stops_at_detach(
    serve: ServeProcess, monkeypatch: pytest.MonkeyPatch, direct: str
) -> None:
    """A session that keeps printing: once the terminal says it detached, not one more
    byte of the session reaches it (the user's own shell is back there). Both ways of
    carrying output: written by the host straight to the terminal, and sent through the
    connection."""
    import time

    monkeypatch.setenv("TERMWISE_DIRECT_OUTPUT", direct)
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    serve.client.send(sid, "yes tick-$((1 + 1))", enter=True)  # a flood: output always queued
    term = Terminal(attach_argv(sid))
    try:
        term.wait_for(b"tick-2")
        term.pty.write(b"\x1dd")
        assert term.pty.wait(15) == 0, bytes(term.output)[-600:]
        term.wait_for(b"detached from session")
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 0)
        time.sleep(0.5)
        after = bytes(term.output).split(b"detached from session", 1)[1]
        assert b"tick" not in after, after[:200]
    finally:
        term.close()
    assert session_row(serve, sid)["alive"]


@wine_limit("no-posix-tools")
def test_a_killed_client_gets_no_more_of_the_output_queued_for_its_terminal(
    serve: ServeProcess,
) -> None:
    """A frozen terminal lets megabytes of a flood queue up in the host for it; its client
    is then killed. The queue is dropped, not poured into the terminal the client left:
    what arrives after is only what the terminal itself already held."""
    import os
    import signal
    import time

    from tests.tray.commands.test_attach_exit import Terminal as PausableTerminal

    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    term = PausableTerminal(sid)
    try:
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 1)
        term.output.clear()
        term.reading.clear()  # the window stops reading
        serve.client.send(sid, "yes tick-$((1 + 1))", enter=True)
        time.sleep(1.5)  # the host fills its queue for this terminal to the high water (4 MB)
        os.kill(term.pty.pid, signal.SIGKILL)
        assert term.pty.wait(15) == 128 + signal.SIGKILL
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 0)
        time.sleep(0.5)
        term.reading.set()
        time.sleep(1.0)
        assert len(term.output) < 1_000_000, f"{len(term.output)} bytes reached the terminal"
    finally:
        term.reading.set()
        term.pty.close()
    assert session_row(serve, sid)["alive"]
