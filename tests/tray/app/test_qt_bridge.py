"""Host events reach the GUI thread as queued signals, in order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QThread
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import resolve_paths
from termwise.tray.app.qt_bridge import HostBridge
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy

from tests.support.wine_limits import wine_limit

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionHost]:
    monkeypatch.setenv("HOME", str(tmp_path))  # no machine dotfiles in the shell
    h = SessionHost(Config(), resolve_paths().ensure(), termination=FAST_END)
    try:
        yield h
    finally:
        h.shutdown()


@wine_limit("no-posix-tools")
def test_host_events_arrive_on_the_gui_thread(qtbot: Any, host: SessionHost) -> None:
    """A real shell's finished block and its end arrive as signals on the GUI thread."""
    bridge = HostBridge(host)
    gui = QThread.currentThread()
    seen: list[tuple[str, bool]] = []
    bridge.block_finished.connect(
        lambda _s, block: seen.append((block.command, QThread.currentThread() is gui))
    )
    with qtbot.waitSignal(bridge.session_started, timeout=10000):
        session = host.create("bash")
    with qtbot.waitSignal(bridge.block_finished, timeout=15000):
        session.send_text("echo bridged", enter=True)
    assert ("echo bridged", True) in seen
    with qtbot.waitSignal(bridge.session_ended, timeout=15000) as ended:
        host.kill(session.id)
    assert ended.args[0].id == session.id
    bridge.close()
    bridge.close()  # idempotent
