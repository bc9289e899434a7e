"""The Settings window writes real config files, keeps the API key in the keyring only."""

from __future__ import annotations

from typing import Any

import keyring
from PySide6.QtCore import Qt
from termwise.agent.base.config import load_config
from termwise.agent.base.config_schema import Config, ProviderConfig
from termwise.agent.base.paths import Paths
from termwise.overlay.i18n import current_language
from termwise.overlay.settings_window import MASK, SettingsWindow


def _window(qtbot: Any, paths: Paths, config: Config | None = None) -> SettingsWindow:
    w = SettingsWindow(config or Config(), paths)
    qtbot.addWidget(w)
    return w


def test_apply_writes_the_config_and_emits_the_new_one(qtbot: Any, paths: Paths) -> None:
    """Changed fields land in the config file (read back with load_config) and in `applied`."""
    w = _window(qtbot, paths)
    w.preset.setCurrentIndex(w.preset.findData("deepseek"))
    w.default_model.setText("deepseek-chat")
    w.temperatures["suggest"].setValue(0.3)
    w.models["safety"].setText("deepseek-reasoner")
    w.max_lines.setValue(40)
    w.redact.setChecked(False)
    w.shell.setCurrentIndex(w.shell.findData("zsh"))
    w.terminal.setText("xterm -e {attach}")
    with qtbot.waitSignal(w.applied) as applied:
        qtbot.mouseClick(w.apply_button, Qt.MouseButton.LeftButton)
    written = load_config(paths.config_file).config
    assert written == applied.args[0]
    assert written.providers[0].preset == "deepseek"
    assert written.providers[0].default_model == "deepseek-chat"
    assert written.tasks.suggest.temperature == 0.3
    assert written.tasks.safety.model == "deepseek-reasoner"
    assert written.privacy.max_output_lines == 40 and written.privacy.redact is False
    assert written.terminal.default_shell == "zsh"
    assert written.terminal.command == "xterm -e {attach}"


def test_api_key_goes_to_the_keyring_masked_never_to_the_file(
    qtbot: Any, paths: Paths, memory_keyring: Any
) -> None:
    """The key is stored in the keyring, the field shows only a mask, the file never has it."""
    config = Config(providers=[ProviderConfig(name="work", preset="openai")])
    w = _window(qtbot, paths, config)
    assert "No key stored" in w.key_state.text()
    w.api_key.setText("sk-test-secret-12345")
    assert w.api_key.echoMode() == w.api_key.EchoMode.Password
    with qtbot.waitSignal(w.applied):
        w.apply()
    assert keyring.get_password("termwise", "work") == "sk-test-secret-12345"
    assert "sk-test-secret-12345" not in paths.config_file.read_text(encoding="utf-8")
    assert w.api_key.text() == ""
    assert MASK in w.key_state.text() and "12345" not in w.key_state.text()


def test_hotkey_recorder_and_focus_field(qtbot: Any, paths: Paths) -> None:
    """Pressing a combination in the hotkey field records it; focus_field puts the cursor there."""
    w = _window(qtbot, paths)
    w.focus_field("hotkey")
    qtbot.waitUntil(lambda: w.hotkey.hasFocus())
    qtbot.keyClick(
        w.hotkey,
        Qt.Key.Key_K,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert w.hotkey.text() == "ctrl+shift+k"
    w.apply()
    assert load_config(paths.config_file).config.hotkey.combo == "ctrl+shift+k"
    w.focus_field("provider")
    qtbot.waitUntil(lambda: w.preset.hasFocus())


def test_language_switch_to_chinese_changes_the_window_texts(qtbot: Any, paths: Paths) -> None:
    """Choosing 简体中文 and applying turns the window's labels Chinese at once."""
    w = _window(qtbot, paths)
    assert w.apply_button.text() == "Apply"
    w.language.setCurrentIndex(w.language.findData("zh_CN"))
    with qtbot.waitSignal(w.applied) as applied:
        w.apply()
    assert applied.args[0].ui.language == "zh_CN"
    assert current_language() == "zh_CN"
    assert w.apply_button.text() == "应用"
    assert w.windowTitle() == "Termwise 设置"


def test_a_live_language_switch_relabels_the_same_widgets_and_stacks_none(
    qtbot: Any, paths: Paths
) -> None:
    """No English label stays drawn under a Chinese one: the same labels change their text."""
    from PySide6.QtWidgets import QLabel

    w = _window(qtbot, paths)
    w.show()
    qtbot.waitExposed(w)
    before = w.findChildren(QLabel)
    w.language.setCurrentIndex(w.language.findData("zh_CN"))
    w.apply()
    after = w.findChildren(QLabel)
    assert len(after) == len(before)
    shown = [label.text() for label in after if label.isVisible() and label.text()]
    for english in ("Provider", "Hotkey", "Language", "Theme", "Default shell"):
        assert english not in shown
    assert w.labels["Hotkey"].text() != "Hotkey" and w.labels["Hotkey"].isVisible()


def test_choosing_a_preset_shows_its_endpoint_and_model(qtbot: Any, paths: Paths) -> None:
    """Picking the DeepSeek preset hints its URL and model; empty fields keep the preset's."""
    w = _window(qtbot, paths)
    w.preset.setCurrentIndex(w.preset.findData("deepseek"))
    assert w.base_url.placeholderText() == "https://api.deepseek.com/v1"
    assert w.default_model.placeholderText() == "deepseek-chat"
    w.apply()
    written = load_config(paths.config_file).config
    assert written.providers[0].preset == "deepseek" and written.providers[0].base_url == ""


def test_field_rects_point_at_the_fields_after_a_language_switch(qtbot: Any, paths: Paths) -> None:
    """Each rectangle, measured after the texts changed, hits its own field (what the e2e
    journeys click)."""
    w = _window(qtbot, paths)
    w.show()
    qtbot.waitExposed(w)
    w.language.setCurrentIndex(w.language.findData("zh_CN"))
    with qtbot.waitSignal(w.applied):
        w.apply()
    rects = w.field_rects()
    assert {"language", "apply", "close", "provider"} <= set(rects)
    for name, (x, y, width, height) in rects.items():
        inside = w.childAt(x + width // 2, y + height // 2)
        target = w.apply_button if name == "apply" else w.close_button
        target = w.fields.get(name, target)
        assert inside is target or (inside is not None and target.isAncestorOf(inside)), name
