"""A line Termwise shows in a session (a deploy's outcome) never leaves junk on the screen.

The notice asks the shell to redraw its prompt below it with a private key sequence. Only a
prompt that is up can take that key: between a command's end and its next prompt the
terminal driver would echo it as `^[[9274~` (seen after `deploy ./proj` in an xterm).
"""

from __future__ import annotations

import shutil

import pytest
from termwise.tray.host.host import SessionHost

from tests.tray.host.test_line_replace import last_index, next_block, ready, run_plain, wait_until

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

ECHOED_KEY = b"^[[9274~"  # how the terminal driver echoes the redraw key
PROMPT_MARK = b"\x1b]133;A"


def test_a_notice_before_the_next_prompt_types_nothing(host: SessionHost) -> None:
    """The notice lands after a command ended but before the prompt is drawn: nothing is
    written to the shell, so nothing is echoed; the next command runs as typed."""
    session = ready(host, "bash")
    # Each prompt now comes a second after the command's end mark: a window to land in.
    run_plain(session, "PROMPT_COMMAND+=$'\\nsleep 1'")
    after = last_index(session)
    session.send_text("echo one", enter=True)
    next_block(session, after)  # its end mark is in; the prompt is a second away
    session.show_notice("termwise deploy: completed")
    after = last_index(session)
    session.send_text("echo two", enter=True)
    block = next_block(session, after)
    assert block.command == "echo two" and block.text() == "two"
    assert ECHOED_KEY not in session.raw_tail(64 * 1024)


def test_a_notice_at_the_prompt_redraws_it(host: SessionHost) -> None:
    """At a waiting prompt the shell draws its prompt again below the notice."""
    session = ready(host, "bash")
    before = session.raw_tail(64 * 1024).count(PROMPT_MARK)
    blocks = last_index(session)
    session.show_notice("termwise deploy: completed")
    assert wait_until(lambda: session.raw_tail(64 * 1024).count(PROMPT_MARK) > before)
    assert last_index(session) == blocks  # a redraw, not a command
    assert ECHOED_KEY not in session.raw_tail(64 * 1024)
