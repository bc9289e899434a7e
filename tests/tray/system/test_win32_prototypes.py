"""Every Win32 function Termwise calls through ctypes has a declared prototype on a private DLL."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("tray", "overlay", "agent", "memory")
_DLL_VAR = re.compile(r"(\w+)\s*=\s*ctypes\.WinDLL\(")


def _sources() -> list[Path]:
    return [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]


def test_no_module_uses_the_shared_windll_objects() -> None:
    """ctypes.windll is shared by the whole process: prototypes set on it leak into other
    modules (and its default int prototypes cut 64-bit HANDLEs)."""
    users = [str(p.relative_to(ROOT)) for p in _sources() if "windll." in p.read_text("utf-8")]
    assert users == []


def test_every_called_win32_function_declares_argtypes_and_restype() -> None:
    """A call like `_k32.GetStdHandle(...)` needs `.argtypes` and `.restype` in its module."""
    missing: list[str] = []
    seen = 0
    for path in _sources():
        text = path.read_text("utf-8")
        for var in set(_DLL_VAR.findall(text)):
            called = set(re.findall(rf"\b{var}\.(\w+)\(", text))
            seen += len(called)
            for attr in ("argtypes", "restype"):
                declared = set(re.findall(rf"\b{var}\.(\w+)\.{attr}\s*=", text))
                missing += [
                    f"{path.relative_to(ROOT)}: {var}.{f}.{attr}" for f in called - declared
                ]
    assert seen > 20  # the scan really finds the Windows modules' calls
    assert missing == []


@pytest.mark.windows
@pytest.mark.skipif(sys.platform != "win32", reason="Windows DLLs")
def test_the_shared_kernel32_keeps_its_default_prototypes() -> None:
    """Importing and using our Windows modules leaves ctypes.windll.kernel32 untouched."""
    import ctypes
    from ctypes import wintypes

    from termwise.tray.commands import attach, term_io
    from termwise.tray.ipc import winpipe

    if sys.platform == "win32":
        k32 = term_io._kernel32()
        assert k32 is not ctypes.windll.kernel32
        assert k32.GetStdHandle.restype is wintypes.HANDLE
        assert attach._k32.GetStdHandle.restype is wintypes.HANDLE
        assert winpipe._k32.CreateFileW.restype is wintypes.HANDLE
        shared = ctypes.windll.kernel32
        assert shared.GetStdHandle.restype is ctypes.c_int
        assert shared.CreateFileW.restype is ctypes.c_int
