"""The Chinese catalogue covers every string the windows and the tray pass to tr()."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
import yaml
from termwise.overlay.i18n import detect_language, set_language, tr

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "resources" / "i18n" / "zh_CN.yaml"
# tr("…") / _tr("…"), the literal possibly on the next line.
CALL = re.compile(r'\b_?tr\(\s*"((?:[^"\\]|\\.)*)"', re.S)


def _literals() -> set[str]:
    found: set[str] = set()
    for folder in ("overlay", "tray"):
        for path in (ROOT / folder).rglob("*.py"):
            found.update(CALL.findall(path.read_text(encoding="utf-8")))
    return found


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_tr_string_has_a_chinese_entry_with_the_same_fields() -> None:
    """No English string is left untranslated in Chinese, and {fields} survive translation."""
    catalogue = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))
    literals = _literals()
    assert len(literals) > 50  # the scan really finds the windows' strings
    missing = sorted(t for t in literals if t not in catalogue)
    assert not missing, f"add to zh_CN.yaml: {missing}"
    broken = [k for k, v in catalogue.items() if _fields(k) != _fields(v)]
    assert not broken, f"placeholders differ: {broken}"


def test_tr_translates_and_fills_fields() -> None:
    """tr() gives Chinese after set_language("zh_CN"), English again after "en"."""
    set_language("zh_CN")
    assert tr("Copied: {command}", command="ls") == "已复制：ls"
    set_language("en")
    assert tr("Copied: {command}", command="ls") == "Copied: ls"
    assert tr("a string nobody translated") == "a string nobody translated"


@pytest.mark.parametrize(
    ("setting", "env", "expected"),
    [
        ("zh_CN", {"LANG": "en_US.UTF-8"}, "zh_CN"),
        ("en", {"LANG": "zh_CN.UTF-8"}, "en"),
        ("auto", {"LANG": "zh_CN.UTF-8"}, "zh_CN"),
        ("auto", {"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ("auto", {"LANG": "de_DE.UTF-8"}, "en"),
    ],
)
def test_language_follows_the_config_then_the_locale(
    setting: str, env: dict[str, str], expected: str
) -> None:
    """An explicit ui.language wins; "auto" reads the OS locale."""
    assert detect_language(setting, env) == expected
