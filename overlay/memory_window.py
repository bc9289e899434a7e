"""The Memory… window: lists every remembered entry, edits and deletes them, opens the folder."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from termwise.memory.errors import MemoryStoreError
from termwise.memory.format import TYPES, Entry
from termwise.memory.store import MemoryStore
from termwise.overlay.i18n import tr

REFRESH_DELAY_MS = 200  # files change in bursts (temp file, rename, index): refresh once


class MemoryWindow(QWidget):
    """Browse and edit the Markdown memory; follows changes other processes make on disk."""

    changed = Signal()  # an entry was saved or deleted here

    def __init__(self, store: MemoryStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.setWindowTitle(tr("Termwise memory"))
        self.resize(820, 520)
        self._editing_key: str | None = None
        self._confirm_box: QMessageBox | None = None

        self.filter = QLineEdit(placeholderText=tr("Filter…"))
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels([tr("Key"), tr("Type"), tr("Updated"), tr("Content")])
        self.tree.setRootIsDecorated(False)
        self.tree.setColumnWidth(0, 200)

        self.key_edit = QLineEdit()
        self.type_box = QComboBox()
        self.type_box.addItems(list(TYPES))
        self.tags_edit = QLineEdit(placeholderText=tr("comma-separated"))
        self.content_edit = QPlainTextEdit()
        self.save_button = QPushButton(tr("Save"))
        self.delete_button = QPushButton(tr("Delete"))
        self.new_button = QPushButton(tr("New"))
        self.folder_button = QPushButton(tr("Open folder"))
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        self.labels: dict[str, QLabel] = {}
        for text, field in (
            ("Key", self.key_edit),
            ("Type", self.type_box),
            ("Tags", self.tags_edit),
            ("Content", self.content_edit),
        ):
            self.labels[text] = QLabel(tr(text))
            form.addRow(self.labels[text], field)
        buttons = QHBoxLayout()
        for button in (self.new_button, self.save_button, self.delete_button):
            buttons.addWidget(button)
        editor = QWidget()
        editor_layout = QVBoxLayout(editor)
        editor_layout.addLayout(form)
        editor_layout.addLayout(buttons)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.filter)
        left_layout.addWidget(self.tree)
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(editor)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.folder_button)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        layout.addLayout(bottom)

        self._refresh_timer = QTimer(self)
        self._refresh_timer.setObjectName("memoryRefreshTimer")
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_DELAY_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(lambda _path: self._refresh_timer.start())
        self._watcher.fileChanged.connect(lambda _path: self._refresh_timer.start())

        self.tree.currentItemChanged.connect(self._on_select)
        self.filter.textChanged.connect(self._apply_filter)
        self.save_button.clicked.connect(self.save)
        self.delete_button.clicked.connect(self.ask_delete)
        self.new_button.clicked.connect(self.new_entry)
        self.folder_button.clicked.connect(self.open_folder)
        self.refresh()

    # -- listing ---------------------------------------------------------------------------

    def retranslate(self) -> None:
        """Every fixed text again in the current language (the same widgets, new texts)."""
        self.setWindowTitle(tr("Termwise memory"))
        self.filter.setPlaceholderText(tr("Filter…"))
        self.tree.setHeaderLabels([tr("Key"), tr("Type"), tr("Updated"), tr("Content")])
        self.tags_edit.setPlaceholderText(tr("comma-separated"))
        for button, text in (
            (self.save_button, "Save"),
            (self.delete_button, "Delete"),
            (self.new_button, "New"),
            (self.folder_button, "Open folder"),
        ):
            button.setText(tr(text))
        for text, label in self.labels.items():
            label.setText(tr(text))

    def refresh(self) -> None:
        """Re-read the files (damage is reported in the status line) and keep the selection."""
        selected = self._editing_key
        self.tree.blockSignals(True)
        self.tree.clear()
        try:
            located = self.store.located()
        except MemoryStoreError as exc:
            located = []
            self._show_status(str(exc), error=True)
        for _rel, loc in located:
            entry = loc.entry
            preview = entry.content.replace("\n", " ")
            item = QTreeWidgetItem([entry.key, entry.type, entry.updated_at, preview[:200]])
            item.setData(0, Qt.ItemDataRole.UserRole, entry.key)
            item.setToolTip(3, entry.content)
            self.tree.addTopLevelItem(item)
            if entry.key == selected:
                self.tree.setCurrentItem(item)
        self.tree.blockSignals(False)
        self._apply_filter(self.filter.text())
        if self.store.problems:
            lines = [str(p) for p in self.store.problems]
            self._show_status(tr("Damaged memory set aside:") + "\n" + "\n".join(lines), True)
        self._watch()

    def items(self) -> list[QTreeWidgetItem]:
        found = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [item for item in found if item is not None]

    def keys(self) -> list[str]:
        """Keys in the list, top to bottom, visible or not."""
        return [str(item.data(0, Qt.ItemDataRole.UserRole)) for item in self.items()]

    def select(self, key: str) -> None:
        for item in self.items():
            if item.data(0, Qt.ItemDataRole.UserRole) == key:
                self.tree.setCurrentItem(item)
                return

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for item in self.items():
            haystack = f"{item.text(0)} {item.toolTip(3)}".lower()
            item.setHidden(bool(needle) and needle not in haystack)

    def _watch(self) -> None:
        paths = [self.store.root, self.store.root / "episodes"]
        paths += [self.store.path_of(rel) for rel in self.store.files()]
        wanted = {str(p) for p in paths if p.exists()}
        current = set(self._watcher.files()) | set(self._watcher.directories())
        if wanted - current:
            self._watcher.addPaths(sorted(wanted - current))

    # -- editing ---------------------------------------------------------------------------

    def _on_select(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        if item is None:
            return
        key = item.data(0, Qt.ItemDataRole.UserRole)
        entry = self.store.get(key)
        if entry is not None:
            self._load(entry)

    def _load(self, entry: Entry) -> None:
        self._editing_key = entry.key
        self.key_edit.setText(entry.key)
        self.type_box.setCurrentText(entry.type)
        self.tags_edit.setText(", ".join(entry.tags))
        self.content_edit.setPlainText(entry.content)

    def new_entry(self) -> None:
        self._editing_key = None
        self.tree.clearSelection()
        self.key_edit.clear()
        self.type_box.setCurrentText("fact")
        self.tags_edit.clear()
        self.content_edit.clear()
        self.key_edit.setFocus()

    def save(self) -> None:
        """Write the form as an entry; renaming the key moves it (the old key is removed)."""
        key = self.key_edit.text().strip()
        tags = [t.strip() for t in self.tags_edit.text().split(",") if t.strip()]
        try:
            self.store.upsert(
                key, self.type_box.currentText(), self.content_edit.toPlainText(), tags
            )
            if self._editing_key and self._editing_key != key:
                self.store.delete(self._editing_key)
        except MemoryStoreError as exc:
            self._show_status(str(exc), error=True)
            return
        self._editing_key = key
        self._show_status(tr("Saved {key}.", key=key))
        self.refresh()
        self.changed.emit()

    def ask_delete(self) -> None:
        """Ask before forgetting the selected entry (non-blocking box)."""
        key = self._editing_key
        if not key:
            self._show_status(tr("Select an entry to delete."), error=True)
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            tr("Delete memory"),
            tr("Forget {key}?", key=key),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setObjectName("confirmDelete")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.finished.connect(lambda result: self._delete_answered(key, result))
        self._confirm_box = box
        box.open()

    def _delete_answered(self, key: str, result: int) -> None:
        self._confirm_box = None
        if result != QMessageBox.StandardButton.Yes.value:
            return
        try:
            self.store.delete(key)
        except MemoryStoreError as exc:
            self._show_status(str(exc), error=True)
            return
        self.new_entry()
        self._show_status(tr("Forgot {key}.", key=key))
        self.refresh()
        self.changed.emit()

    def open_folder(self) -> None:
        self.store.root.mkdir(parents=True, exist_ok=True)
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.store.root))):
            self._show_status(tr("Could not open {path}.", path=str(self.store.root)), True)

    def _show_status(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setProperty("error", error)
        self.status.setStyleSheet("color: #c62828;" if error else "")

    def folder(self) -> Path:
        return self.store.root
