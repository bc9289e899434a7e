"""Config: created from the commented default, validated with file and line, merged, kept aside."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from termwise.agent.base.config import load_config, parse_config, render_config, write_config
from termwise.agent.base.config_schema import Config, ProviderConfig


def test_first_run_creates_commented_default(tmp_path: Path):
    path = tmp_path / "config.yaml"
    result = load_config(path)
    assert result.created and not result.problems
    text = path.read_text()
    assert "# Global hotkey that shows the overlay." in text
    assert "combo: ctrl+alt+space" in text


def test_shipped_default_matches_schema():
    """resources/config.yaml is the rendered schema; regenerate it when the schema changes."""
    from importlib.resources import files

    shipped = files("termwise.resources").joinpath("config.yaml").read_text(encoding="utf-8")
    assert shipped == render_config(Config())


def test_rendered_config_round_trips(tmp_path: Path):
    cfg = Config()
    cfg.providers.append(ProviderConfig(name="local", base_url="http://127.0.0.1:9/v1"))
    cfg.tasks.deploy.model = "m1"
    cfg.privacy.patterns = ["ACME-[0-9]+"]
    write_config(cfg, tmp_path / "c.yaml")
    again, problems = parse_config((tmp_path / "c.yaml").read_text(), tmp_path / "c.yaml")
    assert problems == []
    assert again == cfg


def test_old_file_gets_new_keys_with_defaults(tmp_path: Path):
    path = tmp_path / "config.yaml"
    path.write_text("hotkey:\n  combo: ctrl+shift+k\n")
    result = load_config(path)
    assert result.problems == []
    assert result.config.hotkey.combo == "ctrl+shift+k"
    assert result.config.tasks.deploy.temperature == 0.2
    assert result.config.session.max_blocks == 200


def test_env_expansion(tmp_path: Path):
    cfg, problems = parse_config(
        "providers:\n  - name: corp\n    base_url: ${CORP_URL}/v1\n",
        tmp_path / "c.yaml",
        env={"CORP_URL": "http://llm.corp"},
    )
    assert problems == []
    assert cfg.providers[0].base_url == "http://llm.corp/v1"


def test_broken_yaml_is_kept_aside_with_line(tmp_path: Path):
    path = tmp_path / "config.yaml"
    original = "hotkey:\n  combo: [unclosed\nui:\n  theme: dark\n"
    path.write_text(original)
    assert load_config(path).kept_aside is None, "a read-only command never moves the file"
    assert path.read_text() == original
    result = load_config(path, repair=True)
    assert result.problems and "config.yaml:" in result.problems[0]
    assert "not valid YAML" in result.problems[0]
    assert result.kept_aside is not None and result.kept_aside.name.startswith("config.yaml.bad-")
    assert result.kept_aside.read_text() == original, "the user's text must not be lost"
    assert result.config == Config()
    assert load_config(path).problems == [], "a fresh default replaces the broken file"


def test_unknown_key_and_wrong_type_name_the_line(tmp_path: Path):
    path = tmp_path / "config.yaml"
    path.write_text("ui:\n  theme: dark\n  colour: red\nsession:\n  max_blocks: lots\n")
    result = load_config(path)
    joined = "\n".join(result.problems)
    assert f"{path}:3: unknown key `ui.colour`" in joined
    assert f"{path}:5: `session.max_blocks` should be int" in joined
    assert result.config.ui.theme == "dark", "valid settings stay in force"
    assert result.config.session.max_blocks == 200
    assert load_config(path, repair=True).kept_aside is None, "a readable file is never moved"


def test_one_unknown_key_keeps_every_provider(tmp_path: Path):
    """One unknown key once moved the whole file aside and silently dropped every provider."""
    path = tmp_path / "config.yaml"
    path.write_text(
        "providers:\n  - name: corp\n    base_url: http://llm.corp/v1\n"
        "tasks:\n  suggest:\n    provider: corp\nfuture_feature: true\n"
    )
    result = load_config(path, repair=True)
    assert [p.name for p in result.config.providers] == ["corp"]
    assert result.config.tasks.suggest.provider == "corp"
    assert any("unknown key `future_feature`" in p for p in result.problems)
    assert result.kept_aside is None and "future_feature" in path.read_text()


def test_a_non_utf8_config_is_reported_and_kept_aside_by_the_host(tmp_path: Path):
    """A non-UTF-8 file once made every command fail until repaired by hand."""
    path = tmp_path / "config.yaml"
    original = b"ui:\n  theme: \xff\xfe dark\n"
    path.write_bytes(original)
    result = load_config(path)
    assert result.config == Config() and "not UTF-8" in result.problems[0]
    assert path.read_bytes() == original
    repaired = load_config(path, repair=True)
    assert repaired.kept_aside is not None and repaired.kept_aside.read_bytes() == original
    if os.name == "posix":
        assert stat.S_IMODE(repaired.kept_aside.stat().st_mode) == 0o600
    assert load_config(path).problems == []


def test_writing_over_an_unreadable_file_keeps_it_aside_first(tmp_path: Path):
    path = tmp_path / "config.yaml"
    path.write_text("ui: [unclosed\n")
    kept = write_config(Config(), path)
    assert kept is not None and kept.read_text() == "ui: [unclosed\n"
    assert load_config(path).problems == []


def test_partial_section_keeps_its_own_defaults(tmp_path: Path):
    """Naming only a provider for `safety` must not reset its temperature to another task's."""
    cfg, problems = parse_config(
        "tasks:\n  safety:\n    provider: local\n  deploy:\n    model: m\n", tmp_path / "c.yaml"
    )
    assert problems == []
    assert cfg.tasks.safety.provider == "local" and cfg.tasks.safety.temperature == 0.0
    assert cfg.tasks.deploy.model == "m" and cfg.tasks.deploy.temperature == 0.2
    assert cfg.tasks.memory.temperature == 0.3
