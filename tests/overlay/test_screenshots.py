"""The overlay drawn off-screen, light and dark, English and Chinese: a smoke test of rendering.

The pictures go to a temporary folder only. The tracked ones in docs/screenshots come from
the journeys on a real desktop (tests/e2e/journeys/test_theme.py), so they have one source.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage
from termwise.agent.base.events import Finished, Status, SuggestionReady, VerdictReady
from termwise.agent.base.types import Block, SessionContext, Suggestion
from termwise.agent.safety import classify
from termwise.overlay.i18n import set_language
from termwise.overlay.overlay_window import OverlayWindow, no_model_notice
from termwise.overlay.theme import DARK, LIGHT, Theme
from termwise.overlay.view_model import OverlayViewModel

NPM_OUTPUT = """\
npm ERR! code ERESOLVE
npm ERR! ERESOLVE unable to resolve dependency tree
npm ERR!
npm ERR! While resolving: shop-frontend@0.4.2
npm ERR! Found: react@18.3.1
npm ERR! node_modules/react
npm ERR!   react@"^18.2.0" from the root project
npm ERR!
npm ERR! Could not resolve dependency:
npm ERR! peer react@"^17.0.0" from react-datepicker@4.8.0
npm ERR! Fix the upstream dependency conflict, or retry
npm ERR! this command with --force or --legacy-peer-deps
"""

# The verdicts are the real safety rules' verdicts; the last one also carries the
# safety model's explanation, as a turn would show it.
SUGGESTIONS = [
    (
        Suggestion(
            "npm install --legacy-peer-deps",
            "Install while ignoring the peer-dependency conflict, as npm 6 did.",
            source="rules",
            rule="npm_peer_deps",
        ),
        "",
    ),
    (
        Suggestion(
            "npm install react-datepicker@latest",
            "Upgrade react-datepicker to a release that supports React 18.",
            "Check its changelog for breaking changes.",
        ),
        "",
    ),
    (
        Suggestion(
            "rm -rf node_modules package-lock.json && npm install",
            "Start from a clean install so the lock file is rebuilt.",
            "Deletes node_modules and the lock file.",
        ),
        "Removes the installed packages and the lock file for good.",
    ),
]


# What a model answers a Chinese-speaking user (the prompt follows the user's language).
ZH_TEXT = {
    "Install while ignoring the peer-dependency conflict, as npm 6 did.": "忽略 peer 依赖冲突进行安装（npm 6 的行为）。",
    "Upgrade react-datepicker to a release that supports React 18.": "把 react-datepicker 升级到支持 React 18 的版本。",
    "Check its changelog for breaking changes.": "先看一下它的更新日志是否有不兼容的改动。",
    "Start from a clean install so the lock file is rebuilt.": "从干净状态重新安装，重新生成锁文件。",
    "Deletes node_modules and the lock file.": "会删除 node_modules 和锁文件。",
}


def _localized(s: Suggestion, language: str) -> Suggestion:
    if language != "zh_CN":
        return s
    return replace(
        s,
        explanation=ZH_TEXT.get(s.explanation, s.explanation),
        caveats=ZH_TEXT.get(s.caveats, s.caveats),
    )


def render(theme: Theme, language: str) -> OverlayWindow:
    """The overlay as a user sees it after a failed `npm install` and a finished turn."""
    set_language(language)
    vm = OverlayViewModel()
    window = OverlayWindow(vm, theme)
    ctx = SessionContext(
        blocks=[Block("npm install", NPM_OUTPUT, 1, "~/src/shop-frontend")],
        shell="bash",
        cwd="~/src/shop-frontend",
        session_id="2",
    )
    vm.show_session(ctx, position=2, count=3)
    vm.begin_turn()
    vm.apply(Status("asking the model…"))
    for i, (suggestion, explanation) in enumerate(SUGGESTIONS):
        verdict = classify(suggestion.command, "bash")._replace(explanation=explanation)
        vm.apply(SuggestionReady(i, _localized(suggestion, language)))
        vm.apply(VerdictReady(i, verdict))
    vm.apply(Finished())
    vm.select(2)
    window.set_notice("")
    window.retranslate()
    return window


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_screenshot(qtbot: Any, theme: Theme, language: str, tmp_path: Path) -> None:
    """Render the overlay and save it; the picture has the theme's background and real size."""
    window = render(theme, language)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    path = tmp_path / f"overlay-{theme.name}-{language}.png"
    assert window.grab().save(str(path))
    image = QImage(str(path))
    assert image.width() >= 600 and image.height() >= 400
    corner = image.pixelColor(image.width() // 2, 6).name()
    assert corner == theme.background  # the frame's own colour, not an empty window
    assert len(window.suggestions.widgets) == 3
    assert window.suggestions.widgets[2].badge.objectName() == "badge_dangerous"
    if language == "zh_CN":
        assert "退出码" in window.header.detail.text()
    assert no_model_notice()  # the catalogue loads in both languages
