"""Secrets in failed commands never reach the log file or the failure notification; logs are 0600."""

from __future__ import annotations

import logging
import logging.handlers
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from termwise.agent.base.config_schema import Config
from termwise.agent.base.paths import Paths, resolve_paths
from termwise.overlay.i18n import set_language
from termwise.tray.app.app import TrayApp
from termwise.tray.host.host import SessionHost
from termwise.tray.host.pty import TerminationPolicy
from termwise.tray.ipc.server import IpcServer
from termwise.tray.system.logs import LOG_FILE, setup_logging

from tests.support.wine_limits import wine_limit

FAST_END = TerminationPolicy(hangup_grace=1.0, term_grace=0.5, kill_grace=1.0)
GITHUB = "ghp_0123456789abcdefghijABCDEFGHIJklmnop"
MYSQL = "S3cretPassw0rdXY"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
FAILING = (
    (f"GITHUB_TOKEN={GITHUB} git -C /nonexistent-termwise push", GITHUB),
    (f"mysql -uroot -p{MYSQL} -h 127.0.0.1 -P 9 -e 'select 1' || false", MYSQL),
    (f"curl -sf -H 'Authorization: Bearer {JWT}' http://127.0.0.1:9/", JWT),
)


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> Paths:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    set_language("en")
    return resolve_paths().ensure()


@pytest.fixture
def tray(qapp: QApplication, paths: Paths) -> Iterator[TrayApp]:
    config = Config()
    config.hotkey.enabled = False
    config.llm.probe_ollama = False
    host = SessionHost(config, paths, termination=FAST_END, foreground=None)
    ipc = IpcServer(host, paths)
    ipc.start()
    app = TrayApp(qapp, config, paths, host, ipc)
    app.start()
    try:
        yield app
    finally:
        app.quit_now()
        root = logging.getLogger()
        for handler in list(root.handlers):
            if getattr(handler, "_termwise", False):
                root.removeHandler(handler)
                handler.close()


@wine_limit("no-posix-tools")
def test_failed_commands_with_secrets_are_redacted_in_log_and_notification(
    qtbot, tray: TrayApp, paths: Paths
) -> None:
    """A failed command holding a GitHub token, a mysql -p password or a Bearer JWT is logged
    and notified with markers instead of the secret."""
    log_file = setup_logging(paths.log_dir)
    session = tray.host.create("bash")
    notes: list[str] = []
    for command, secret in FAILING:
        last = session.last_block()
        with qtbot.waitSignal(tray.nudge.failed, timeout=30000) as nudged:
            session.send_text(command, enter=True)
            session.wait_for_block(last.index if last else -1, 30)
        text = nudged.args[1]
        notes.append(text)
        assert secret not in text and "[REDACTED:" in text, text
    logging.getLogger("termwise.test").error("token in a traceback", exc_info=ValueError(GITHUB))
    for handler in logging.getLogger().handlers:
        handler.flush()
    logged = log_file.read_text(encoding="utf-8")
    assert "command failed in session" in logged
    for _, secret in FAILING:
        assert secret not in logged
    assert logged.count("[REDACTED:") >= len(FAILING) + 1
    assert len(notes) == len(FAILING)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_user_folders_and_logs_are_private(tmp_path: Path) -> None:
    """Data, config, log, cache and runtime folders are 0700 (narrowed if older ones were wider);
    the log file and its rotations are 0600."""
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True, mode=0o755)
    os.chmod(home / "logs", 0o755)
    paths = resolve_paths({"TERMWISE_HOME": str(home)}).ensure()
    for folder in (paths.config_dir, paths.data_dir, paths.log_dir, paths.cache_dir):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    old = paths.log_dir / LOG_FILE
    old.write_text("from an older version\n")
    os.chmod(old, 0o644)
    try:
        path = setup_logging(paths.log_dir)
        logging.getLogger("termwise.test").warning("hello")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        handler = next(h for h in logging.getLogger().handlers if getattr(h, "_termwise", False))
        assert isinstance(handler, logging.handlers.RotatingFileHandler)
        handler.doRollover()
        for file in paths.log_dir.glob(LOG_FILE + "*"):
            assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
    finally:
        root = logging.getLogger()
        for handler in list(root.handlers):
            if getattr(handler, "_termwise", False):
                root.removeHandler(handler)
                handler.close()
