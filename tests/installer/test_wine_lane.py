"""The Windows lane's own parts (installer/wine), checked on any OS: the Windows requirement
list, the folder split, the summary's verdict, and the one list of Wine limits."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import wine_limits

ROOT = Path(__file__).resolve().parents[2]
WINE = ROOT / "installer" / "wine"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"lane_{name}", WINE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_windows_requirements_follow_the_markers_for_win32(tmp_path: Path) -> None:
    """Pins for Windows stay, POSIX-only ones and lint tools go, extras of a pin are kept."""
    exported = tmp_path / "export.txt"
    exported.write_text(
        "# via uv export\n"
        "pywinpty==3.1.2 ; sys_platform == 'win32'\n"
        "ptyprocess==0.7.0 ; sys_platform != 'win32'\n"
        "python-xlib==0.33 ; sys_platform == 'linux'\n"
        "PySide6-Essentials==6.12.0 ; python_full_version >= '3.12'\n"
        "PySide6-Essentials==6.11.0 ; python_full_version < '3.12'\n"
        "ruff==0.9.0\n"
        "    # via termwise\n"
        "-e .\n"
        "keyring==25.7.0\n",
        encoding="utf-8",
    )
    out = tmp_path / "win.txt"
    assert load("prep").windows_requirements(exported, out) == 3
    assert out.read_text(encoding="utf-8").split() == [
        "pywinpty==3.1.2",
        "PySide6-Essentials==6.12.0",
        "keyring==25.7.0",
    ]


def test_the_suite_is_split_per_folder_and_tray_per_subfolder() -> None:
    """Every test folder runs (tray one subfolder at a time); helpers and benchmarks do not."""
    parts = load("wine_tests").chunks(ROOT)
    assert "tests/agent" in parts and "tests/tray/ipc" in parts and "tests/tray" not in parts
    assert "tests/test_packaging.py" in parts
    assert not any(p.startswith(("tests/support", "tests/bench")) for p in parts)
    every = {f for f in (ROOT / "tests").rglob("test_*.py") if "bench" not in f.parts}
    covered = {f for f in every if any(f.relative_to(ROOT).as_posix().startswith(p) for p in parts)}
    assert covered == every


def test_the_summary_is_red_only_for_real_failures(tmp_path: Path) -> None:
    """Wine limits and skips keep the lane green; a failure or a hang turns it red."""
    lane = load("wine_tests")
    xml = tmp_path / "r.xml"
    xml.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.a" name="ok"/>'
        '<testcase classname="tests.a" name="lim"><skipped message="Wine limit (conpty): x"/></testcase>'
        '<testcase classname="tests.a" name="skip"><skipped message="needs Linux"/></testcase>'
        "</testsuite></testsuites>",
        encoding="utf-8",
    )
    chunk = lane.Chunk("tests/a")
    lane.read_junit(xml, chunk)
    assert (chunk.passed, chunk.wine_limit, chunk.skipped, chunk.failed) == (1, 1, 1, [])
    text, green = lane.summary([chunk])
    assert green and "1 passed, 0 failed, 1 Wine limits, 1 skipped" in text
    chunk.hung.append("tests/a.py::test_stuck")
    text, green = lane.summary([chunk])
    assert not green and "HUNG   tests/a.py::test_stuck" in text


def test_every_wine_limit_is_listed_in_the_readme() -> None:
    """One list: each limit's key and reason appear in the README's Windows section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Wine limits") :]
    for key, reason in wine_limits.LIMITS.items():
        assert f"- `{key}`: {reason}." in section


def test_an_unknown_wine_limit_is_refused() -> None:
    """A marker must name a listed limit, so no reason goes unlisted."""
    with pytest.raises(KeyError, match="unknown Wine limit"):
        wine_limits.wine_limit("flaky")
    assert not wine_limits.UNDER_WINE or sys.platform == "win32"


def test_the_build_key_follows_wheel_contents_not_zip_times(tmp_path: Path) -> None:
    """The lane reuses its frozen build when the wheel's files are the same, whenever built."""
    import zipfile

    def wheel(name: str, stamp: tuple[int, ...], body: bytes) -> Path:
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr(zipfile.ZipInfo("termwise/a.py", stamp), body)  # type: ignore[arg-type]
        return path

    prep = load("prep")
    first = prep.wheel_hash(wheel("1.whl", (2020, 1, 1, 0, 0, 0), b"x = 1\n"))
    assert prep.wheel_hash(wheel("2.whl", (2026, 5, 5, 5, 5, 4), b"x = 1\n")) == first
    assert prep.wheel_hash(wheel("3.whl", (2020, 1, 1, 0, 0, 0), b"x = 2\n")) != first


def test_the_build_key_ignores_the_readme_in_metadata_but_not_the_version(tmp_path: Path) -> None:
    """A README edit (METADATA's long description) reuses the build; a new version does not."""
    import zipfile

    def wheel(name: str, version: str, readme: str) -> Path:
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("termwise/a.py", "x = 1\n")
            meta = f"Metadata-Version: 2.4\nName: termwise\nVersion: {version}\n\n{readme}\n"
            zf.writestr("termwise-0.1.0.dist-info/METADATA", meta)
            zf.writestr("termwise-0.1.0.dist-info/RECORD", f"{readme}\n")
        return path

    prep = load("prep")
    first = prep.wheel_hash(wheel("1.whl", "0.1.0", "# Termwise"))
    assert prep.wheel_hash(wheel("2.whl", "0.1.0", "# Termwise, edited")) == first
    assert prep.wheel_hash(wheel("3.whl", "0.2.0", "# Termwise")) != first
