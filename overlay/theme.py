"""Light and dark looks for the overlay windows, following the OS unless the config says otherwise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from termwise.agent.base.config_schema import Config


@dataclass(frozen=True)
class Theme:
    """The handful of colours the windows use."""

    name: str
    background: str
    surface: str
    text: str
    muted: str
    accent: str
    error: str
    border: str
    safe: str
    confirm: str
    dangerous: str


LIGHT = Theme(
    name="light",
    background="#f7f7f9",
    surface="#ffffff",
    text="#1d1f24",
    muted="#5f6673",
    accent="#2f6fde",
    error="#c62828",
    border="#d5d8de",
    safe="#2e7d32",
    confirm="#b26a00",
    dangerous="#c62828",
)

DARK = Theme(
    name="dark",
    background="#1f2228",
    surface="#2a2e36",
    text="#e8eaee",
    muted="#a0a7b4",
    accent="#6ea8ff",
    error="#ff6b6b",
    border="#3b404a",
    safe="#66bb6a",
    confirm="#ffb74d",
    dangerous="#ff6b6b",
)


def os_prefers_dark() -> bool:
    """Whether the OS asks for a dark look (Qt ≥ 6.5 reports it; older Qt: palette lightness)."""
    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        return False
    hints = app.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None:
        value = scheme()
        if value == Qt.ColorScheme.Dark:
            return True
        if value == Qt.ColorScheme.Light:
            return False
    # Not app.palette(): apply_theme() replaces it, so it would only echo our own choice.
    from PySide6.QtWidgets import QApplication

    style = QApplication.style() if isinstance(app, QApplication) else None
    base = style.standardPalette() if style is not None else app.palette()
    return base.window().color().lightness() < 128


def pick_theme(setting: str = "auto") -> Theme:
    """The theme for a config value `auto | light | dark`."""
    if setting == "dark":
        return DARK
    if setting == "light":
        return LIGHT
    return DARK if os_prefers_dark() else LIGHT


def stylesheet(theme: Theme) -> str:
    """A Qt style sheet for the overlay and its children (object names select the parts)."""
    t = theme
    return f"""
#overlayFrame {{ background: {t.background}; border: 1px solid {t.border}; border-radius: 10px; }}
QLabel {{ color: {t.text}; }}
#muted {{ color: {t.muted}; }}
#header {{ color: {t.text}; font-weight: 600; }}
#notice {{ color: {t.muted}; font-style: italic; }}
#errorText {{ color: {t.error}; }}
#outputView {{ background: {t.surface}; color: {t.text}; border: 1px solid {t.border};
  border-radius: 6px; font-family: monospace; }}
QLineEdit {{ background: {t.surface}; color: {t.text}; border: 1px solid {t.border};
  border-radius: 6px; padding: 4px 6px; }}
#suggestion {{ background: transparent; border: 1px solid transparent; border-radius: 6px; }}
#suggestion[selected="true"] {{ background: {t.surface}; border: 1px solid {t.accent}; }}
#command {{ font-family: monospace; font-weight: 600; color: {t.text}; }}
#badge_safe {{ color: {t.safe}; border: 1px solid {t.safe}; border-radius: 4px; padding: 0 4px; }}
#badge_confirm {{ color: {t.confirm}; border: 1px solid {t.confirm}; border-radius: 4px;
  padding: 0 4px; }}
#badge_dangerous {{ color: {t.dangerous}; border: 1px solid {t.dangerous}; border-radius: 4px;
  padding: 0 4px; }}
#badge_unknown {{ color: {t.muted}; border: 1px solid {t.border}; border-radius: 4px;
  padding: 0 4px; }}
QPushButton {{ color: {t.text}; background: {t.surface}; border: 1px solid {t.border};
  border-radius: 4px; padding: 2px 8px; }}
"""


def palette(theme: Theme) -> QPalette:
    """A QPalette in the theme's colours, for the windows without their own style sheet."""
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: theme.background,
        QPalette.ColorRole.WindowText: theme.text,
        QPalette.ColorRole.Base: theme.surface,
        QPalette.ColorRole.AlternateBase: theme.background,
        QPalette.ColorRole.Text: theme.text,
        QPalette.ColorRole.Button: theme.surface,
        QPalette.ColorRole.ButtonText: theme.text,
        QPalette.ColorRole.ToolTipBase: theme.surface,
        QPalette.ColorRole.ToolTipText: theme.text,
        QPalette.ColorRole.Highlight: theme.accent,
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.PlaceholderText: theme.muted,
        QPalette.ColorRole.Link: theme.accent,
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    return p


def apply_theme(app: QGuiApplication, config: Config) -> Theme:
    """Give the whole application the configured (or the OS's) look; returns the theme used."""
    theme = pick_theme(config.ui.theme)
    app.setPalette(palette(theme))
    return theme


def on_os_scheme_change(app: QGuiApplication, callback: Callable[[], None]) -> bool:
    """Call `callback` when the OS switches light/dark (Qt ≥ 6.5); False when Qt cannot tell."""
    signal = getattr(app.styleHints(), "colorSchemeChanged", None)
    if signal is None:
        return False
    signal.connect(lambda _scheme: callback())
    return True
