"""The overlay's state machine: what a turn's events leave on screen."""

from __future__ import annotations

from termwise.agent.base.events import (
    Error,
    Finished,
    Question,
    Status,
    SuggestionReady,
    VerdictReady,
)
from termwise.agent.base.types import Block, SessionContext, Suggestion, Verdict
from termwise.overlay.view_model import OUTPUT_TAIL_LINES, OverlayViewModel, is_error_line


def _ctx(output: str, code: int | None = 1) -> SessionContext:
    return SessionContext(blocks=[Block("make", output, code, "/src")], shell="bash", cwd="/src")


def test_progress_status_goes_when_results_came_but_a_final_word_stays() -> None:
    """'asking the model…' disappears after suggestions; 'no suggestions' stays after Finished."""
    vm = OverlayViewModel()
    vm.begin_turn()
    vm.apply(Status("asking the model…"))
    vm.apply(SuggestionReady(0, Suggestion("make clean")))
    vm.apply(Finished())
    assert vm.status == "" and not vm.busy
    vm.begin_turn()
    vm.apply(Status("asking the model…"))
    vm.apply(Status("no suggestions for this one"))
    vm.apply(Finished())
    assert vm.status == "no suggestions for this one"


def test_verdicts_update_rows_and_selection_stays_inside() -> None:
    """A later verdict replaces the row's; ↑/↓ never leave the list."""
    vm = OverlayViewModel()
    vm.begin_turn()
    vm.apply(SuggestionReady(0, Suggestion("a")))
    vm.apply(SuggestionReady(1, Suggestion("b")))
    assert vm.rows[1].risk == "unknown" and vm.selected == 0
    vm.apply(VerdictReady(1, Verdict("dangerous", ("r1",), "why")))
    assert vm.rows[1].risk == "dangerous" and vm.rows[1].risk_tooltip == "r1\nwhy"
    vm.move(+5)
    assert vm.selected == 1
    vm.move(-5)
    assert vm.selected == 0


def test_question_and_error_are_kept_for_the_screen() -> None:
    """A clarifying question and an error (with its retry flag) are shown until the next turn."""
    vm = OverlayViewModel()
    vm.begin_turn()
    vm.apply(Question("which branch?"))
    vm.apply(Error("model timed out", retryable=True))
    vm.apply(Finished())
    assert vm.question == "which branch?" and vm.error == "model timed out"
    assert vm.error_retryable
    vm.begin_turn()
    assert vm.question == "" and vm.error == ""


def test_output_tail_and_error_lines() -> None:
    """Only the last lines of a long output are kept; error lines are marked."""
    lines = [f"line {i}" for i in range(100)] + ["make: *** [all] Error 2"]
    vm = OverlayViewModel()
    vm.show_session(_ctx("\n".join(lines)), position=1, count=1)
    assert len(vm.output) == OUTPUT_TAIL_LINES
    assert vm.output[-1].error and not vm.output[0].error
    assert vm.last_failed and vm.header.command == "make"
    assert is_error_line("bash: foo: command not found")
    assert not is_error_line("Compiling main.c")


def test_clipboard_context_has_no_failure() -> None:
    """With the clipboard as context nothing counts as a failed command."""
    vm = OverlayViewModel()
    vm.show_clipboard(SessionContext(clipboard_text="Traceback (most recent call last):"))
    assert vm.header.source == "clipboard" and not vm.last_failed
    assert vm.output[0].error


def test_npm_err_lines_are_highlighted() -> None:
    """npm writes its failures as `npm ERR! …`; those lines are errors to the eye too."""
    assert is_error_line("npm ERR! code ELIFECYCLE")
    assert not is_error_line("added 12 packages in 3s")
