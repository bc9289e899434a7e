"""The Windows installer, built from a stand-in payload and run silently under Wine.

One Wine prefix walks through what a user does (install, re-install with other
choices, uninstall, install elsewhere, uninstall with purge); a snapshot of the files
and registry after each step is what the tests check. Nothing here trusts an exit code.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.installer.wine import WinePrefix, require_tool

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "installer" / "build.py"
RUN = r"Software\Microsoft\Windows\CurrentVersion\Run"
UNINSTALL = r"Software\Microsoft\Windows\CurrentVersion\Uninstall\Termwise"
ORIGINAL_PATH = r"C:\tools;%USERPROFILE%\bin"
LONG_PATH = ";".join(rf"C:\Program Files\Tool number {i:03d}\bin" for i in range(40))
OTHER_DIR_NAME = "Términal-工具"  # no space: wine would quote /D=, which NSIS rejects
FOREIGN_DIR_NAME = "other-tools"  # another program called TermwiseTray.exe lives here

pytestmark = [
    pytest.mark.slow,
    # Wine is the Linux way to run it; the Windows CI job installs the real build natively.
    pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="runs the installer under Wine"
    ),
]


def path_spelled_otherwise(folder: str, step: str) -> str:
    """The user PATH with the install folder upper-cased, or ending in a backslash."""
    spelled = folder.upper() if step == "path_other_case" else folder + "\\"
    return f"{ORIGINAL_PATH};{spelled}"


def project_version() -> str:
    """pyproject's version, read the way build.py reads it."""
    spec = importlib.util.spec_from_file_location("termwise_installer_build", BUILD)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.project_version())


@dataclass
class Snapshot:
    """What the user's profile looked like after one step."""

    files: set[str]  # paths under the Wine user folder, "/"-separated
    registry: dict[str, dict[str, str]]
    fragment: str | None
    tray_closed: bool = False  # a running stand-in tray had ended by then
    foreign_tray_kept: bool = False  # a same-named program of another folder still ran

    def value(self, key: str, name: str) -> str | None:
        return self.registry.get(key.lower(), {}).get(name.lower())

    def has(self, rel: str) -> bool:
        return rel in self.files

    def path_entries(self) -> list[str]:
        return (self.value("Environment", "Path") or "").split(";")


FRAGMENT = "AppData/Local/Microsoft/Windows Terminal/Fragments/Termwise/termwise.json"
INSTALL_DIR = "AppData/Local/Programs/Termwise"
SHORTCUT = "AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Termwise.lnk"
USER_DATA = "AppData/Local/termwise/memory/profile.md"


def snapshot(prefix: WinePrefix) -> Snapshot:
    user = prefix.user_dir
    files = {p.relative_to(user).as_posix() for p in user.rglob("*") if p.is_file()}
    fragment_path = user / FRAGMENT
    fragment = fragment_path.read_bytes().decode("utf-8") if fragment_path.exists() else None
    return Snapshot(files, prefix.registry(), fragment)


# A real 64-bit Windows program standing in for the tray: it just waits, like a tray
# sitting in the notification area, so re-installing has to close it.
SLEEPER_NSI = """\
Unicode true
Target amd64-unicode
SilentInstall silent
RequestExecutionLevel user
OutFile "TermwiseTray.exe"
Section
  Sleep 120000
SectionEnd
"""


@pytest.fixture(scope="module")
def setup_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installer built by installer/build.py around stand-in executables."""
    require_tool("makensis")
    payload = tmp_path_factory.mktemp("payload")
    (payload / "termwise.exe").write_bytes(b"stand-in console app")
    (payload / "sleeper.nsi").write_text(SLEEPER_NSI)
    subprocess.run(["makensis", "-V1", "sleeper.nsi"], cwd=payload, check=True, timeout=60)
    (payload / "sleeper.nsi").unlink()
    res = payload / "_internal" / "termwise" / "resources"
    res.mkdir(parents=True)
    (res / "config.yaml").write_text("# stand-in\n")
    out = tmp_path_factory.mktemp("out")
    done = subprocess.run(
        [sys.executable, str(BUILD), "--payload", str(payload), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    setup = out / f"Termwise-Setup-{project_version()}.exe"
    assert setup.is_file(), done.stdout + done.stderr
    return setup


def wait_exit(process: subprocess.Popen[bytes], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    return process.poll() is not None


@pytest.fixture(scope="module")
def journey(setup_exe: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Snapshot]:
    """Install, re-install, uninstall, install elsewhere, purge; a snapshot after each."""
    require_tool("wine")
    require_tool("wineserver")
    prefix = WinePrefix(tmp_path_factory.mktemp("wine"))
    try:
        prefix.run("wineboot", "--init")
        env_key = r"HKCU\Environment"
        prefix.run(
            "reg", "add", env_key, "/v", "Path", "/t", "REG_EXPAND_SZ", "/d", ORIGINAL_PATH, "/f"
        )
        data = prefix.user_dir / USER_DATA
        data.parent.mkdir(parents=True)
        data.write_text("# Profile\nprefers: ripgrep\n", encoding="utf-8")
        steps: dict[str, Snapshot] = {"before": snapshot(prefix)}

        prefix.run(str(setup_exe), "/S")
        steps["installed"] = snapshot(prefix)

        stale = prefix.user_dir / INSTALL_DIR / "_internal" / "old-version.dll"
        stale.write_bytes(b"left by an older version")
        tray = rf"C:\users\{prefix.user_name}\AppData\Local\Programs\Termwise\TermwiseTray.exe"
        # Another install's tray (same program name, another folder) must survive.
        foreign_dir = prefix.root / "drive_c" / FOREIGN_DIR_NAME
        foreign_dir.mkdir()
        shutil.copy(prefix.user_dir / INSTALL_DIR / "TermwiseTray.exe", foreign_dir)
        running = prefix.start(tray)
        foreign = prefix.start(rf"C:\{FOREIGN_DIR_NAME}\TermwiseTray.exe")
        try:
            assert prefix.wait_for_process(r"Termwise\TermwiseTray.exe", running, timeout=30)
            assert prefix.wait_for_process(
                rf"{FOREIGN_DIR_NAME}\TermwiseTray.exe", foreign, timeout=30
            )
            prefix.run(str(setup_exe), "/S", "/AUTOSTART=1", "/TERMINAL=0", wait_all=False)
            tray_closed = wait_exit(running, timeout=10)
            foreign_kept = foreign.poll() is None
        finally:
            for process in (running, foreign):
                if process.poll() is None:
                    process.kill()
            # Only this throwaway prefix's processes: the sleepers would hold `wait` 2 min.
            prefix.run("taskkill", "/F", "/IM", "TermwiseTray.exe", wait_all=False)
        prefix.wait()
        steps["reinstalled"] = snapshot(prefix)
        steps["reinstalled"].tray_closed = tray_closed
        steps["reinstalled"].foreign_tray_kept = foreign_kept

        prefix.run(str(setup_exe), "/S")
        steps["upgraded"] = snapshot(prefix)

        uninstaller = rf"C:\users\{prefix.user_name}\AppData\Local\Programs\Termwise\uninstall.exe"
        prefix.run(uninstaller, "/S")
        steps["uninstalled"] = snapshot(prefix)

        other = rf"C:\users\{prefix.user_name}\AppData\Local\Programs\{OTHER_DIR_NAME}"
        prefix.run(str(setup_exe), "/S", "/PATH=0", f"/D={other}")
        steps["elsewhere"] = snapshot(prefix)

        prefix.run(other + r"\uninstall.exe", "/S", "/PURGE=1")
        steps["purged"] = snapshot(prefix)

        # NSIS reads at most 1023 characters of a value: a longer PATH must not be
        # written back cut.
        prefix.run(
            "reg", "add", env_key, "/v", "Path", "/t", "REG_EXPAND_SZ", "/d", LONG_PATH, "/f"
        )
        prefix.run(str(setup_exe), "/S")
        steps["long_path"] = snapshot(prefix)

        # The folder already on PATH in other letter case, or with a final backslash.
        folder = steps["installed"].value(UNINSTALL, "InstallLocation") or ""
        for step in ("path_other_case", "path_backslash"):
            prefix.run(
                "reg", "add", env_key, "/v", "Path", "/t", "REG_EXPAND_SZ", "/d",
                path_spelled_otherwise(folder, step), "/f",
            )  # fmt: skip
            prefix.run(str(setup_exe), "/S")
            steps[step] = snapshot(prefix)
        return steps
    finally:
        prefix.kill()


def test_default_install_puts_both_executables_and_a_start_menu_shortcut(journey):
    """A silent install lands in %LOCALAPPDATA%\\Programs\\Termwise with a Start menu entry."""
    s = journey["installed"]
    for name in ("termwise.exe", "TermwiseTray.exe", "uninstall.exe"):
        assert s.has(f"{INSTALL_DIR}/{name}"), sorted(s.files)
    assert s.has(f"{INSTALL_DIR}/_internal/termwise/resources/config.yaml")
    assert s.has(SHORTCUT)
    assert not journey["before"].has(SHORTCUT)


def test_install_appends_the_folder_to_the_user_path_keeping_other_entries(journey):
    """termwise becomes callable from any terminal and the user's own PATH entries survive."""
    before = journey["before"].path_entries()
    after = journey["installed"].path_entries()
    folder = journey["installed"].value(UNINSTALL, "InstallLocation")
    assert folder and folder.lower().endswith(r"\appdata\local\programs\termwise")
    assert after == [*before, folder]


def test_windows_terminal_fragment_has_both_profiles(journey):
    """Windows Terminal gets valid JSON with PowerShell and cmd profiles running `termwise shell`."""
    fragment = journey["installed"].fragment
    assert fragment is not None
    profiles = {p["name"]: p["commandline"] for p in json.loads(fragment)["profiles"]}
    exe = journey["installed"].value(UNINSTALL, "InstallLocation") + r"\termwise.exe"
    assert profiles == {
        "Termwise PowerShell": f'"{exe}" shell --shell powershell',
        "Termwise Command Prompt": f'"{exe}" shell --shell cmd',
    }


def test_start_at_login_only_when_chosen(journey):
    """The Run value appears only with /AUTOSTART=1 and points at the tray executable."""
    assert journey["installed"].value(RUN, "Termwise") is None
    run = journey["reinstalled"].value(RUN, "Termwise")
    assert run is not None and run.lower().endswith(r'\programs\termwise\termwisetray.exe"')


def test_reinstall_closes_a_running_tray(journey):
    """Upgrading while the tray runs closes it first, so its files can be replaced."""
    s = journey["reinstalled"]
    assert s.tray_closed
    assert s.has(f"{INSTALL_DIR}/TermwiseTray.exe")


def test_reinstall_leaves_a_same_named_program_of_another_folder_running(journey):
    """Only the TermwiseTray.exe of this install folder is closed, not one elsewhere."""
    assert journey["reinstalled"].tray_closed
    assert journey["reinstalled"].foreign_tray_kept


def test_upgrade_without_options_keeps_the_previous_choices(journey):
    """A plain `/S` upgrade keeps start-at-login on and the profiles off, as last chosen."""
    before, after = journey["reinstalled"], journey["upgraded"]
    assert after.value(RUN, "Termwise") == before.value(RUN, "Termwise") is not None
    assert after.fragment is None
    assert after.path_entries() == before.path_entries()


def test_upgrade_clears_libraries_of_the_old_version(journey):
    """Files an older version left in _internal do not survive an upgrade."""
    s = journey["reinstalled"]
    assert not s.has(f"{INSTALL_DIR}/_internal/old-version.dll")
    assert s.has(f"{INSTALL_DIR}/_internal/termwise/resources/config.yaml")


def test_reinstall_drops_deselected_parts_and_does_not_duplicate_path(journey):
    """Re-installing with /TERMINAL=0 removes the profiles; PATH still holds the folder once."""
    s = journey["reinstalled"]
    assert s.fragment is None
    assert s.path_entries() == journey["installed"].path_entries()


def test_uninstall_is_registered_with_the_project_version(journey):
    """Apps & features lists Termwise with pyproject's version and a quiet uninstall command."""
    s = journey["installed"]
    assert s.value(UNINSTALL, "DisplayName") == "Termwise"
    assert s.value(UNINSTALL, "DisplayVersion") == project_version()
    quiet = s.value(UNINSTALL, "QuietUninstallString") or ""
    assert quiet.endswith(r'\uninstall.exe" /S')


def test_uninstall_removes_everything_but_keeps_user_data(journey):
    """After uninstalling, files, shortcut, autostart, profiles, PATH entry and key are gone."""
    s = journey["uninstalled"]
    leftovers = {f for f in s.files if "programs/termwise" in f.lower()}
    assert not leftovers
    assert not s.has(SHORTCUT)
    assert s.fragment is None
    assert s.value(RUN, "Termwise") is None
    assert s.value(UNINSTALL, "DisplayName") is None
    assert s.path_entries() == journey["before"].path_entries()
    assert s.has(USER_DATA), "user data must survive a plain uninstall"


def test_install_elsewhere_writes_a_utf8_fragment_and_respects_path_choice(journey):
    """A non-ASCII install folder appears intact in the UTF-8 fragment; /PATH=0 leaves PATH alone."""
    s = journey["elsewhere"]
    assert s.has(f"AppData/Local/Programs/{OTHER_DIR_NAME}/termwise.exe")
    assert s.fragment is not None
    commands = [p["commandline"] for p in json.loads(s.fragment)["profiles"]]
    assert all(f"\\Programs\\{OTHER_DIR_NAME}\\termwise.exe" in c for c in commands), commands
    assert s.path_entries() == journey["before"].path_entries()


def test_purge_uninstall_also_deletes_user_data(journey):
    """uninstall.exe /PURGE=1 removes the settings and memory folder too."""
    s = journey["purged"]
    assert not any(f.lower().startswith("appdata/local/termwise/") for f in s.files)
    assert not any(OTHER_DIR_NAME.lower() in f.lower() for f in s.files)
    assert journey["elsewhere"].has(USER_DATA)


def test_a_path_too_long_to_edit_safely_is_left_intact(journey):
    """A user PATH longer than NSIS can hold is not cut short; the install still completes."""
    s = journey["long_path"]
    assert len(LONG_PATH) > 1100
    assert s.value("Environment", "Path") == LONG_PATH
    assert s.has(f"{INSTALL_DIR}/termwise.exe")


@pytest.mark.parametrize("step", ["path_other_case", "path_backslash"])
def test_the_folder_on_path_spelled_otherwise_is_not_added_again(journey, step):
    """C:\\USERS\\…\\TERMWISE or …\\Termwise\\ on PATH already is our folder (Windows
    paths ignore case), so PATH is left as it was."""
    folder = journey["installed"].value(UNINSTALL, "InstallLocation") or ""
    assert journey[step].value("Environment", "Path") == path_spelled_otherwise(folder, step)
