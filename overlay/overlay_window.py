"""The floating overlay: built once at start-up, shown on the hotkey under the mouse.

It renders an `OverlayViewModel` and turns keys into signals; the controller decides
what they do (type, run, copy, explain, ask, cancel).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QCursor, QGuiApplication, QKeyEvent, QShowEvent
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget
from termwise.overlay.header import HeaderWidget
from termwise.overlay.i18n import tr
from termwise.overlay.input_box import InputBox
from termwise.overlay.output_view import OutputView
from termwise.overlay.qt_bridge import emit
from termwise.overlay.status_area import StatusArea
from termwise.overlay.suggestion_list import SuggestionList
from termwise.overlay.theme import Theme, pick_theme, stylesheet
from termwise.overlay.view_model import OverlayViewModel

WINDOW_TITLE = "Termwise"
WIDTH = 680
_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class OverlayWindow(QWidget):
    """Frameless, always-on-top window; every key the user presses becomes one signal."""

    submitted = Signal(str)  # input text ("" = fix the last failure)
    type_requested = Signal(int)  # row index: type the command, do not run it
    run_requested = Signal(int)
    copy_requested = Signal(int)
    explain_requested = Signal(int)
    cancel_requested = Signal()  # Esc: cancel what is in flight, then hide
    retry_requested = Signal()
    switch_session = Signal(int)  # +1 / -1
    settings_requested = Signal()

    def __init__(self, vm: OverlayViewModel, theme: Theme | None = None) -> None:
        super().__init__(None)
        self.vm = vm
        self.theme = theme or pick_theme()
        self.notice = ""
        self.can_run = True
        self.setWindowTitle(WINDOW_TITLE)
        self.setObjectName("overlay")
        self.setWindowFlags(
            Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint
            | Qt.WindowType.Tool
        )
        self.setFixedWidth(WIDTH)
        frame = QFrame(self)
        frame.setObjectName("overlayFrame")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(frame)
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        self.header = HeaderWidget(frame)
        self.output = OutputView(self.theme, frame)
        self.input = InputBox(frame)
        self.status = StatusArea(frame)
        self.suggestions = SuggestionList(frame)
        self.hints = QLabel(frame)
        self.hints.setObjectName("muted")
        for widget in (
            self.header,
            self.output,
            self.input,
            self.status,
            self.suggestions,
            self.hints,
        ):
            layout.addWidget(widget)
        self.input.installEventFilter(self)
        self.status.retry_clicked.connect(self.retry_requested)
        vm.listeners.append(self._on_vm_changed)
        self.apply_theme(self.theme)
        self.retranslate()
        self._render_all()

    # rendering -----------------------------------------------------------------
    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.setStyleSheet(stylesheet(theme))
        self.output.set_theme(theme)

    def retranslate(self) -> None:
        """Re-read every visible string (after a language change)."""
        self._render_hints()
        self.status.retry.setText(tr("Retry"))
        self._render_all()

    def set_can_run(self, can_run: bool) -> None:
        """Whether the session can run a command exactly; if not, the hints offer only typing."""
        self.can_run = can_run
        self._render_hints()

    def _render_hints(self) -> None:
        if self.can_run:
            text = tr(
                "↑/↓ choose · Enter type · Ctrl+Enter run · Ctrl+C copy · Ctrl+E explain · Esc close"
            )
        else:
            text = tr("↑/↓ choose · Enter type · Ctrl+C copy · Ctrl+E explain · Esc close")
        self.hints.setText(text)

    def set_notice(self, text: str) -> None:
        self.notice = text
        self._on_vm_changed("status")

    def _render_all(self) -> None:
        for part in ("context", "suggestions", "status"):
            self._on_vm_changed(part)

    def _on_vm_changed(self, part: str) -> None:
        vm = self.vm
        if part == "context":
            self.header.set_header(vm.header)
            self.output.set_lines(vm.output)
            self._input_mode()
        elif part == "suggestions":
            self.suggestions.set_rows(vm.rows, vm.selected)
            self._input_mode()
        elif part == "selection":
            self.suggestions.set_selected(vm.selected)
        elif part == "status":
            self.status.set_state(vm, self.notice)
            self._input_mode()
        self._fit()

    def _fit(self) -> None:
        """Height follows the content (wrapped labels included) at the fixed width."""
        layout = self.layout()
        if layout is None:
            return
        layout.activate()  # settle hidden/shown children before measuring
        height = layout.totalHeightForWidth(WIDTH) if layout.hasHeightForWidth() else -1
        self.resize(WIDTH, height if height > 0 else self.sizeHint().height())

    def _input_mode(self) -> None:
        if self.vm.question:
            self.input.set_mode("answer")
        elif self.vm.rows:
            self.input.set_mode("choose")
        elif self.vm.last_failed:
            self.input.set_mode("fix")
        else:
            self.input.set_mode("ask")

    # showing -------------------------------------------------------------------
    def show_at_cursor(self) -> None:
        """Show on the screen under the mouse, horizontally centred, in its upper third."""
        screen = QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()
        self._fit()
        if screen is not None:
            area = screen.availableGeometry()
            x = area.x() + (area.width() - self.width()) // 2
            y = area.y() + area.height() // 5
            self.move(QPoint(x, y))
        self.show()
        self.raise_()
        self.activateWindow()
        self.input.setFocus()

    def select_input(self) -> None:
        """A fresh open: the old query stays in view but selected, so typing replaces it."""
        self.input.selectAll()

    def showEvent(self, event: QShowEvent) -> None:
        self._fit()
        super().showEvent(event)

    # keys ----------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.input and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            return self.handle_key(event)
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.handle_key(event):
            super().keyPressEvent(event)

    def handle_key(self, event: QKeyEvent) -> bool:
        """Map a key to a signal; returns True when the key was used.

        Esc: cancel and close. Ctrl+Enter: run the selected command. Enter: send the typed
        text (or "" = fix the failure), or with nothing typed type the selected command.
        ↑/↓: choose. Tab / Shift+Tab: switch session. Ctrl+C: copy the selected command (when
        no input text is selected). Ctrl+E: explain it. F2: Settings.
        """
        key = event.key()
        mods = event.modifiers()
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        selected = self.vm.selected
        if key == Qt.Key.Key_Escape:
            emit(self.cancel_requested)
        elif key in _ENTER and ctrl:
            if selected >= 0:
                emit(self.run_requested, selected)
        elif key in _ENTER:
            text = self.input.text().strip()
            if text or selected < 0 or self.vm.question:
                self.input.clear()
                emit(self.submitted, text)
            else:
                emit(self.type_requested, selected)
        elif key == Qt.Key.Key_Up:
            self.vm.move(-1)
        elif key == Qt.Key.Key_Down:
            self.vm.move(+1)
        elif key == Qt.Key.Key_Tab:
            emit(self.switch_session, +1)
        elif key == Qt.Key.Key_Backtab:
            emit(self.switch_session, -1)
        elif key == Qt.Key.Key_C and ctrl and not self.input.hasSelectedText():
            if selected >= 0:
                emit(self.copy_requested, selected)
        elif key == Qt.Key.Key_E and ctrl:
            if selected >= 0:
                emit(self.explain_requested, selected)
        elif key == Qt.Key.Key_F2:
            emit(self.settings_requested)
        else:
            return False
        return True


def no_model_notice() -> str:
    return tr(
        "No model configured: instant suggestions only. A model adds more — F2 opens Settings."
    )
