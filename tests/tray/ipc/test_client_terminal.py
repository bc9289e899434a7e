"""Which terminals the host writes an attached client's output to, and which it refuses."""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from termwise.tray.ipc.client_terminal import open_client_terminal, terminal_name

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="terminals are opened on POSIX")


@pytest.fixture
def pair():
    import pty

    master, slave = pty.openpty()
    yield master, slave
    for fd in (master, slave):
        try:
            os.close(fd)
        except OSError:
            pass


def test_a_terminal_of_this_user_is_opened_non_blocking_and_reaches_the_emulator(pair) -> None:
    master, slave = pair
    name = terminal_name(slave)
    assert name is not None and name.startswith("/dev/")
    fd = open_client_terminal(name)
    assert fd is not None
    try:
        assert not os.get_blocking(fd)
        assert os.get_blocking(slave)  # the client's own descriptor is untouched
        os.write(fd, b"straight from the host")
        assert b"straight from the host" in os.read(master, 1024)
    finally:
        os.close(fd)


def test_a_pipe_has_no_terminal_name() -> None:
    r, w = os.pipe()
    try:
        assert terminal_name(w) is None
    finally:
        os.close(r)
        os.close(w)


def test_the_direct_path_can_be_turned_off(pair, monkeypatch) -> None:
    monkeypatch.setenv("TERMWISE_DIRECT_OUTPUT", "0")
    assert terminal_name(pair[1]) is None


@pytest.mark.parametrize(
    "name",
    [
        None,
        42,
        "",
        "/dev/tty",  # the opener's own terminal, not the client's
        "/dev/stdout",  # links that resolve in the host, to the host's own files
        "/dev/fd/1",
        "/dev/fd/2",
        "/dev/watchdog",  # opening it has an effect: never opened
        "/dev/ttyS0",  # a serial line: output goes through the connection
        "/dev/pts/../../etc/passwd",
        "/dev/pts/0\n",
        "/dev/pts/",
        "/dev/null",  # a character device, but not a terminal
        "/dev/../etc/passwd",
        "/etc/passwd",
        "relative/pts/3",
        "/dev/pts/999999",  # no such terminal
    ],
)
def test_anything_but_a_terminal_device_is_refused(name) -> None:
    assert open_client_terminal(name) is None


def test_a_regular_file_under_dev_is_refused(tmp_path) -> None:
    """Only character devices that are terminals: never a file, even one named like one."""
    if not os.access("/dev/shm", os.W_OK):
        pytest.skip("no writable /dev/shm")
    path = f"/dev/shm/termwise-not-a-tty-{os.getpid()}"
    with open(path, "w") as f:
        f.write("keep")
    try:
        assert open_client_terminal(path) is None
        with open(path) as f:
            assert f.read() == "keep"
    finally:
        os.unlink(path)


def test_a_link_to_a_terminal_is_refused(pair) -> None:
    """/dev/fd/N names a terminal here, but in the host it would be whatever the host has
    open at N: only a terminal's own device name is taken."""
    link = f"/dev/fd/{pair[1]}"
    assert os.isatty(pair[1]) and os.path.exists(link)
    assert open_client_terminal(link) is None


@given(
    st.one_of(
        st.text(max_size=40),
        st.builds("/dev/pts/{}".format, st.text(max_size=12)),
        st.builds("/dev/tty{}".format, st.text(max_size=12)),
        st.integers().map("/dev/pts/{}".format),
    )
)
def test_any_name_a_client_sends_is_refused_or_is_a_terminal(name: str) -> None:
    """Whatever an attach request names: no exception, and only a terminal is kept."""
    fd = open_client_terminal(name)
    if fd is not None:
        try:
            assert os.isatty(fd)
        finally:
            os.close(fd)
