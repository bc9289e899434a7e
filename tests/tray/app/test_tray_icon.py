"""Tray icons: the SVGs render at tray sizes, each state looks different, the .ico holds 16–256 px."""

from __future__ import annotations

import struct

from PySide6.QtCore import QSize
from termwise.tray.app.tray_icon import TrayIcon, icon_path, load_icon


def _image(name: str, size: int):
    return load_icon(name).pixmap(QSize(size, size)).toImage()


def test_every_icon_renders_sharp_at_tray_and_hidpi_sizes(qapp) -> None:
    """Each SVG draws something (not blank) at 16, 32 and 64 px."""
    for name in ("termwise.svg", "tray-idle.svg", "tray-failed.svg", "tray-waiting.svg"):
        for size in (16, 32, 64):
            image = _image(name, size)
            assert image.width() == size, name
            opaque = sum(
                1 for x in range(size) for y in range(size) if image.pixelColor(x, y).alpha() > 0
            )
            assert opaque > size * size // 3, f"{name} at {size}px is mostly empty"


def test_states_are_told_apart(qapp) -> None:
    """Failed and waiting icons differ from idle (a red and an amber badge)."""
    idle, failed, waiting = (_image(f"tray-{s}.svg", 32) for s in ("idle", "failed", "waiting"))
    assert idle != failed and idle != waiting and failed != waiting
    red = failed.pixelColor(23, 26)  # on the badge, below its white cross
    assert red.red() > 180 and red.green() < 120


def test_icon_follows_state(qapp) -> None:
    """Waiting wins over failed, which wins over idle; the tooltip says which."""
    icon = TrayIcon()
    assert icon.state == "idle"
    icon.set_failed(True, "`make` failed")
    assert icon.state == "failed" and "`make` failed" in icon.tray.toolTip()
    icon.set_waiting(True)
    assert icon.state == "waiting"
    icon.set_waiting(False)
    icon.set_failed(False)
    assert icon.state == "idle" and icon.tray.toolTip() == "Termwise"


def test_windows_icon_file_has_all_sizes() -> None:
    """termwise.ico (for the installer and the .exe) holds 16 to 256 px images."""
    data = icon_path("termwise.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind) == (0, 1)
    sizes = {data[6 + 16 * i] or 256 for i in range(count)}
    assert {16, 24, 32, 48, 64, 128, 256} <= sizes
