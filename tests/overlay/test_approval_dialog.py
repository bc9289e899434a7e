"""The approval dialog as a person uses it: what Enter, Esc and closing DO, and how danger looks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QFrame
from termwise.agent.base.types import Verdict
from termwise.agent.safety.approval_flow import approval_request, settle
from termwise.agent.safety.approvals import ApprovalStore
from termwise.overlay.approval_dialog import ApprovalDialog
from termwise.overlay.theme import DARK, LIGHT, Theme, palette

DANGER = Verdict("dangerous", ("rm-recursive-force: deletes recursively",))
CONFIRM = Verdict("confirm", ("changes: pushes commits",))


def shown(qtbot: Any, verdict: Verdict, command: str) -> tuple[ApprovalDialog, list[str]]:
    dialog = ApprovalDialog(approval_request(command, "bash", verdict))
    qtbot.addWidget(dialog)
    answers: list[str] = []
    dialog.chosen.connect(answers.append)
    dialog.open()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.deny_button)
    return dialog, answers


@pytest.mark.parametrize(
    ("verdict", "command"), [(DANGER, "rm -rf ~/build"), (CONFIRM, "git push origin main")]
)
def test_enter_denies(qtbot: Any, verdict: Verdict, command: str) -> None:
    """Enter pressed on the shown dialog (at whatever has the focus) is Deny, for both levels."""
    dialog, answers = shown(qtbot, verdict, command)
    assert dialog.deny_button.text() == "Deny (Enter)" and dialog.deny_button.isDefault()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert answers == ["deny"] and not dialog.isVisible()


def colours(image: QImage) -> set[str]:
    """Every colour a rendered widget shows."""
    return {
        image.pixelColor(x, y).name() for x in range(image.width()) for y in range(image.height())
    }


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_the_default_button_looks_like_the_default(qtbot: Any, qapp: Any, theme: Theme) -> None:
    """In either theme the button Enter presses is bold and framed in the theme's accent; no
    other button is bold or shows that colour."""
    before = qapp.palette()
    qapp.setPalette(palette(theme))
    try:
        dialog, _ = shown(qtbot, CONFIRM, "git push origin main")
        deny = dialog.deny_button
        assert deny.isDefault() and deny.font().bold()
        accent = QColor(theme.accent).name()
        assert accent in colours(deny.grab().toImage())
        others = [b for b in dialog.buttons.values() if b is not deny]
        assert len(others) == 5
        for button in others:
            assert not button.isDefault() and not button.font().bold()
            assert accent not in colours(button.grab().toImage()), button.text()
    finally:
        qapp.setPalette(before)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_the_danger_frame_follows_the_theme(qtbot: Any, qapp: Any, theme: Theme) -> None:
    """The red frame's tint suits the theme: its text stays readable on its background."""
    before = qapp.palette()
    qapp.setPalette(palette(theme))
    try:
        dialog, _ = shown(qtbot, DANGER, "rm -rf ~/build")
        image = dialog.findChild(QFrame, "danger").grab().toImage()
        inside = image.pixelColor(image.width() - 6, image.height() // 2)
        window = QColor(theme.background)
        # Dark theme: a dark tint; light theme: a light one — never a pale box in the dark.
        assert (inside.lightness() < 128) == (window.lightness() < 128), inside.name()
        heading = dialog.heading.palette().color(dialog.heading.foregroundRole())
        assert abs(heading.lightness() - inside.lightness()) > 100
    finally:
        qapp.setPalette(before)


def test_enter_on_the_dialog_itself_denies(qtbot: Any) -> None:
    """Enter delivered to the dialog (not a button) presses its default: Deny."""
    dialog, answers = shown(qtbot, DANGER, "rm -rf ~/build")
    qtbot.keyClick(dialog, Qt.Key.Key_Enter)
    assert answers == ["deny"]


def test_esc_and_closing_deny_once(qtbot: Any, tmp_path: Path) -> None:
    """Esc and the window's close button are the one-time deny: nothing runs, nothing is saved."""
    store = ApprovalStore(tmp_path / "approvals.yaml")
    dialog, answers = shown(qtbot, DANGER, "rm -rf ~/build")
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    assert answers == ["deny"]
    assert settle(store, dialog.request, answers[0]).runs is False
    closing, closed = shown(qtbot, CONFIRM, "git push origin main")
    closing.close()
    assert closed == ["deny"]
    assert store.entries() == [] and not (tmp_path / "approvals.yaml").exists()


def test_dangerous_looks_different_and_offers_no_always(qtbot: Any) -> None:
    """Dangerous: red frame, its own heading and icon, no always/session/wildcard buttons."""
    dialog, _ = shown(qtbot, DANGER, "rm -rf ~/build")
    assert dialog.heading.text() == "This command is dangerous"
    assert set(dialog.buttons) == {"once", "deny", "never"}
    assert dialog.findChild(object, "danger") is not None
    assert "rm-recursive-force" in dialog.reasons.text()
    confirm, _ = shown(qtbot, CONFIRM, "git push origin main")
    assert confirm.heading.text() == "This command needs your confirmation"
    assert confirm.findChild(object, "danger") is None
    assert confirm.buttons["pattern"].text() == "Always allow git push *"
    assert set(confirm.buttons) == {"once", "session", "always", "pattern", "deny", "never"}


def test_always_deny_is_its_own_button(qtbot: Any, tmp_path: Path) -> None:
    """Only "Always deny" saves a deny; clicking it answers "never"."""
    store = ApprovalStore(tmp_path / "approvals.yaml")
    dialog, answers = shown(qtbot, CONFIRM, "git push origin main")
    qtbot.mouseClick(dialog.buttons["never"], Qt.MouseButton.LeftButton)
    assert answers == ["never"]
    assert settle(store, dialog.request, "never").remembered == "deny"
    assert store.decide("git push origin main", "bash", CONFIRM) == "deny"


def test_the_log_says_what_the_dialog_offers(qtbot: Any, caplog: pytest.LogCaptureFixture) -> None:
    """Once on screen, the dialog logs its visible buttons and the one Enter presses (the
    end-to-end journeys read them there); the answer is logged too."""
    caplog.set_level("INFO", logger="termwise.overlay.approval_dialog")
    shown(qtbot, DANGER, "rm -rf ~/build")
    qtbot.waitUntil(lambda: any(r.msg.startswith("approval shown") for r in caplog.records))
    record = next(r for r in caplog.records if r.msg.startswith("approval shown"))
    offered = getattr(record, "event")  # noqa: B009 (set through `extra`)
    assert offered["dangerous"] is True and offered["heading"] == "This command is dangerous"
    assert offered["buttons"] == {
        "once": "Run once",
        "deny": "Deny (Enter)",
        "never": "Always deny",
    }
    assert offered["focus"] == "deny" and offered["default"] == "deny"
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert any(r.getMessage() == "approval answered: deny" for r in caplog.records)
