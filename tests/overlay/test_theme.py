"""Light and dark looks: the config's choice reaches the app palette and the overlay at once."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication
from termwise.agent.base.config_schema import Config
from termwise.overlay.theme import DARK, LIGHT, apply_theme, pick_theme

from tests.overlay.conftest import no_model


def _config(theme: str) -> Config:
    config = Config()
    config.ui.theme = theme
    return config


def test_apply_theme_sets_the_application_palette(qtbot: Any) -> None:
    """ui.theme dark/light gives every window the theme's background and text colours."""
    app = QApplication.instance()
    assert isinstance(app, QGuiApplication)
    old = app.palette()
    os_choice = pick_theme("auto")
    try:
        assert apply_theme(app, _config("dark")) is DARK
        assert app.palette().color(QPalette.ColorRole.Window).name() == DARK.background
        assert app.palette().color(QPalette.ColorRole.Text).name() == DARK.text
        assert apply_theme(app, _config("light")) is LIGHT
        assert app.palette().color(QPalette.ColorRole.Window).name() == LIGHT.background
        # "auto" asks the OS, not the palette we just set: our own choice must not echo back.
        apply_theme(app, _config("dark" if os_choice is LIGHT else "light"))
        assert pick_theme("auto") is os_choice
    finally:
        app.setPalette(old)


def test_overlay_switches_theme_without_a_restart(qtbot: Any, make_controller: Any) -> None:
    """apply_config with ui.theme=dark redraws the overlay in dark colours; light brings it back."""
    controller = make_controller(client_factory=no_model, config=_config("light"))
    window = controller.window
    assert LIGHT.background in window.styleSheet()
    controller.apply_config(_config("dark"))
    assert window.theme is DARK and DARK.background in window.styleSheet()
    assert LIGHT.background not in window.styleSheet()
    controller.apply_config(_config("light"))
    assert window.theme is LIGHT
