"""Settings: provider, API key (keyring), models per task, hotkey, shell, terminal, language, privacy."""

from __future__ import annotations

import copy
import os

from PySide6.QtCore import QPoint, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from termwise.agent.base.config import write_config
from termwise.agent.base.config_schema import Config, ProviderConfig
from termwise.agent.base.errors import AgentError
from termwise.agent.base.paths import Paths
from termwise.agent.llm.keys import get_key, set_key
from termwise.agent.llm.providers import PRESETS
from termwise.overlay.hotkey_edit import HotkeyEdit
from termwise.overlay.i18n import detect_language, set_language, tr
from termwise.overlay.qt_bridge import emit

TASKS = ("suggest", "safety", "memory", "deploy", "chat")
SHELLS = ("", "pwsh", "powershell", "cmd", "bash", "zsh", "wsl")
LANGUAGES = (("auto", "Automatic (system)"), ("en", "English"), ("zh_CN", "简体中文"))
THEMES = (("auto", "Follow the system"), ("light", "Light"), ("dark", "Dark"))
MASK = "••••••••"


class SettingsWindow(QWidget):
    """Edits a copy of the config; Apply writes it with write_config and emits `applied`."""

    applied = Signal(object)  # the new Config, already written

    def __init__(self, config: Config, paths: Paths, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.config = copy.deepcopy(config)
        self.paths = paths
        self.setObjectName("settings")
        self._build()
        self.load(self.config)
        self.retranslate()

    # building -----------------------------------------------------------------------
    def _build(self) -> None:
        self.preset = QComboBox(self)
        for name in PRESETS:
            self.preset.addItem(name, name)
        self.preset.currentIndexChanged.connect(self._preset_changed)
        self.base_url = QLineEdit(self)
        self.api_key = QLineEdit(self)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_state = QLabel(self)
        self.key_state.setObjectName("muted")
        self.default_model = QLineEdit(self)
        self.models: dict[str, QLineEdit] = {}
        self.temperatures: dict[str, QDoubleSpinBox] = {}
        for task in TASKS:
            self.models[task] = QLineEdit(self)
            spin = QDoubleSpinBox(self)
            spin.setRange(0.0, 2.0)
            spin.setSingleStep(0.1)
            self.temperatures[task] = spin
        self.hotkey = HotkeyEdit(self)
        self.hotkey_enabled = QCheckBox(self)
        self.shell = QComboBox(self)
        for name in SHELLS:
            self.shell.addItem(name or "—", name)
        self.terminal = QLineEdit(self)
        self.language = QComboBox(self)
        for code, _label in LANGUAGES:
            self.language.addItem("", code)
        self.theme = QComboBox(self)
        for code, _label in THEMES:
            self.theme.addItem("", code)
        self.redact = QCheckBox(self)
        self.max_lines = QSpinBox(self)
        self.max_lines.setRange(0, 10000)
        self.failure_nudge = QCheckBox(self)
        self.start_at_login = QCheckBox(self)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.apply_button = QPushButton(self)
        self.apply_button.clicked.connect(self.apply)
        self.close_button = QPushButton(self)
        self.close_button.clicked.connect(self.close)

        self.model_box = QGroupBox(self)
        self.model_form = QFormLayout(self.model_box)
        self.tasks_box = QGroupBox(self)
        self.tasks_form = QFormLayout(self.tasks_box)
        for task in TASKS:
            row = QHBoxLayout()
            row.addWidget(self.models[task], 1)
            row.addWidget(self.temperatures[task])
            self.tasks_form.addRow(task, row)
        self.general_box = QGroupBox(self)
        self.general_form = QFormLayout(self.general_box)
        # One label widget per row, built once: retranslating only sets their text, so a
        # language switch never leaves the old labels drawn under the new ones.
        self.labels: dict[str, QLabel] = {}
        model_rows: list[tuple[str, QWidget]] = [
            ("Provider", self.preset),
            ("Base URL", self.base_url),
            ("API key", self.api_key),
            ("", self.key_state),
            ("Default model", self.default_model),
        ]
        general_rows: list[tuple[str, QWidget]] = [
            ("Hotkey", self.hotkey),
            ("", self.hotkey_enabled),
            ("Default shell", self.shell),
            ("Terminal command", self.terminal),
            ("Language", self.language),
            ("Theme", self.theme),
            ("Output lines sent to the model", self.max_lines),
            ("", self.redact),
            ("", self.failure_nudge),
            ("", self.start_at_login),
        ]
        for form, rows in ((self.model_form, model_rows), (self.general_form, general_rows)):
            for text, widget in rows:
                if text:
                    label = QLabel(self)
                    self.labels[text] = label
                    form.addRow(label, widget)
                else:
                    form.addRow(widget)
        buttons = QHBoxLayout()
        buttons.addWidget(self.message, 1)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        for box in (self.model_box, self.tasks_box, self.general_box):
            layout.addWidget(box)
        layout.addLayout(buttons)
        self.fields: dict[str, QWidget] = {
            "provider": self.preset,
            "base_url": self.base_url,
            "api_key": self.api_key,
            "model": self.default_model,
            "hotkey": self.hotkey,
            "shell": self.shell,
            "terminal": self.terminal,
            "language": self.language,
            "theme": self.theme,
            "privacy": self.redact,
            "failure_nudge": self.failure_nudge,
        }

    def retranslate(self) -> None:
        """Every label again in the current language (the same widgets, new texts)."""
        self.setWindowTitle(tr("Termwise settings"))
        self.model_box.setTitle(tr("Model"))
        self.tasks_box.setTitle(tr("Model and temperature per task"))
        self.general_box.setTitle(tr("General"))
        for text, row_label in self.labels.items():
            row_label.setText(tr(text))
        for i, (_code, label) in enumerate(LANGUAGES):
            self.language.setItemText(i, label if i else tr(label))
        for i, (_code, label) in enumerate(THEMES):
            self.theme.setItemText(i, tr(label))
        self.hotkey.setPlaceholderText(tr("Click here, then press the keys"))
        self.hotkey_enabled.setText(tr("Listen for the hotkey"))
        self.terminal.setPlaceholderText(tr("Empty: detect; {attach} is the attach command"))
        self.redact.setText(tr("Hide secrets before text leaves this machine"))
        self.failure_nudge.setText(tr("Notify when a command fails"))
        self.start_at_login.setText(tr("Start Termwise when I log in"))
        self.apply_button.setText(tr("Apply"))
        self.close_button.setText(tr("Close"))
        self._show_key_state()

    # values -----------------------------------------------------------------------
    def _provider(self) -> ProviderConfig:
        if not self.config.providers:
            self.config.providers.append(ProviderConfig(name="default"))
        return self.config.providers[0]

    def load(self, config: Config) -> None:
        """Fill the fields from `config`."""
        provider = config.providers[0] if config.providers else ProviderConfig()
        self.preset.setCurrentIndex(max(0, self.preset.findData(provider.preset)))
        self._preset_changed()
        self.base_url.setText(provider.base_url)
        self.default_model.setText(provider.default_model)
        for task in TASKS:
            t = getattr(config.tasks, task)
            self.models[task].setText(t.model)
            self.temperatures[task].setValue(float(t.temperature))
        self.hotkey.setText(config.hotkey.combo)
        self.hotkey_enabled.setChecked(config.hotkey.enabled)
        self.shell.setCurrentIndex(max(0, self.shell.findData(config.terminal.default_shell)))
        self.terminal.setText(config.terminal.command)
        self.language.setCurrentIndex(max(0, self.language.findData(config.ui.language)))
        self.theme.setCurrentIndex(max(0, self.theme.findData(config.ui.theme)))
        self.redact.setChecked(config.privacy.redact)
        self.max_lines.setValue(config.privacy.max_output_lines)
        self.failure_nudge.setChecked(config.ui.failure_nudge)
        self.start_at_login.setChecked(config.ui.start_at_login)

    def _key_name(self) -> str:
        return self.config.providers[0].name if self.config.providers else "default"

    def _show_key_state(self) -> None:
        key_env = self.config.providers[0].key_env if self.config.providers else ""
        key, source = get_key(self._key_name(), key_env, os.environ)
        if key:
            where = tr("system keyring") if source == "keyring" else source
            self.key_state.setText(tr("Stored: {mask} ({where})", mask=MASK, where=where))
            self.api_key.setPlaceholderText(MASK)
        else:
            self.key_state.setText(tr("No key stored"))
            self.api_key.setPlaceholderText(tr("Paste the key; it goes to the system keyring"))

    def _preset_changed(self) -> None:
        # The preset's endpoint and model show as hints; empty fields mean "use the preset's".
        preset = PRESETS.get(str(self.preset.currentData()))
        self.base_url.setPlaceholderText(preset.base_url if preset else "")
        self.default_model.setPlaceholderText(preset.default_model if preset else "")

    def collect(self) -> Config:
        """A new Config from the fields (the API key is not part of it)."""
        config = copy.deepcopy(self.config)
        name = str(self.preset.currentData())
        wants_model = bool(self.base_url.text().strip() or self.default_model.text().strip())
        if config.providers or wants_model or name != "custom":
            if not config.providers:
                config.providers.append(
                    ProviderConfig(name=name if name != "custom" else "default")
                )
            p = config.providers[0]
            p.preset = name
            p.base_url = self.base_url.text().strip()
            p.default_model = self.default_model.text().strip()
        for task in TASKS:
            t = getattr(config.tasks, task)
            t.model = self.models[task].text().strip()
            t.temperature = round(self.temperatures[task].value(), 2)
        config.hotkey.combo = self.hotkey.text().strip() or config.hotkey.combo
        config.hotkey.enabled = self.hotkey_enabled.isChecked()
        config.terminal.default_shell = str(self.shell.currentData())
        config.terminal.command = self.terminal.text().strip()
        config.ui.language = str(self.language.currentData())
        config.ui.theme = str(self.theme.currentData())
        config.privacy.redact = self.redact.isChecked()
        config.privacy.max_output_lines = self.max_lines.value()
        config.ui.failure_nudge = self.failure_nudge.isChecked()
        config.ui.start_at_login = self.start_at_login.isChecked()
        return config

    def apply(self) -> bool:
        """Write the config, store a new API key in the keyring, emit `applied`."""
        config = self.collect()
        try:
            key = self.api_key.text()
            if key.strip():
                p = config.providers[0] if config.providers else ProviderConfig(name="default")
                set_key(p.name, key.strip(), p.key_env)
            write_config(config, self.paths.config_file)
        except (AgentError, OSError) as exc:
            self.message.setText(tr("Not saved: {error}", error=str(exc)))
            return False
        self.api_key.clear()
        language_changed = config.ui.language != self.config.ui.language
        self.config = config
        if language_changed:
            set_language(detect_language(config.ui.language))
            self.retranslate()
        self._show_key_state()
        self.message.setText(tr("Saved."))
        emit(self.applied, copy.deepcopy(config))
        return True

    def field_rects(self) -> dict[str, list[int]]:
        """Where each field and button sits inside the window: [x, y, width, height]."""
        layout = self.layout()
        if layout is not None:
            layout.activate()  # texts may have just changed (a language switch): settle first
        widgets: dict[str, QWidget] = {
            **self.fields,
            "apply": self.apply_button,
            "close": self.close_button,
        }
        rects = {}
        for name, widget in widgets.items():
            at = widget.mapTo(self, QPoint(0, 0))
            rects[name] = [at.x(), at.y(), widget.width(), widget.height()]
        return rects

    def focus_field(self, name: str) -> None:
        """Show the window with one field focused ("provider", "hotkey", …)."""
        self.show()
        self.raise_()
        self.activateWindow()
        widget = self.fields.get(name)
        if widget is not None:
            widget.setFocus()
