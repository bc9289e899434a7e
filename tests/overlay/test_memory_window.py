"""The Memory… window, offscreen: lists entries, edits, deletes after asking, opens the folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot
from termwise.memory.store import MemoryStore
from termwise.overlay.memory_window import MemoryWindow


def _window(qtbot: QtBot, tmp_path: Path) -> tuple[MemoryWindow, MemoryStore]:
    store = MemoryStore(tmp_path / "memory")
    store.upsert("pref:editor", "profile", "uses Helix", ["preference"])
    store.upsert("fact:vpn", "fact", "the VPN interface is wg0")
    window = MemoryWindow(store)
    qtbot.addWidget(window)
    window.show()
    return window, store


def test_lists_entries_and_loads_one_into_the_editor(qtbot: QtBot, tmp_path: Path) -> None:
    """Every entry is listed; selecting one fills the form with its key, type, tags and content."""
    window, _ = _window(qtbot, tmp_path)
    assert window.keys() == ["pref:editor", "fact:vpn"]
    window.select("fact:vpn")
    assert window.key_edit.text() == "fact:vpn"
    assert window.type_box.currentText() == "fact"
    assert window.content_edit.toPlainText() == "the VPN interface is wg0"
    window.filter.setText("helix")
    hidden = [item.isHidden() for item in window.items()]
    assert hidden == [False, True]


def test_edit_and_rename_write_the_markdown(qtbot: QtBot, tmp_path: Path) -> None:
    """Saving an edited entry rewrites it on disk; a new key replaces the old one."""
    window, store = _window(qtbot, tmp_path)
    window.select("pref:editor")
    window.content_edit.setPlainText("uses Neovim now")
    window.key_edit.setText("pref:main_editor")
    with qtbot.waitSignal(window.changed, timeout=5000):
        qtbot.mouseClick(window.save_button, qtbot_button())
    assert store.get("pref:editor") is None
    assert store.get("pref:main_editor").content == "uses Neovim now"
    assert "uses Neovim now" in (tmp_path / "memory" / "profile.md").read_text(encoding="utf-8")
    assert "pref:main_editor" in window.keys() and "Saved pref:main_editor." in window.status.text()


def test_bad_input_is_shown_not_raised(qtbot: QtBot, tmp_path: Path) -> None:
    """A key with spaces is refused in the status line and nothing is written."""
    window, store = _window(qtbot, tmp_path)
    window.new_entry()
    window.key_edit.setText("two words")
    window.content_edit.setPlainText("x")
    qtbot.mouseClick(window.save_button, qtbot_button())
    assert "without spaces" in window.status.text()
    assert len(store.entries()) == 2


def test_delete_asks_first(qtbot: QtBot, tmp_path: Path) -> None:
    """Delete opens a question; "No" keeps the entry, "Yes" removes it from disk and list."""
    window, store = _window(qtbot, tmp_path)
    window.select("fact:vpn")
    for answer, expect_kept in (
        (QMessageBox.StandardButton.No, True),
        (QMessageBox.StandardButton.Yes, False),
    ):
        qtbot.mouseClick(window.delete_button, qtbot_button())
        qtbot.waitUntil(lambda: window.findChild(QMessageBox, "confirmDelete") is not None)
        box = window.findChild(QMessageBox, "confirmDelete")
        assert "Forget fact:vpn?" in box.text()
        qtbot.waitUntil(box.isVisible)
        box.button(answer).click()
        qtbot.waitUntil(_hidden(box))
        assert (store.get("fact:vpn") is not None) is expect_kept
        box.deleteLater()
        qtbot.waitUntil(lambda: window.findChild(QMessageBox, "confirmDelete") is None)
        if expect_kept:
            window.select("fact:vpn")
    assert window.keys() == ["pref:editor"]


def test_follows_changes_made_by_another_process(qtbot: QtBot, tmp_path: Path) -> None:
    """An entry added by `termwise mem add` (another store on the same folder) appears by itself."""
    window, _ = _window(qtbot, tmp_path)
    MemoryStore(tmp_path / "memory").upsert("goal:learn_go", "profile", "goal: learn Go")
    qtbot.waitUntil(lambda: "goal:learn_go" in window.keys(), timeout=5000)


def test_damaged_file_is_reported_in_the_window(qtbot: QtBot, tmp_path: Path) -> None:
    """A broken section is named with its file and line in the status line."""
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "facts.md").write_text(
        "## fact:a\n- type: nonsense\n- content: x\n", encoding="utf-8"
    )
    window = MemoryWindow(MemoryStore(folder))
    qtbot.addWidget(window)
    assert "facts.md:1" in window.status.text() and "kept as" in window.status.text()


def _hidden(box: QMessageBox) -> Callable[[], bool]:
    return lambda: not box.isVisible()


class _UrlCatcher(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def test_open_folder_opens_the_memory_folder(qtbot: QtBot, tmp_path: Path) -> None:
    """ "Open folder" asks the desktop to open the memory folder."""
    window, store = _window(qtbot, tmp_path)
    catcher = _UrlCatcher()
    QDesktopServices.setUrlHandler("file", catcher, "open")  # type: ignore[arg-type]
    try:
        qtbot.mouseClick(window.folder_button, qtbot_button())
        qtbot.waitUntil(lambda: bool(catcher.urls))
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert Path(catcher.urls[0].toLocalFile()) == store.root


def qtbot_button() -> Qt.MouseButton:
    return Qt.MouseButton.LeftButton
