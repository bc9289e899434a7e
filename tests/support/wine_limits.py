"""Wine limits: the one marker for tests that cannot pass under Wine, and the one list of why.

A test marked `@wine_limit("key")` runs everywhere except under Wine (the Windows lane,
installer/wine/lane.sh), where it is skipped with the reason below. Real Windows runs it.
The README's Windows section lists the same reasons (tests/test_packaging.py checks).
"""

from __future__ import annotations

import sys

import pytest

# key -> the reason, as a user of the lane reads it in the skip line and the README.
LIMITS: dict[str, str] = {
    "no-posix-tools": (
        "no bash.exe, sh.exe or git.exe in the Wine prefix (Git for Windows provides them on "
        "real Windows; no registry package the lane can install ships them)"
    ),
    "no-prompt-marks": (
        "Wine's console turns the ESC of cmd's prompt into '?' and its cmd has no doskey, "
        "so no command marks arrive from a shell"
    ),
    "no-powershell": "Wine ships no PowerShell (powershell.exe is a stub that exits at once)",
    "first-pipe-instance": (
        "Wine ignores FILE_FLAG_FIRST_PIPE_INSTANCE, so a second server on the same pipe "
        "name is not refused"
    ),
    "hotkey-release": (
        "a combination released with UnregisterHotKey stays taken for a new RegisterHotKey in "
        "the same process when run under pytest (a plain script re-registers it; not root-caused)"
    ),
    "qt-local-socket": (
        "a QLocalSocket request written right before the client disconnects does not reach "
        "the QLocalServer over Wine's named pipe within the test's wait"
    ),
}


def running_under_wine() -> bool:
    """True inside a Windows program that Wine runs (ntdll exports wine_get_version)."""
    if sys.platform != "win32":
        return False
    import ctypes

    try:
        return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")
    except OSError:
        return False


UNDER_WINE = running_under_wine()


def wine_limit(key: str) -> pytest.MarkDecorator:
    """Mark a test as not passing under Wine, for the listed reason `key`."""
    if key not in LIMITS:
        raise KeyError(f"unknown Wine limit {key!r}: add it to LIMITS with its reason")
    return pytest.mark.wine_limit(key)


def apply(items: list[pytest.Item]) -> None:
    """Under Wine, skip every item marked wine_limit, saying which limit; elsewhere nothing."""
    if not UNDER_WINE:
        return
    for item in items:
        for mark in item.iter_markers("wine_limit"):
            key = mark.args[0]
            item.add_marker(pytest.mark.skip(reason=f"Wine limit ({key}): {LIMITS[key]}"))
            break
