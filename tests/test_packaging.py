"""The customer's layout is packaged completely and the boundaries between packages hold."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
TOP = ("tray", "overlay", "agent", "memory", "resources")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_folder_is_listed():
    """A folder with an __init__.py missing from `packages` would vanish from the wheel."""
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    found = set()
    for top in TOP:
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT).parts
            found.add("termwise." + ".".join(rel))
    assert found == listed, f"unlisted: {found - listed}, stale: {listed - found}"


def test_package_dirs_map_the_top_level_folders():
    mapping = _pyproject()["tool"]["setuptools"]["package-dir"]
    assert mapping == {f"termwise.{t}": t for t in TOP}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_qt_in_agent_and_memory():
    """agent/ and memory/ run without a display: they must never import Qt."""
    for top in ("agent", "memory"):
        for path in (ROOT / top).rglob("*.py"):
            bad = {
                n
                for n in _imports(path)
                if n.split(".")[0] in ("PySide6", "PyQt5", "PyQt6", "shiboken6")
            }
            assert not bad, f"{path} imports {bad}"


def test_memory_imports_nothing_of_ours_and_no_network():
    for path in (ROOT / "memory").rglob("*.py"):
        for name in _imports(path):
            if name.startswith("termwise."):
                assert name.startswith("termwise.memory"), f"{path} imports {name}"
            assert name.split(".")[0] not in (
                "openai",
                "socket",
                "urllib",
                "http",
                "requests",
                "httpx",
            ), f"{path} imports {name}"


def test_only_one_module_imports_openai():
    users = [
        p
        for top in TOP
        for p in (ROOT / top).rglob("*.py")
        if any(n.split(".")[0] == "openai" for n in _imports(p))
    ]
    assert len(users) <= 1, users


def test_modules_stay_small():
    for top in ("tray", "overlay", "agent", "memory"):
        for path in (ROOT / top).rglob("*.py"):
            lines = path.read_text(encoding="utf-8").count("\n")
            assert lines <= 700, f"{path} has {lines} lines; split it"


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return "termwise." + ".".join(parts)


def _all_modules() -> dict[str, Path]:
    return {_module_name(p): p for top in TOP for p in (ROOT / top).rglob("*.py")}


_MODULES = set(_all_modules())


def _ours(path: Path, *, top_level_only: bool = False) -> set[str]:
    """Our modules that `path` imports (a `from pkg import mod` counts as pkg.mod)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("termwise."))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("termwise."):
                subs = {f"{node.module}.{a.name}" for a in node.names}
                known = subs & _MODULES
                found.update(known)
                if known != subs:  # some names are attributes of the module itself
                    found.add(node.module)
    return found


def test_agent_never_imports_tray_or_overlay():
    """agent/ is used by the CLI without Qt and by every screen: it must not depend on them."""
    for path in (ROOT / "agent").rglob("*.py"):
        bad = {n for n in _ours(path) if n.startswith(("termwise.tray", "termwise.overlay"))}
        assert not bad, f"{path} imports {bad}"


def test_overlay_never_imports_tray():
    """overlay/ is a client of the ports it is given (overlay/ports.py), never of the tray."""
    for path in (ROOT / "overlay").rglob("*.py"):
        bad = {n for n in _ours(path) if n.startswith("termwise.tray")}
        assert not bad, f"{path} imports {bad}"


def test_the_kernel_imports_nothing_of_ours_but_itself():
    """agent/base is what every package may import, so it may import nothing else of ours."""
    for path in (ROOT / "agent" / "base").rglob("*.py"):
        bad = {n for n in _ours(path) if not n.startswith("termwise.agent.base")}
        assert not bad, f"{path} imports {bad}"


def test_no_import_cycle_between_files():
    """Imports that run at import time form no cycle (lazy imports inside functions are allowed)."""
    modules = _MODULES
    graph = {
        name: {m for m in _ours(path, top_level_only=True) if m in modules and m != name}
        for name, path in _all_modules().items()
    }
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


def test_pyside6_stays_below_6_12_where_it_steals_references():
    """PySide6 6.12.0 drops a reference to None/True on each void call or emit under
    Python < 3.12 and a long-running tray died in none_dealloc; the pin must stay until a
    fixed release (test_app's 200-hotkey test shows the symptom if it is loosened)."""
    deps = _pyproject()["project"]["dependencies"]
    old_pythons = [d for d in deps if d.startswith("PySide6") and "python_version < '3.12'" in d]
    assert old_pythons and all("<6.12" in d for d in old_pythons), deps


def test_the_version_constant_matches_the_package():
    """`--version` reads a constant (no metadata scan at start); it must name this release."""
    from termwise.tray import VERSION

    assert _pyproject()["project"]["version"] == VERSION
