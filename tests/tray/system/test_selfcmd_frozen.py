"""In a frozen Windows build, sessions call the console `termwise.exe`, never the windowed tray."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from termwise.tray.system import selfcmd


def test_frozen_tray_points_sessions_at_the_console_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The tray runs as TermwiseTray.exe; `??` must run the termwise.exe beside it to print anything."""
    (tmp_path / "TermwiseTray.exe").write_bytes(b"")
    (tmp_path / "termwise.exe").write_bytes(b"")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "TermwiseTray.exe"))
    monkeypatch.setattr(sys, "platform", "win32")
    assert selfcmd.termwise_program() == str(tmp_path / "termwise.exe")
    assert selfcmd.self_argv() == [str(tmp_path / "termwise.exe")]


def test_frozen_console_program_calls_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "termwise").write_bytes(b"")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "termwise"))
    assert selfcmd.self_argv() == [str(tmp_path / "termwise")]
