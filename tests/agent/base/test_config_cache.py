"""The config cache: a clean config is read back without the YAML parser, and anything that
must be seen at each start (an edit, a problem, ${NAME} values) is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from termwise.agent.base.config import load_config, write_config
from termwise.agent.base.config_schema import Config, ProviderConfig


def _entries(home: Path) -> list[Path]:
    return sorted((home / "cache" / "yaml").glob("config.json"))


def _config(tmp_path: Path) -> Path:
    cfg = Config()
    cfg.providers.append(ProviderConfig(name="local", base_url="http://127.0.0.1:9/v1"))
    cfg.hotkey.combo = "ctrl+shift+k"
    cfg.privacy.patterns = ["ACME-[0-9]+"]
    path = tmp_path / "config.yaml"
    write_config(cfg, path)
    return path


def test_a_clean_config_comes_back_from_the_cache(tmp_path: Path, termwise_home: Path) -> None:
    """Second load: the cached copy, equal to the parsed one (providers and lists included)."""
    path = _config(tmp_path)
    first = load_config(path)
    assert first.config.hotkey.combo == "ctrl+shift+k" and not first.problems
    (entry,) = _entries(termwise_home)
    assert load_config(path).config == first.config
    stored = json.loads(entry.read_text())
    stored["data"]["hotkey"]["combo"] = "from-the-cache"
    entry.write_text(json.dumps(stored))
    assert load_config(path).config.hotkey.combo == "from-the-cache"


def test_an_edit_is_seen_at_the_next_load(tmp_path: Path) -> None:
    """The user edits the file (same size, old mtime restored): the new value is in force."""
    path = _config(tmp_path)
    load_config(path)
    old = os.stat(path)
    path.write_text(path.read_text().replace("ctrl+shift+k", "ctrl+shift+j"))
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert load_config(path).config.hotkey.combo == "ctrl+shift+j"


def test_problems_are_reported_at_every_load(tmp_path: Path, termwise_home: Path) -> None:
    """A config with a bad key is not cached: its warning shows every time."""
    path = tmp_path / "config.yaml"
    path.write_text("hotkey:\n  combo: ctrl+k\n  colour: red\n")
    for _ in range(2):
        result = load_config(path)
        assert result.config.hotkey.combo == "ctrl+k"
        assert any("unknown key `hotkey.colour`" in p for p in result.problems)
    assert not _entries(termwise_home)


def test_environment_references_take_each_starts_environment(tmp_path: Path) -> None:
    """`${NAME}` values are expanded from the environment of each load, never cached."""
    path = tmp_path / "config.yaml"
    path.write_text("hotkey:\n  combo: ${TW_TEST_COMBO}\n")
    assert load_config(path, {"TW_TEST_COMBO": "ctrl+a"}).config.hotkey.combo == "ctrl+a"
    assert load_config(path, {"TW_TEST_COMBO": "ctrl+b"}).config.hotkey.combo == "ctrl+b"


def test_a_warm_load_does_not_import_the_yaml_parser(tmp_path: Path) -> None:
    """The idle host's saving: with the cache warm, loading the config loads no PyYAML."""
    path = _config(tmp_path)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from termwise.agent.base.config import load_config\n"
        f"r = load_config(Path({str(path)!r}))\n"
        "print(r.config.hotkey.combo, 'yaml' in sys.modules)\n"
    )
    env = {**os.environ, "TERMWISE_HOME": str(tmp_path / "home")}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs == [["ctrl+shift+k", "True"], ["ctrl+shift+k", "False"]]
