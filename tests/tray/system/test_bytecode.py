"""Our modules get bytecode even where Python writes none (PYTHONDONTWRITEBYTECODE=1):
the tray and `serve` compile them once at start, so `termwise check` does not each time."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from termwise.tray.system.bytecode import compile_in_background, source_folders

from tests.tray.serve_support import serve_fixture, wait_until


def test_missing_bytecode_is_written_where_python_writes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "m.py").write_text("X = 1\n")
    (package / "sub" / "n.py").write_text("Y = 2\n")
    assert compile_in_background([package]) is not None
    assert wait_until(lambda: list((package / "sub" / "__pycache__").glob("n.*.pyc")), 120)
    assert wait_until(lambda: list((package / "__pycache__").glob("m.*.pyc")), 120)


def test_a_source_checkout_compiles_its_own_packages() -> None:
    names = {folder.name for folder in source_folders()}
    assert {"tray", "agent", "memory", "overlay"} <= names


def test_the_libraries_every_start_imports_are_compiled_too() -> None:
    """PyYAML and bashlex are imported by every host and `termwise check`: where the
    environment holds them as writable sources, their folders are compiled as well."""
    import bashlex
    import yaml

    folders = set(source_folders())
    for module in (yaml, bashlex):
        folder = Path(module.__file__ or "").parent
        if os.access(folder, os.W_OK):
            assert folder in folders


def test_the_frozen_app_compiles_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert source_folders() == []
    assert compile_in_background() is None


def test_a_missing_interpreter_does_not_stop_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python-here"))
    assert compile_in_background([tmp_path]) is None


def test_serve_puts_back_bytecode_of_a_module_it_never_imports(
    termwise_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's checkout lost a module's bytecode (or never had it); after the host starts,
    it is there again, written by the host's helper despite PYTHONDONTWRITEBYTECODE."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    spec = importlib.util.find_spec("termwise.tray.system.autostart")  # the tray's, not serve's
    assert spec is not None and spec.origin is not None
    cached = Path(importlib.util.cache_from_source(spec.origin))
    cached.unlink(missing_ok=True)
    for server in serve_fixture(termwise_home):
        assert wait_until(cached.exists, 120), server.stderr()


def test_serve_puts_back_bytecode_of_a_library_it_starts_with(
    termwise_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed without `--compile-bytecode`, PyYAML has no bytecode; after the host starts
    it has, so the next host and every `termwise check` start from it."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    spec = importlib.util.find_spec("yaml.composer")
    assert spec is not None and spec.origin is not None
    if not os.access(Path(spec.origin).parent, os.W_OK):
        pytest.skip("PyYAML is installed read-only here")
    cached = Path(importlib.util.cache_from_source(spec.origin))
    cached.unlink(missing_ok=True)
    for server in serve_fixture(termwise_home):
        assert wait_until(cached.exists, 120), server.stderr()
