"""The session host with real bash and zsh: blocks, events, active session, attach, resize."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from termwise.tray.host.errors import SessionEnded, SessionStartFailed, UnknownSession
from termwise.tray.host.events import (
    ActiveChanged,
    BlockFinished,
    HostEvent,
    SessionStarted,
)
from termwise.tray.host.events import (
    SessionEnded as SessionEndedEvent,
)
from termwise.tray.host.host import SessionHost
from termwise.tray.host.session import Session
from termwise.tray.host.shells import UnknownShell

from tests.support.tools import params
from tests.support.wine_limits import wine_limit

SHELLS = params("bash", "zsh")


def run(session: Session, command: str, timeout: float = 15.0):
    """Type a command and wait for its block."""
    last = session.last_block()
    session.send_text(command, enter=True)
    block = session.wait_for_block(last.index if last else -1, timeout)
    assert block is not None, f"no block for {command!r}; screen:\n{session.screen_text()}"
    return block


def wait_until(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


@pytest.mark.parametrize("shell", SHELLS)
def test_commands_become_blocks(host: SessionHost, shell: str, tmp_path: Path) -> None:
    """Each typed command becomes a block with its clean output, exit code and folder."""
    session = host.create(shell, cwd=str(tmp_path))
    hi = run(session, "echo hi")
    assert (hi.command, hi.text(), hi.exit_code, hi.cwd) == ("echo hi", "hi", 0, str(tmp_path))
    assert run(session, "ls /nonexistent").exit_code == 2
    cd = run(session, "cd /tmp")
    assert cd.exit_code == 0 and cd.cwd == "/tmp" and session.cwd == "/tmp"
    assert run(session, "printf 'a\\rb\\rdone\\n'").text() == "done"
    alt = run(session, "printf '\\033[?1049hFULLSCREEN-TEXT\\033[?1049l'; echo after")
    assert "FULLSCREEN-TEXT" not in alt.text() and "after" in alt.text()
    ctx = session.context(2)
    assert ctx.blocks[0].command == "printf 'a\\rb\\rdone\\n'"
    assert ctx.shell == shell and ctx.cwd == "/tmp" and ctx.session_id == session.id


@wine_limit("no-posix-tools")
def test_events_reach_subscribers(host: SessionHost) -> None:
    """Subscribers hear a session start, each block, the active change and the exit code."""
    events: list[HostEvent] = []
    unsubscribe = host.subscribe(events.append)
    host.subscribe(lambda e: 1 / 0)  # a broken subscriber must not stop the others
    session = host.create("bash")
    run(session, "true")
    host.set_active(session.id)
    session.send_text("exit 7", enter=True)
    assert wait_until(lambda: any(isinstance(e, SessionEndedEvent) for e in events))
    kinds = [type(e) for e in events]
    assert kinds[0] is SessionStarted
    assert BlockFinished in kinds and ActiveChanged in kinds
    ended = next(e for e in events if isinstance(e, SessionEndedEvent))
    assert ended.exit_code == 7 and session.exit_code == 7 and not session.alive
    unsubscribe()
    host.create("bash")
    assert not any(isinstance(e, SessionStarted) for e in events[len(kinds) :])


@wine_limit("no-posix-tools")
def test_active_session_follows_input(host: SessionHost) -> None:
    """Active = last to receive input; without input, the newest running session."""
    first = host.create("bash")
    second = host.create("bash")
    assert host.active() is second
    host.set_active(first.id)
    assert host.active() is first
    host.kill(first.id)
    assert not first.alive
    assert host.active() is second


@wine_limit("no-posix-tools")
def test_unknown_ids_and_bad_starts_are_explained(host: SessionHost, tmp_path: Path) -> None:
    """Unknown session lists the running ones; bad folder and unknown shell say what is wrong."""
    host.create("bash")
    with pytest.raises(UnknownSession, match=r"no session '42'; running: 1"):
        host.get("42")
    with pytest.raises(SessionStartFailed, match="no such folder"):
        host.create("bash", cwd=str(tmp_path / "missing"))
    with pytest.raises(UnknownShell, match="bash"):
        host.create("fish-shell-9000")


@wine_limit("no-posix-tools")
def test_killed_session_refuses_input(host: SessionHost) -> None:
    """Killing ends the shell with the named policy; typing into it says it has ended."""
    session = host.create("bash")
    run(session, "true")
    host.kill(session.id)
    assert not session.alive and session.exit_code is not None
    with pytest.raises(SessionEnded):
        session.send_text("echo too late", enter=True)
    assert session in host.list()


@wine_limit("no-posix-tools")
def test_attach_replays_then_streams_live(host: SessionHost) -> None:
    """An attached client first gets a redraw of recent output, then live output, until detach."""
    session = host.create("bash")
    run(session, "echo before-attach")
    got = bytearray()
    lock = threading.Lock()

    def on_data(data: bytes) -> None:
        with lock:
            got.extend(data)

    ended: list[int | None] = []
    detach = session.attach(on_data, ended.append, rows=30, cols=100)
    assert session.size == (30, 100)
    with lock:
        assert b"before-attach" in got
    assert run(session, "stty size").text() == "30 100"
    assert wait_until(lambda: b"30 100" in got)
    detach()
    run(session, "echo after-detach")
    with lock:
        assert b"after-detach" not in got
    assert ended == []


@wine_limit("no-posix-tools")
def test_ending_session_tells_attached_clients(host: SessionHost) -> None:
    """When the shell exits, every attached client gets its exit code."""
    session = host.create("bash")
    codes: list[int | None] = []
    session.attach(lambda d: None, codes.append)
    session.attach(lambda d: None, codes.append)
    assert session.client_count == 2
    session.send_text("exit 3", enter=True)
    assert wait_until(lambda: len(codes) == 2)
    assert codes == [3, 3]


@wine_limit("no-posix-tools")
def test_attach_during_a_full_screen_program_asks_it_to_redraw(host: SessionHost) -> None:
    """Attaching while a full-screen program runs switches the client to the alternate screen and the program redraws."""
    session = host.create("bash")
    program = (
        # The handler goes in before the first draw: the attach may come right after it.
        "import signal, sys; "
        "signal.signal(signal.SIGWINCH, lambda *a: print('REDRAWN', flush=True)); "
        "sys.stdout.write('\\x1b[?1049hFIRST-DRAW\\n'); sys.stdout.flush(); "
        "[signal.pause() for _ in range(100)]"
    )
    session.send_text(f'python3 -c "{program}"', enter=True)
    assert wait_until(lambda: b"\x1b[?1049hFIRST-DRAW" in session.raw_tail(4096))
    got = bytearray()
    session.attach(got.extend, lambda code: None)
    assert bytes(got).startswith(b"\x1b[?1049h")  # the client's terminal enters the alt screen
    assert wait_until(lambda: b"REDRAWN\r\n" in got)  # the program was told to draw again
    session.write(b"\x03")


@pytest.mark.parametrize("shell", SHELLS)
def test_the_command_that_ends_the_shell_is_its_last_block(host: SessionHost, shell: str) -> None:
    """`exit 3` leaves a block with exit code 3, so the context shows how the session ended."""
    session = host.create(shell)
    run(session, "echo before")
    session.send_text("exit 3", enter=True)
    assert wait_until(lambda: not session.alive, 15)
    last = session.last_block()
    assert last is not None and last.command == "exit 3" and last.exit_code == 3


@pytest.mark.parametrize("shell", SHELLS)
def test_the_rules_look_on_the_shells_own_path(
    host: SessionHost, shell: str, tmp_path: Path
) -> None:
    """A program only the shell's PATH has (an export, a venv) is what a typo is corrected
    to, though the host's own PATH has never heard of it."""
    from dataclasses import replace

    from termwise.agent.suggest.turn import rules_suggestions

    tools = tmp_path / "tools; v2"  # ';' and a space travel escaped
    tools.mkdir()
    program = tools / "frobnicate"
    program.write_text("#!/bin/sh\necho frobnicated\n")
    program.chmod(0o755)
    session = host.create(shell, cwd=str(tmp_path))
    assert run(session, f"export PATH='{tools}':\"$PATH\"").exit_code == 0
    failed = run(session, "frobnicat")
    assert failed.exit_code == 127
    assert wait_until(lambda: (session.shell_path or "").startswith(f"{tools}:"))

    ctx = session.context(2)
    assert "frobnicate" in [s.command for s in rules_suggestions(ctx)]
    # the same failure judged with the host's PATH alone finds nothing to offer
    assert "frobnicate" not in [s.command for s in rules_suggestions(replace(ctx, path=None))]
