"""The list of suggestions: one item widget per row, updated in place as they stream in."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QVBoxLayout, QWidget
from termwise.overlay.suggestion_item import SuggestionItem
from termwise.overlay.view_model import SuggestionRow


class SuggestionList(QFrame):
    """A column of SuggestionItems (at most a handful, so no scrolling); never takes focus."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("suggestions")
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.column.setSpacing(4)
        self.widgets: list[SuggestionItem] = []
        self.selected = -1

    def set_rows(self, rows: list[SuggestionRow], selected: int) -> None:
        """Update rows in place (new ones appended) so streaming does not flicker."""
        while len(self.widgets) > len(rows):
            gone = self.widgets.pop()
            self.column.removeWidget(gone)
            gone.deleteLater()
        for i, row in enumerate(rows):
            if i < len(self.widgets):
                self.widgets[i].set_row(row)
            else:
                item = SuggestionItem(row, self)
                self.column.addWidget(item)
                self.widgets.append(item)
        self.selected = -1
        self.set_selected(selected)
        self.setVisible(bool(rows))

    def set_selected(self, index: int) -> None:
        for i, item in enumerate(self.widgets):
            item.set_selected(i == index)
        self.selected = index
