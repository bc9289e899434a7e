"""The list of suggestions, rebuilt from the view-model's rows as they stream in."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget
from termwise.overlay.suggestion_item import SuggestionItem
from termwise.overlay.view_model import SuggestionRow


class SuggestionList(QListWidget):
    """Suggestions with their item widgets; never takes focus (the input box keeps the keys)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSpacing(2)
        self.widgets: list[SuggestionItem] = []

    def set_rows(self, rows: list[SuggestionRow], selected: int) -> None:
        """Update rows in place (new ones appended) so streaming does not flicker."""
        while len(self.widgets) > len(rows):
            self.takeItem(len(self.widgets) - 1)
            self.widgets.pop()
        for i, row in enumerate(rows):
            if i < len(self.widgets):
                self.widgets[i].set_row(row)
                self.item(i).setSizeHint(self.widgets[i].sizeHint())
                continue
            widget = SuggestionItem(row)
            item = QListWidgetItem(self)
            item.setSizeHint(widget.sizeHint())
            self.setItemWidget(item, widget)
            self.widgets.append(widget)
        self.set_selected(selected)
        self.setVisible(bool(rows))
        self.setFixedHeight(self.content_height())

    def set_selected(self, index: int) -> None:
        if 0 <= index < self.count():
            self.setCurrentRow(index)
            self.scrollToItem(self.item(index))

    def content_height(self) -> int:
        total = sum(
            self.item(i).sizeHint().height() + 2 * self.spacing() for i in range(self.count())
        )
        return min(total + 4, 320)
