"""installer/build.py: one command, one version source, clear errors when a tool is missing."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.installer.wine import require_tool

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "installer" / "build.py"


def load_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("termwise_installer_build", BUILD)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_build(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BUILD), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.fixture
def payload(tmp_path: Path) -> Path:
    folder = tmp_path / "payload"
    folder.mkdir()
    (folder / "termwise.exe").write_bytes(b"cli")
    (folder / "TermwiseTray.exe").write_bytes(b"tray")
    return folder


def test_version_comes_from_pyproject_and_matches_the_installed_package():
    """The installer's version is pyproject's, the same one `termwise --version` prints."""
    from importlib import metadata

    assert load_build().project_version() == metadata.version("termwise")
    done = subprocess.run(
        [sys.executable, "-m", "termwise.tray.commands.cli", "--version"],
        capture_output=True,
        text=True,
    )
    assert done.stdout.strip() == f"termwise {metadata.version('termwise')}"


def test_version_quad_for_file_properties():
    """Windows file properties need four numbers whatever the version looks like."""
    quad = load_build().version_quad
    assert quad("0.1.0") == "0.1.0.0"
    assert quad("1.2.3rc4") == "1.2.3.4"
    assert quad("2.0+local.7") == "2.0.0.0"


def test_missing_makensis_is_a_clear_error(payload: Path, tmp_path: Path):
    """Without NSIS the build stops at once and says how to install it."""
    build = load_build()
    if sys.platform == "win32" and any(
        Path(d, "makensis.exe").is_file() for d in build.NSIS_WINDOWS_DIRS
    ):
        pytest.skip("NSIS is installed in its standard folder here")
    if build.under_wine():
        pytest.skip("under Wine the host's makensis is found through drive Z:")
    env = dict(os.environ, PATH=str(tmp_path))
    done = run_build("--payload", str(payload), "--out", str(tmp_path / "out"), env=env)
    assert done.returncode == 1
    assert "makensis (NSIS) not found" in done.stderr
    assert "choco install nsis" in done.stderr
    assert not (tmp_path / "out").exists()


def test_incomplete_payload_names_the_missing_executable(payload: Path, tmp_path: Path):
    """A payload without the tray executable is refused with its name."""
    require_tool("makensis")
    (payload / "TermwiseTray.exe").unlink()
    done = run_build("--payload", str(payload), "--out", str(tmp_path / "out"))
    assert done.returncode == 1
    assert "lacks TermwiseTray.exe" in done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="freezing is possible on Windows")
def test_freezing_off_windows_says_to_pass_a_payload(tmp_path: Path):
    """PyInstaller builds for its own OS, so elsewhere the script asks for --payload."""
    require_tool("makensis")
    done = run_build("--out", str(tmp_path / "out"))
    assert done.returncode == 1
    assert "freezing needs Windows" in done.stderr and "--payload" in done.stderr


def test_payload_lists_let_the_uninstaller_remove_exactly_what_was_installed(
    payload: Path, tmp_path: Path
):
    """Every payload file is installed and deleted by name; folders are removed deepest first."""
    deep = payload / "_internal" / "PySide6" / "plugins"
    deep.mkdir(parents=True)
    (deep / "qoffscreen.dll").write_bytes(b"x")
    (payload / "_internal" / "price$list.txt").write_bytes(b"x")
    nsh = tmp_path / "payload.nsh"
    assert load_build().write_payload_nsh(payload, nsh) == 4
    text = nsh.read_text(encoding="utf-8-sig")
    assert text.count("\n  File ") == 4
    assert 'Delete "$INSTDIR\\_internal\\PySide6\\plugins\\qoffscreen.dll"' in text
    assert 'Delete "$INSTDIR\\_internal\\price$$list.txt"' in text  # `$` escaped at run time
    rmdirs = [line.strip() for line in text.splitlines() if line.strip().startswith("RMDir")]
    assert rmdirs == [
        'RMDir "$INSTDIR\\_internal\\PySide6\\plugins"',
        'RMDir "$INSTDIR\\_internal\\PySide6"',
        'RMDir "$INSTDIR\\_internal"',
    ]


def test_spec_script_and_build_agree_on_the_executables():
    """The frozen names in the spec are the ones the NSIS script installs and build.py checks."""
    import ast

    build = load_build()
    spec = (ROOT / "installer" / "termwise.spec").read_text(encoding="utf-8")
    ast.parse(spec)  # a spec is Python run by PyInstaller
    nsi = (ROOT / "installer" / "termwise.nsi").read_text(encoding="utf-8")
    cli, tray = build.CLI_EXE.removesuffix(".exe"), build.TRAY_EXE.removesuffix(".exe")
    assert f'name="{cli}", console=True' in spec
    assert f'name="{tray}", console=False' in spec
    assert f'name="{build.FROZEN_NAME}"' in spec
    assert f'!define CLI_EXE "{build.CLI_EXE}"' in nsi
    assert f'!define TRAY_EXE "{build.TRAY_EXE}"' in nsi
    assert cli.lower() != tray.lower(), "Windows file names ignore case"


def test_editable_check_tells_the_checkout_from_its_own_venv(tmp_path: Path):
    """The source folder is editable; a non-editable install in the checkout's .venv is not."""
    build = load_build()
    root = tmp_path / "checkout"
    site = root / ".venv" / "Lib" / "site-packages" / "termwise" / "tray"
    site.mkdir(parents=True)
    (root / "tray").mkdir()
    (site / "__init__.py").write_text("")
    (root / "tray" / "__init__.py").write_text("")
    assert not build.is_editable_install(site / "__init__.py", root)
    assert build.is_editable_install(root / "tray" / "__init__.py", root)


def _pe_machine(exe: Path) -> int:
    data = exe.read_bytes()
    offset = int.from_bytes(data[0x3C:0x40], "little")
    assert data[offset : offset + 4] == b"PE\0\0"
    return int.from_bytes(data[offset + 4 : offset + 6], "little")


def test_installer_is_64_bit_where_makensis_can_and_32_bit_with_official_nsis(
    payload: Path, tmp_path: Path
):
    """Debian's makensis has amd64 stubs; the official Windows NSIS has only x86 ones and
    must still build (a 32-bit installer) instead of failing on `Target amd64-unicode`."""
    makensis = require_tool("makensis")
    real = Path("/usr/share/nsis")
    if not (real / "Stubs").is_dir():
        pytest.skip("needs makensis's data folder at /usr/share/nsis (Debian's nsis)")
    done = run_build("--payload", str(payload), "--out", str(tmp_path / "a64"))
    assert done.returncode == 0, done.stdout + done.stderr
    (setup,) = (tmp_path / "a64").glob("Termwise-Setup-*.exe")
    assert _pe_machine(setup) == 0x8664  # AMD64
    # An NSIS folder like the official Windows build's: the same, minus amd64 stubs.
    official = tmp_path / "nsis"
    (official / "Stubs").mkdir(parents=True)
    for item in real.iterdir():
        if item.name != "Stubs":
            (official / item.name).symlink_to(item)
    for stub in (real / "Stubs").iterdir():
        if "amd64" not in stub.name:
            (official / "Stubs" / stub.name).symlink_to(stub)
    env = dict(os.environ, NSISDIR=str(official))
    done = run_build(
        "--payload", str(payload), "--out", str(tmp_path / "x86"), "--makensis", makensis, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (setup,) = (tmp_path / "x86").glob("Termwise-Setup-*.exe")
    assert _pe_machine(setup) == 0x14C  # i386
