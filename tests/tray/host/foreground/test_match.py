"""Pairing the foreground window with attached clients: real process trees, tabs, Windows handles."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from termwise.tray.host.foreground import ClientWindow, Foreground
from termwise.tray.host.foreground.match import AttachedClient, in_window, most_recent, sessions_in

from tests.tray.host.foreground.support import Terminal

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    """Two windows: one with a single client, one with two clients (tabs)."""
    made = [Terminal(1), Terminal(2)]
    yield made
    for t in made:
        t.close()


def clients_of(terminals: list[Terminal]) -> list[AttachedClient]:
    """Sessions 1 (first window), 2 and 3 (tabs of the second window)."""
    pids = [terminals[0].clients[0], *terminals[1].clients]
    return [AttachedClient.of(str(i + 1), ClientWindow(pid=pid)) for i, pid in enumerate(pids)]


@linux_only
def test_the_window_process_finds_the_clients_beneath_it(terminals: list[Terminal]) -> None:
    """A window's pid matches exactly the clients whose ancestry passes through it."""
    clients = clients_of(terminals)
    assert sessions_in(Foreground(pid=terminals[0].pid), clients) == ["1"]
    assert sessions_in(Foreground(pid=terminals[1].pid), clients) == ["2", "3"]


@linux_only
def test_a_window_that_is_not_a_terminal_matches_nothing(terminals: list[Terminal]) -> None:
    """A foreground process unrelated to any client (a browser) and an unknown pid match no session."""
    clients = clients_of(terminals)
    browser = Terminal(0)
    try:
        assert sessions_in(Foreground(pid=browser.pid), clients) == []
    finally:
        browser.close()
    assert sessions_in(Foreground(pid=None, window=42), clients) == []


@linux_only
def test_several_clients_of_one_session_count_once(terminals: list[Terminal]) -> None:
    """Two clients attached to one session in the same window give that session once."""
    pid = terminals[1].clients
    clients = [AttachedClient.of("7", ClientWindow(pid=p)) for p in pid]
    assert sessions_in(Foreground(pid=terminals[1].pid), clients) == ["7"]


def test_windows_console_root_owner_matches_the_foreground_handles() -> None:
    """On Windows a client matches when its console's root owner is the foreground window or its root owner."""
    wt_tab_a = AttachedClient("1", ClientWindow(pid=10, console_window=0x1001))
    wt_tab_b = AttachedClient("2", ClientWindow(pid=11, console_window=0x1001))
    conhost = AttachedClient("3", ClientWindow(pid=12, console_window=0x2002))
    clients = [wt_tab_a, wt_tab_b, conhost]
    terminal = Foreground(pid=500, handles=frozenset({0x1001}))
    assert sessions_in(terminal, clients) == ["1", "2"]
    owned_dialog = Foreground(pid=600, handles=frozenset({0x3003, 0x2002}))
    assert sessions_in(owned_dialog, clients) == ["3"]
    assert not in_window(Foreground(pid=700, handles=frozenset({0x4004})), conhost)


def test_among_tabs_the_last_to_get_input_wins() -> None:
    """The most recent input decides between sessions in one window; with none, the later one."""
    assert most_recent(["2", "3"], {"2": 5, "3": 4, "1": 9}) == "2"
    assert most_recent(["2", "3"], {"3": 1}) == "3"
    assert most_recent(["2", "3"], {}) == "3"
    assert most_recent([], {"1": 1}) is None


def test_windows_foreground_token_from_user32_answers() -> None:
    """GetForegroundWindow's NULL means 'cannot tell'; a window without an owner is its own root owner."""
    from termwise.tray.host.foreground.windows import describe

    assert describe(None, None, 0) is None
    assert describe(0x10, None, 42) == Foreground(pid=42, handles=frozenset({0x10}))
    assert describe(0x10, 0x20, 0) == Foreground(pid=None, handles=frozenset({0x10, 0x20}))
