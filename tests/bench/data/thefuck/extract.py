"""Rebuild cases.jsonl from thefuck's own rule tests (a pytest plugin; see README.md here).

Run inside an unpacked thefuck source tree, with its test requirements installed:

    PYTHONPATH=/path/to/this/folder python -m pytest tests/rules -p extract -q \
        -o extract_out=/path/to/cases.jsonl

Each rule module's `get_new_command` is wrapped before the tests are collected. A test that
passes asserted that the wrapped call returned the expected command(s), so every call made by a
passing test is one case: (script, output, the expected commands). A case is kept only when the
test needs no mocked environment (no mocker, monkeypatch, temporary files, shell switch or
changed settings); the others are written to excluded.jsonl with the fixtures that made them so.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from pathlib import Path
from typing import Any

import pytest

# Fixtures every thefuck test gets (autouse hygiene) or that only change cosmetics.
_BENIGN = {"settings", "no_cache", "os_environ", "functional", "request", "no_memoize", "no_colors"}
# Fixtures that stand for a mocked machine: executables, files, history, shell, settings.
_ENV = {"mocker", "monkeypatch", "tmpdir", "tmp_path", "set_shell", "capsys", "fs"}

_calls: list[tuple[str, str, str, Any]] = []
_kept: list[dict[str, Any]] = []
_excluded: list[dict[str, Any]] = []


def pytest_addoption(parser: Any) -> None:
    parser.addini("extract_out", "where cases.jsonl goes")
    parser.addini("extract_label", "which thefuck release the tests came from")


def _wrap(rule_name: str, func: Any) -> Any:
    def wrapper(command: Any, *args: Any, **kwargs: Any) -> Any:
        result = func(command, *args, **kwargs)
        _calls.append((rule_name, command.script, command.output or "", result))
        return result

    return wrapper


def pytest_configure(config: Any) -> None:
    import thefuck.rules

    for info in pkgutil.iter_modules(thefuck.rules.__path__):
        module = importlib.import_module(f"thefuck.rules.{info.name}")
        if hasattr(module, "get_new_command"):
            module.get_new_command = _wrap(info.name, module.get_new_command)  # type: ignore[attr-defined]


def _environment(item: Any) -> list[str]:
    """The fixtures (direct or through data fixtures) that mock the machine or settings."""
    params = set(getattr(getattr(item, "callspec", None), "params", {}))
    defs = item._fixtureinfo.name2fixturedefs
    found: set[str] = set()
    explicit = set(item._fixtureinfo.argnames)
    if "settings" in explicit:
        found.add("settings")
    try:
        body = inspect.getsource(item.function)
    except (OSError, TypeError):
        body = ""
    if "patch(" in body or "patch.object(" in body:
        found.add("patch")  # a mock applied inside the test body

    def visit(name: str, top: bool) -> None:
        if name in params or (name in _BENIGN and not (name == "settings" and not top)):
            return
        if name == "settings":
            found.add("settings")
            return
        if name in _ENV:
            found.add(name)
            return
        fixture = defs.get(name)
        if not fixture:
            return
        fdef = fixture[-1]
        if fdef.baseid == "" or "conftest" in str(getattr(fdef.func, "__module__", "")):
            found.add(name)  # a shared helper fixture from a conftest: treat as environment
            return
        if getattr(fdef, "autouse", False) and name not in explicit:
            found.add(name)
        for sub in fdef.argnames:
            visit(sub, False)

    for name in item._fixtureinfo.initialnames:
        visit(name, True)
    return sorted(found)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    _calls.clear()
    outcome = yield
    if outcome.excinfo is not None or not _calls:
        return
    env = _environment(item)
    test_file = Path(str(item.fspath)).name
    for rule, script, output, result in _calls:
        expected = [result] if isinstance(result, str) else list(result)
        row = {
            "rule": rule,
            "script": script,
            "output": output,
            "expected": [str(e) for e in expected],
            "test": f"{test_file}::{item.name}",
            "release": item.config.getini("extract_label") or "",
        }
        if env:
            _excluded.append({**row, "needs": env})
        else:
            _kept.append(row)


def pytest_unconfigure(config: Any) -> None:
    out = Path(config.getini("extract_out") or "cases.jsonl")
    seen: set[str] = set()
    with out.open("w", encoding="utf-8") as fh:
        for row in _kept:
            key = json.dumps([row["script"], row["output"], row["expected"]])
            if key not in seen:
                seen.add(key)
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    with out.with_name("excluded.jsonl").open("w", encoding="utf-8") as fh:
        for row in _excluded:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
