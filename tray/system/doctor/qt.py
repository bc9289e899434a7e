"""Qt platform and system tray checks, probed in a child process.

Without a usable display, loading a Qt platform plugin aborts the whole process;
a child keeps `termwise doctor` alive to report it.
"""

from __future__ import annotations

import json
import subprocess
import sys

from termwise.tray.system.doctor.base import (
    CheckResult,
    DoctorContext,
    fail,
    ok,
    self_command,
    warn,
)

PROBE_TIMEOUT = 30.0
PROBE_FLAG = "--qt-probe"


def probe_main() -> int:
    """Run in the child: start a QApplication and print what Qt found as one JSON line."""
    from PySide6 import __version__ as pyside_version
    from PySide6.QtWidgets import QApplication, QSystemTrayIcon

    app = QApplication.instance() or QApplication([sys.argv[0]])
    print(
        json.dumps(
            {
                "platform": QApplication.platformName(),
                "tray": bool(QSystemTrayIcon.isSystemTrayAvailable()),
                "pyside": pyside_version,
            }
        ),
        flush=True,
    )
    del app
    return 0


def _display_fix(ctx: DoctorContext, stderr: str) -> str:
    no_display = ctx.platform.startswith("linux") and not (
        ctx.env.get("DISPLAY") or ctx.env.get("WAYLAND_DISPLAY")
    )
    if no_display or "could not connect to display" in stderr:
        return "run Termwise inside your desktop session (no usable DISPLAY or WAYLAND_DISPLAY)"
    # Qt names xcb-cursor whenever xcb fails; it is the cause only when a display exists.
    if "xcb-cursor" in stderr:
        return "install libxcb-cursor0 (`apt-get install libxcb-cursor0`)"
    return "reinstall Termwise; on Linux install Qt's xcb libraries (see the README)"


def _reason(stderr: str, returncode: int) -> str:
    """The most telling line of Qt's complaint."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for marker in ("could not connect to display", "Could not load the Qt platform plugin"):
        for line in lines:
            if marker in line:
                return line
    return lines[-1] if lines else f"exit code {returncode}"


def probe_qt(ctx: DoctorContext) -> list[CheckResult]:
    """The Qt platform line and the system tray line, from one child process."""
    cmd = [*self_command(), "doctor", PROBE_FLAG]
    # Run from the windowed tray, a console child would flash a window up.
    flags = 0
    if sys.platform == "win32":
        flags = subprocess.CREATE_NO_WINDOW
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            env=dict(ctx.env),
            creationflags=flags,
        )
    except subprocess.TimeoutExpired:
        detail = f"starting Qt took longer than {PROBE_TIMEOUT:.0f} s"
        return [
            fail("Qt platform", detail, _display_fix(ctx, "")),
            fail("System tray", "unknown: Qt did not start", "fix the Qt platform first"),
        ]
    found: dict[str, object] = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            try:
                found = json.loads(line)
            except ValueError:
                pass
    if done.returncode != 0 or not found:
        reason = _reason(done.stderr, done.returncode)
        return [
            fail("Qt platform", f"Qt could not start: {reason}", _display_fix(ctx, done.stderr)),
            fail("System tray", "unknown: Qt did not start", "fix the Qt platform first"),
        ]
    platform_name = str(found.get("platform"))
    results = [ok("Qt platform", f"PySide6 {found.get('pyside')}, platform {platform_name!r}")]
    if platform_name in ("offscreen", "minimal"):
        results[0] = warn(
            "Qt platform",
            f"platform {platform_name!r} shows no windows (QT_QPA_PLATFORM is set)",
            "unset QT_QPA_PLATFORM to use your desktop",
        )
    if found.get("tray"):
        results.append(ok("System tray", "available"))
    else:
        results.append(
            warn(
                "System tray",
                f"no system tray on platform {platform_name!r}: the tray icon will not show",
                "use a desktop with a tray (GNOME needs the AppIndicator extension); "
                "`termwise serve` runs the session host without one",
            )
        )
    return results
