"""Helpers for the skill tests: a config whose allowed folder is a temp folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.chat.skills.base import SkillContext


@pytest.fixture
def allowed(tmp_path: Path) -> Path:
    folder = tmp_path / "allowed"
    folder.mkdir()
    # newline="\n": the same bytes on Windows (write_text would write CRLF there).
    (folder / "notes.txt").write_text("hello from notes\n", encoding="utf-8", newline="\n")
    (folder / "src").mkdir()
    (folder / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
    (tmp_path / "outside.txt").write_text("private\n", encoding="utf-8")
    return folder


@pytest.fixture
def ctx(allowed: Path) -> SkillContext:
    config = Config()
    config.skills.allowed_folders = [str(allowed)]
    config.skills.max_file_bytes = 1000
    return SkillContext(config=config, cwd=allowed)
