"""English and Simplified Chinese strings: `tr()` over a YAML catalogue keyed by the English text."""

from __future__ import annotations

import locale
import os
from importlib import resources

import yaml

LANGUAGES = ("en", "zh_CN")

_current = "en"
_catalogues: dict[str, dict[str, str]] = {}


def detect_language(setting: str = "auto", env: dict[str, str] | None = None) -> str:
    """The language to use: the config's choice, else the OS locale (Chinese → zh_CN)."""
    if setting in LANGUAGES:
        return setting
    env = dict(os.environ) if env is None else env
    names = [env.get(k, "") for k in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")]
    names.append(_qt_locale())
    if not any(names):
        try:
            names.append(locale.getlocale()[0] or "")
        except ValueError:
            pass
    for name in names:
        if name:
            return "zh_CN" if name.lower().startswith("zh") else "en"
    return "en"


def _qt_locale() -> str:
    """The OS locale as Qt reports it (Windows and macOS settings, not only env vars)."""
    try:
        from PySide6.QtCore import QLocale
    except ImportError:
        return ""
    return QLocale.system().name()


def _catalogue(language: str) -> dict[str, str]:
    if language == "en":
        return {}
    if language not in _catalogues:
        text = (
            resources.files("termwise.resources")
            .joinpath("i18n")
            .joinpath(f"{language}.yaml")
            .read_text(encoding="utf-8")
        )
        data = yaml.safe_load(text) or {}
        _catalogues[language] = {str(k): str(v) for k, v in data.items()}
    return _catalogues[language]


def set_language(language: str) -> str:
    """Switch the language of every later `tr()` call; returns the language in force."""
    global _current
    _current = language if language in LANGUAGES else "en"
    _catalogue(_current)
    return _current


def current_language() -> str:
    return _current


def tr(text: str, /, **fields: object) -> str:
    """Translate `text` (English is the key) and fill in `{name}` fields."""
    translated = _catalogue(_current).get(text, text)
    return translated.format(**fields) if fields else translated
