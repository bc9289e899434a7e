"""Build the Windows installer in one command: freeze, smoke-test, package.

    python installer/build.py                 # on Windows: PyInstaller, smoke test, makensis
    python installer/build.py --payload DIR   # package an already frozen (or stand-in) folder

Under Wine (installer/wine/lane.sh) the same command works: Windows Python freezes, and
the Linux makensis (/usr/bin/makensis, seen as drive Z:) packages, given Linux paths.

The version comes from pyproject.toml only; the installer is written to
installer/dist/Termwise-Setup-<version>.exe (or --out).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPEC = HERE / "termwise.spec"
NSI = HERE / "termwise.nsi"
WORK = HERE / "build"
DIST = HERE / "dist"
CLI_EXE = "termwise.exe"
TRAY_EXE = "TermwiseTray.exe"
FROZEN_NAME = "Termwise"  # the one-folder name in the spec's COLLECT
SMOKE_TIMEOUT = 180.0
NSIS_WINDOWS_DIRS = (r"C:\Program Files (x86)\NSIS", r"C:\Program Files\NSIS")
# Under Wine: the host's Linux makensis, seen through drive Z: (the host's root).
NSIS_HOST_PATHS = (r"Z:\usr\bin\makensis", r"Z:\usr\local\bin\makensis")
HOST_SHELL = r"Z:\bin\sh"
MAKENSIS_TIMEOUT = 900.0


class BuildError(Exception):
    """A step failed; the message says which and what to do about it."""


def project_version(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The `[project] version` of pyproject.toml, the one source of the version."""
    text = pyproject.read_text(encoding="utf-8")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: a plain scan of the [project] table
        section = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
        found = section and re.search(r'^version\s*=\s*"([^"]+)"', section.group(1), re.M)
        if not found:
            raise BuildError(f"{pyproject}: no version in [project]") from None
        return found.group(1)
    version = tomllib.loads(text).get("project", {}).get("version")
    if not isinstance(version, str) or not version:
        raise BuildError(f"{pyproject}: no version in [project]")
    return version


def version_quad(version: str) -> str:
    """Four dotted numbers for the Windows file properties (0.1.0rc1 -> 0.1.0.0)."""
    numbers = [int(n) for n in re.findall(r"\d+", version.split("+")[0])[:4]]
    numbers += [0] * (4 - len(numbers))
    return ".".join(str(n) for n in numbers)


def _nsis_quote(path: str) -> str:
    # Windows paths never hold `"`; a build-time source path is taken literally.
    return '"' + path + '"'


def _nsis_escape(name: str) -> str:
    # `$` starts a variable in run-time NSIS strings.
    return name.replace("$", "$$")


def under_wine() -> bool:
    """Whether this Windows Python runs under Wine (ntdll exports wine_get_version)."""
    if sys.platform != "win32":
        return False
    import ctypes

    try:
        return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")
    except OSError:
        return False


def host_path(path: Path | str) -> str:
    """The Linux path of a Windows path under Wine (kernel32!wine_get_unix_file_name)."""
    if sys.platform != "win32":
        return str(path)
    import ctypes

    k32 = ctypes.WinDLL("kernel32")
    convert = k32.wine_get_unix_file_name
    convert.restype = ctypes.c_void_p
    convert.argtypes = [ctypes.c_wchar_p]
    raw = convert(str(Path(path).resolve()))
    if not raw:
        raise BuildError(f"no Linux path for {path} (is this Wine?)")
    try:
        return os.fsdecode(ctypes.string_at(raw))
    finally:
        k32.HeapFree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p]
        k32.GetProcessHeap.restype = ctypes.c_void_p
        k32.HeapFree(k32.GetProcessHeap(), 0, raw)


def is_host_makensis(makensis: str) -> bool:
    """A Linux makensis called from Windows Python under Wine (it needs Linux paths)."""
    return under_wine() and not makensis.lower().endswith(".exe")


def write_payload_nsh(payload: Path, target: Path, source_path: Callable[[Path], str] = str) -> int:
    """Write the install and uninstall file lists of `payload`; returns the file count.

    Listing every file lets the uninstaller delete exactly what was installed, so an
    install folder the user shares with other things never loses them.
    """
    install = ["!macro TERMWISE_INSTALL_FILES"]
    remove: list[str] = []
    dirs: list[str] = []
    count = 0
    for folder, subdirs, files in os.walk(payload):
        subdirs.sort()
        rel = Path(folder).relative_to(payload)
        win_rel = "" if rel == Path(".") else "\\" + "\\".join(map(_nsis_escape, rel.parts))
        if files:
            install.append(f"  SetOutPath {_nsis_quote('$INSTDIR' + win_rel)}")
        for name in sorted(files):
            source = (Path(folder) / name).resolve()
            install.append(f"  File {_nsis_quote(source_path(source))}")
            remove.append(
                f"  Delete {_nsis_quote('$INSTDIR' + win_rel + chr(92) + _nsis_escape(name))}"
            )
            count += 1
        if win_rel:
            dirs.append(f"  RMDir {_nsis_quote('$INSTDIR' + win_rel)}")
    install.append("!macroend")
    # Deepest folders first, so each RMDir finds its folder empty.
    dirs.sort(key=lambda line: line.count("\\"), reverse=True)
    uninstall = ["!macro TERMWISE_UNINSTALL_FILES", *remove, *dirs, "!macroend"]
    target.parent.mkdir(parents=True, exist_ok=True)
    text = "; Generated by installer/build.py from the payload folder.\n"
    text += "\n".join(install + uninstall) + "\n"
    # NSIS reads a BOM-marked include as UTF-8, whatever the build machine's code page.
    target.write_text(text, encoding="utf-8-sig")
    return count


def check_payload(payload: Path) -> None:
    if not payload.is_dir():
        raise BuildError(f"payload folder {payload} does not exist")
    missing = [n for n in (CLI_EXE, TRAY_EXE) if not (payload / n).is_file()]
    if missing:
        raise BuildError(f"payload {payload} lacks {', '.join(missing)} (a frozen one-folder app)")


def find_makensis(explicit: str | None = None) -> str:
    if explicit:
        if not Path(explicit).is_file() and not shutil.which(explicit):
            raise BuildError(f"makensis not found at {explicit}")
        return explicit
    found = shutil.which("makensis")
    if found:
        return found
    if sys.platform == "win32":
        for folder in NSIS_WINDOWS_DIRS:
            candidate = Path(folder) / "makensis.exe"
            if candidate.is_file():
                return str(candidate)
        if under_wine():
            for host in NSIS_HOST_PATHS:
                if Path(host).is_file():
                    return host
    raise BuildError(
        "makensis (NSIS) not found: install it (Windows: `choco install nsis`; "
        "Debian/Ubuntu: `apt-get install nsis`; macOS: `brew install makensis`) "
        "or pass --makensis PATH"
    )


def is_editable_install(tray_init: Path, root: Path = ROOT) -> bool:
    """Whether `termwise.tray` is imported from the source folder (an editable install).

    A non-editable install lives in site-packages, which for `uv sync` is the `.venv`
    inside this very checkout, so "somewhere under the checkout" is not the test.
    """
    return tray_init.resolve().parent == (root / "tray").resolve()


def freeze(python: str = sys.executable) -> Path:
    """Run PyInstaller on the spec (Windows only) and return the one-folder app."""
    if sys.platform != "win32":
        raise BuildError(
            "freezing needs Windows (PyInstaller builds for the OS it runs on); "
            "on other systems pass --payload DIR with a frozen folder"
        )
    probe = subprocess.run([python, "-m", "PyInstaller", "--version"], capture_output=True)
    if probe.returncode != 0:
        raise BuildError(
            "PyInstaller is not installed: run `uv run --with pyinstaller python installer/build.py`"
        )
    where = subprocess.run(
        [python, "-c", "import termwise.tray as t; print(t.__file__)"],
        capture_output=True,
        text=True,
    )
    if where.returncode != 0:
        raise BuildError("termwise is not installed in this environment: run `uv sync`")
    if is_editable_install(Path(where.stdout.strip())):
        raise BuildError(
            "termwise is installed in editable mode, which PyInstaller cannot follow: "
            "run `uv sync --no-editable` first"
        )
    cmd = [python, "-m", "PyInstaller", str(SPEC), "--noconfirm", "--clean"]
    cmd += ["--distpath", str(DIST / "frozen"), "--workpath", str(WORK / "pyinstaller")]
    print("freezing:", " ".join(cmd), flush=True)
    if subprocess.run(cmd, cwd=ROOT).returncode != 0:
        raise BuildError("PyInstaller failed (see its output above)")
    return DIST / "frozen" / FROZEN_NAME


def smoke_test(payload: Path) -> None:
    """Run the frozen console executable with --smoke-test; it must exit 0."""
    exe = payload / CLI_EXE
    cmd = [str(exe), "--smoke-test"]
    print("smoke test:", " ".join(cmd), flush=True)
    try:
        done = subprocess.run(cmd, timeout=SMOKE_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise BuildError(f"the smoke test did not finish in {SMOKE_TIMEOUT:.0f} s") from None
    except OSError as exc:
        raise BuildError(f"cannot run {exe}: {exc}") from None
    if done.returncode != 0:
        raise BuildError(f"the smoke test failed with exit code {done.returncode}")


def package(payload: Path, version: str, out: Path, makensis: str) -> Path:
    """Compile the NSIS script around `payload`; returns the installer's path."""
    out.mkdir(parents=True, exist_ok=True)
    setup = out / f"Termwise-Setup-{version}.exe"
    if setup.exists():
        setup.unlink()
    # The file lists go to a private folder: parallel builds never share one.
    host = is_host_makensis(makensis)
    convert: Callable[[Path], str] = host_path if host else str
    with tempfile.TemporaryDirectory(prefix="termwise-nsis-") as work:
        nsh = Path(work) / "payload.nsh"
        count = write_payload_nsh(payload, nsh, convert)
        cmd = [
            host_path(makensis) if host else makensis,
            "-V2",
            "-INPUTCHARSET",
            "UTF8",
            f"-DVERSION={version}",
            f"-DVERSION_QUAD={version_quad(version)}",
            f"-DPAYLOAD_NSH={convert(nsh)}",
            f"-DOUTFILE={convert(setup)}",
            convert(NSI),
        ]
        print(f"packaging {count} files:", " ".join(cmd), flush=True)
        if host:
            done = run_on_host(cmd, Path(work))
        else:
            done = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if done.returncode != 0 or not setup.is_file():
        detail = (done.stdout + done.stderr).strip()
        raise BuildError(f"makensis failed (exit {done.returncode}):\n{detail}")
    return setup


def run_on_host(cmd: list[str], work: Path) -> subprocess.CompletedProcess[str]:
    """Run a Linux program from Windows Python under Wine and wait for it.

    Wine starts a Linux program from CreateProcess but hands back no process handle
    (Python sees "Invalid handle"), so the host's shell writes the output and the exit
    status to files, and this waits for the status file.
    """
    import shlex

    log, status = work / "host.log", work / "host.status"
    script = f"{shlex.join(cmd)} >{shlex.quote(host_path(log))} 2>&1; "
    script += f"echo $? >{shlex.quote(host_path(status))}.tmp && "
    script += f"mv {shlex.quote(host_path(status))}.tmp {shlex.quote(host_path(status))}"
    try:
        subprocess.Popen([HOST_SHELL, "-c", script], stdin=subprocess.DEVNULL)
    except OSError:
        pass  # the expected "Invalid handle": the program runs all the same
    deadline = time.monotonic() + MAKENSIS_TIMEOUT
    while not status.is_file():
        if time.monotonic() > deadline:
            raise BuildError(f"{cmd[0]} did not finish in {MAKENSIS_TIMEOUT:.0f} s")
        time.sleep(0.5)
    output = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    code = int(status.read_text().strip() or "1")
    return subprocess.CompletedProcess(cmd, code, output, "")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--payload", type=Path, help="package this folder instead of freezing")
    parser.add_argument("--out", type=Path, default=DIST, help="folder for the installer")
    parser.add_argument("--makensis", help="path of makensis (default: found on PATH)")
    parser.add_argument(
        "--skip-smoke", action="store_true", help="do not run the frozen app's --smoke-test"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        version = project_version()
        makensis = find_makensis(args.makensis)  # fail before a long freeze
        payload = args.payload.resolve() if args.payload else freeze()
        check_payload(payload)
        if args.skip_smoke:
            print("smoke test skipped (--skip-smoke)")
        elif sys.platform != "win32":
            print("smoke test skipped: the payload's Windows executables cannot run here")
        else:
            smoke_test(payload)
        setup = package(payload, version, args.out.resolve(), makensis)
    except BuildError as exc:
        print(f"build.py: error: {exc}", file=sys.stderr)
        return 1
    print(f"built {setup}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
