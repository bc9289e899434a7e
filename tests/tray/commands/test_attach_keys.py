"""Keys the host reads straight from an attached terminal: they reach the session while
the client is attached, and not one is taken from the shell the terminal goes back to
when the client detaches, is terminated or is killed."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from termwise.tray.ipc.client_terminal import open_client_terminal

from tests.support.wine_limits import wine_limit
from tests.tray.commands.test_attach import Terminal, session_row
from tests.tray.serve_support import TERMWISE, ServeProcess, wait_until

pytestmark = [
    pytest.mark.skipif(sys.platform != "linux", reason="the host reads terminals on Linux"),
    pytest.mark.usefixtures("plain_home"),
]


def session_ran(serve: ServeProcess, sid: str, text: str) -> bool:
    return any(text in block["output"] for block in serve.client.context(sid, 20))


def paste(term: Terminal, data: bytes) -> None:
    try:
        term.pty.write(data)  # blocks once every queue on the way is full
    except OSError:
        pass  # the terminal was closed


def attach_child(parent_pid: int) -> int:
    """The `termwise attach` process the parent shell started."""
    found: list[int] = []

    def child() -> bool:
        out = subprocess.run(["pgrep", "-P", str(parent_pid)], capture_output=True, text=True)
        found[:] = [int(pid) for pid in out.stdout.split()]
        return bool(found)

    assert wait_until(child, 15)
    return found[0]


@wine_limit("no-posix-tools")
@pytest.mark.parametrize("ending", ["chord", "SIGTERM", "SIGKILL"])
def test_keys_typed_after_the_client_ends_go_to_the_shell_it_came_from(
    serve: ServeProcess, ending: str
) -> None:
    """A shell runs `termwise attach`; keys typed reach the session. Once the client is
    gone (detached by the chord, terminated or killed), the next line typed in that
    terminal is run by the shell that started it, and never by the session."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    attach = " ".join([*TERMWISE, "attach", sid])
    # The outer shell: after the client, it reads lines and runs them, as a prompt would.
    outer = f'{attach}; stty sane; echo outer-back; while read -r line; do eval "$line"; done'
    term = Terminal(["bash", "--norc", "--noprofile", "-c", outer])
    try:
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 1)
        term.pty.write(b"echo inside-$((40 + 2))\r")
        assert wait_until(lambda: session_ran(serve, sid, "inside-42"))
        if ending == "chord":
            term.pty.write(b"\x1dd")
        else:
            os.kill(attach_child(term.pty.pid), getattr(signal, ending))
        term.wait_for(b"outer-back")
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 0)
        term.pty.write(b"echo outer-$((6 * 7))\n")
        term.wait_for(b"outer-42")  # the outer shell ran it
        time.sleep(0.3)
        assert not session_ran(serve, sid, "outer-42")
        assert session_row(serve, sid)["alive"]
    finally:
        term.close()


@wine_limit("no-posix-tools")
def test_keys_reach_the_shell_even_while_the_client_process_is_stopped(
    serve: ServeProcess,
) -> None:
    """The host reads keys from the terminal itself (one process fewer between a key and
    its echo): with the attach client stopped, a typed command still runs and echoes."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    term = Terminal([*TERMWISE, "attach", sid])
    try:
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 1)
        os.kill(term.pty.pid, signal.SIGSTOP)
        try:
            term.pty.write(b"echo direct-$((3 * 3))\r")
            assert wait_until(lambda: session_ran(serve, sid, "direct-9"))
            term.wait_for(b"direct-9")
        finally:
            os.kill(term.pty.pid, signal.SIGCONT)
    finally:
        term.close()


@wine_limit("no-posix-tools")
def test_with_the_direct_path_off_keys_go_through_the_client(
    serve: ServeProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERMWISE_DIRECT_OUTPUT", "0")
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    term = Terminal([*TERMWISE, "attach", sid])
    try:
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 1)
        term.pty.write(b"echo relayed-$((5 * 5))\r")
        term.wait_for(b"relayed-25")
        term.pty.write(b"\x1dd")
        assert term.pty.wait(15) == 0
        term.wait_for(b"detached from session")
    finally:
        term.close()


# The reader on its own, on a real terminal pair and a real socket pair.


@pytest.fixture
def wiring() -> Iterator[tuple[int, int, socket.socket, socket.socket]]:
    master, slave = os.openpty()
    ours, theirs = socket.socketpair()
    yield master, slave, ours, theirs
    for fd in (master, slave):
        os.close(fd)
    ours.close()
    theirs.close()


def reader(slave: int, connection: socket.socket, typed: list[bytes], detached: list[bool]):
    from termwise.tray.ipc.client_keys import TerminalKeys  # POSIX only: it asserts so

    fd = open_client_terminal(os.ttyname(slave), read=True)
    assert fd is not None
    os.set_blocking(slave, False)
    return TerminalKeys(fd, connection.fileno(), typed.append, lambda: detached.append(True))


def raw(slave: int) -> None:
    import tty

    tty.setraw(slave)


def left_in_terminal(slave: int) -> bytes:
    ready, _, _ = select.select([slave], [], [], 1.0)
    return os.read(slave, 1024) if ready else b""


def test_keys_are_relayed_until_the_chord_and_the_rest_stays_in_the_terminal(wiring) -> None:
    master, slave, ours, _ = wiring
    raw(slave)
    typed: list[bytes] = []
    detached: list[bool] = []
    keys = reader(slave, ours, typed, detached)
    keys.start()
    try:
        os.write(master, b"ls\r")
        assert wait_until(lambda: b"".join(typed) == b"ls\r", 5)
        os.write(master, b"x\x1dd")
        assert wait_until(lambda: detached == [True], 5)
        assert keys.detached
        assert b"".join(typed) == b"ls\rx"
        os.write(master, b"for the shell")
        assert left_in_terminal(slave) == b"for the shell"
    finally:
        keys.stop()


@pytest.mark.parametrize("how", ["hang-up", "stop"])
def test_no_key_is_read_once_the_client_hangs_up_or_the_host_stops(wiring, how: str) -> None:
    master, slave, ours, theirs = wiring
    raw(slave)
    typed: list[bytes] = []
    keys = reader(slave, ours, typed, [])
    keys.start()
    try:
        os.write(master, b"a")
        assert wait_until(lambda: typed == [b"a"], 5)
        if how == "hang-up":
            theirs.close()
            assert wait_until(lambda: not keys._thread.is_alive(), 5)
        else:
            keys.stop()
        os.write(master, b"later")
        assert left_in_terminal(slave) == b"later"
        assert typed == [b"a"]
        assert not keys.detached
    finally:
        keys.stop()


@wine_limit("no-posix-tools")
def test_a_client_leaves_even_while_its_keys_wait_for_a_shell_that_reads_none(
    serve: ServeProcess,
) -> None:
    """The shell is stopped and a long paste fills its input: terminating the client
    still detaches it (the host does not wait forever for the paste to be taken), and
    the shell carries on when it is continued."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, "true")
    shell = session_row(serve, sid)["pid"]
    term = Terminal([*TERMWISE, "attach", sid])
    os.kill(shell, signal.SIGSTOP)
    try:
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 1)
        threading.Thread(target=paste, args=(term, b"#" * 200_000), daemon=True).start()
        time.sleep(1.0)  # the shell's terminal takes about 64 KB; the host waits with the rest
        os.kill(term.pty.pid, signal.SIGTERM)
        assert term.pty.wait(15) == 128 + signal.SIGTERM
        assert wait_until(lambda: session_row(serve, sid)["clients"] == 0, 10)
    finally:
        os.kill(shell, signal.SIGCONT)
        term.close()
    serve.client.send(sid, "\x15echo back-$((8 * 8))", enter=True)
    assert wait_until(lambda: session_ran(serve, sid, "back-64"), 20)
