"""Typing and running replace the prompt's pending text; Enter only when the line is exact.

Real bash and zsh in real PTYs (emacs and vi keymaps); what ran is read back from the
blocks the shell's own marks produced, as `termwise context` shows them.
"""

from __future__ import annotations

import shutil
import time

import pytest
from termwise.tray.host.errors import CommandRefused
from termwise.tray.host.host import SessionHost
from termwise.tray.host.line import parse_line_report, refusal_for_text
from termwise.tray.host.session import Session

from tests.support.wine_limits import wine_limit

SHELLS = [s for s in ("bash", "zsh") if shutil.which(s)]
PENDING = "echo PENDING-"


def wait_until(predicate, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def ready(host: SessionHost, shell: str, vi: bool = False) -> Session:
    """A session at its prompt whose integration announced it can report its line."""
    session = host.create(shell)
    assert wait_until(lambda: session.can_run_exact and session.has_marks), session.screen_text()
    if vi:
        run_plain(session, "set -o vi" if shell == "bash" else "bindkey -v")
    return session


def run_plain(session: Session, command: str):
    last = session.last_block()
    session.send_text(command, enter=True)
    block = session.wait_for_block(last.index if last else -1, 15)
    assert block is not None, session.screen_text()
    return block


def next_block(session: Session, after: int):
    block = session.wait_for_block(after, 15)
    assert block is not None, session.screen_text()
    return block


def last_index(session: Session) -> int:
    last = session.last_block()
    return last.index if last else -1


@pytest.mark.parametrize("vi", [False, True], ids=["emacs", "vi"])
@pytest.mark.parametrize("shell", SHELLS)
def test_run_replaces_pending_text(host: SessionHost, shell: str, vi: bool) -> None:
    """With `echo PENDING-` half-typed, run executes exactly the command, nothing appended."""
    session = ready(host, shell, vi)
    after = last_index(session)
    session.write(PENDING.encode())
    outcome = session.run_command("echo replaced-ok", timeout=10)
    assert outcome.ran, outcome.reason
    block = next_block(session, after)
    assert block.command == "echo replaced-ok"
    assert block.text() == "replaced-ok"


@pytest.mark.parametrize("shell", SHELLS)
def test_run_from_vi_command_mode(host: SessionHost, shell: str) -> None:
    """In vi command mode (Esc pressed after typing) the text is not read as vi commands."""
    session = ready(host, shell, vi=True)
    after = last_index(session)
    session.write(PENDING.encode() + b"\x1b")
    time.sleep(0.3)  # let the shell take the lone Esc as "command mode", as a person's would
    outcome = session.run_command("echo from-vi-cmd", timeout=10)
    assert outcome.ran, outcome.reason
    assert next_block(session, after).command == "echo from-vi-cmd"


@pytest.mark.parametrize("vi", [False, True], ids=["emacs", "vi"])
@pytest.mark.parametrize("shell", SHELLS)
def test_type_replaces_pending_text_and_does_not_run(
    host: SessionHost, shell: str, vi: bool
) -> None:
    """Typing replaces the pending text and leaves the command on the prompt for the user."""
    session = ready(host, shell, vi)
    after = last_index(session)
    session.write(PENDING.encode())
    session.type_command("echo typed-ok 'a;b' héllo")
    time.sleep(0.3)
    assert last_index(session) == after  # nothing ran
    session.write(b"\r")  # the user presses Enter
    block = next_block(session, after)
    assert block.command == "echo typed-ok 'a;b' héllo"
    assert block.text() == "typed-ok a;b héllo"


@pytest.mark.parametrize("shell", SHELLS)
def test_run_refuses_when_the_shell_would_expand_history(host: SessionHost, shell: str) -> None:
    """`!!` would run something other than what was judged: the line is cleared, nothing runs."""
    session = ready(host, shell)
    run_plain(session, "echo first")
    after = last_index(session)
    outcome = session.run_command("echo !!", timeout=10)
    assert not outcome.ran and "history expansion" in outcome.reason
    run_plain(session, "echo after-refusal")
    assert [b.command for b in session.blocks()][after + 1 :] == ["echo after-refusal"]


@pytest.mark.parametrize("shell", SHELLS)
def test_run_refuses_control_characters_and_newlines(host: SessionHost, shell: str) -> None:
    """A command with a newline or a control byte is refused before anything is typed."""
    session = ready(host, shell)
    for text in ("echo a\nrm -rf /tmp/x", "echo \x1b[31m", "echo \x80x", "echo a\tb"):
        outcome = session.run_command(text)
        assert not outcome.ran and outcome.reason
        with pytest.raises(CommandRefused):
            session.type_command(text)


@wine_limit("no-posix-tools")
def test_busy_shell_refuses(host: SessionHost) -> None:
    """While a command runs, its program would get the keys: type and run are refused."""
    session = ready(host, "bash")
    session.send_text("sleep 5", enter=True)
    assert wait_until(lambda: session._parser.command_running)
    with pytest.raises(CommandRefused, match="still running"):
        session.type_command("echo no")
    assert not session.run_command("echo no").ran
    session.write(b"\x03")


@wine_limit("no-posix-tools")
def test_shell_without_integration_refuses_run_and_type(host: SessionHost, monkeypatch) -> None:
    """A shell that never announced the line keys (no integration): run and type refused."""
    session = host.create("bash")
    assert wait_until(lambda: session.can_run_exact)
    session._parser.properties.clear()  # as if the integration had not loaded
    assert not session.can_run_exact and session.line_support == ""
    outcome = session.run_command("echo x")
    assert not outcome.ran and "integration" in outcome.reason
    with pytest.raises(CommandRefused, match="integration"):
        session.type_command("echo x")


def test_refusal_rules_and_report_parsing() -> None:
    """Text checks never strip; reports decode percent-escapes and the `changed` flag."""
    assert refusal_for_text("ls -la | sort") == ""
    assert "control" in refusal_for_text("ls\x7f")
    assert "empty" in refusal_for_text("   ")
    assert parse_line_report(b"echo%20h%C3%A9llo%3B") == ("echo héllo;".encode(), False)
    assert parse_line_report(b"echo%20%21%21;changed") == (b"echo !!", True)
