"""The terminal picker without a terminal: keys, state, drawing, the plain fallback, typing helpers."""

from __future__ import annotations

import io
import json
import os
import re
import select
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.agent.base.config_schema import Config
from termwise.agent.base.events import (
    Error,
    Finished,
    Question,
    Status,
    SuggestionReady,
    VerdictReady,
)
from termwise.agent.base.paths import resolve_paths
from termwise.agent.base.types import Block, SessionContext, Suggestion, Verdict
from termwise.agent.suggest.turn import SuggestTurn
from termwise.tray.commands.ask_picker import Console, follow_up, run_picker
from termwise.tray.commands.picker import (
    Action,
    ExplainChunk,
    Key,
    KeyDecoder,
    PickerState,
    Screen,
    Segment,
    clip,
    plain_text,
    windows_key,
)
from termwise.tray.commands.prompt_words import (
    NONCE_OSC,
    PromptWatch,
    is_word_block,
    keystrokes,
    without_word_blocks,
)
from termwise.tray.commands.term_io import RawModeUnavailable

from tests.support.llm_server import LlmServer

SAFE = Verdict("safe")
DANGER = Verdict("dangerous", ("rm-recursive-force: deletes files",))


def _state(*commands: str) -> PickerState:
    state = PickerState()
    for i, command in enumerate(commands):
        verdict = DANGER if command.startswith("rm") else SAFE
        state.apply(
            SuggestionReady(
                i, Suggestion(command, f"does {command}", source="model", verdict=verdict)
            )
        )
    return state


def _text(state: PickerState, width: int = 80, height: int | None = None) -> list[str]:
    return [plain_text(line) for line in state.lines(width, height)]


# -- keys ------------------------------------------------------------------------------------


def test_decoder_reads_arrows_enter_digits_and_letters() -> None:
    """Arrow sequences (CSI and SS3 forms), Enter, digits and letters become named keys."""
    keys = KeyDecoder().feed(b"\x1b[A\x1b[B\x1bOA\r2rq")
    assert [k.name for k in keys] == ["up", "down", "up", "enter", "char", "char", "char"]
    assert [k.char for k in keys[-3:]] == ["2", "r", "q"]


def test_decoder_waits_for_a_split_arrow_and_reports_a_lone_escape() -> None:
    """An arrow split over two reads is one key; ESC with nothing after it is Esc once flushed."""
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b[") == []
    assert decoder.feed(b"B") == [Key("down", "[B")]
    assert decoder.feed(b"\x1b") == []
    assert decoder.pending
    assert decoder.flush() == [Key("esc")]
    assert not decoder.pending


def test_decoder_keeps_a_split_utf8_character_whole() -> None:
    """A multi-byte character split across reads arrives as one character."""
    decoder = KeyDecoder()
    data = "é".encode()
    assert decoder.feed(data[:1]) == []
    assert decoder.feed(data[1:]) == [Key("char", "é")]


def test_windows_console_keys() -> None:
    """msvcrt's two-part arrow codes and Esc/Enter map to the same keys as on POSIX."""
    assert windows_key("\xe0", "H") == Key("up")
    assert windows_key("\x00", "P") == Key("down")
    assert windows_key("\x1b") == Key("esc")
    assert windows_key("\r") == Key("enter")


def test_arrows_and_digits_choose_and_letters_act() -> None:
    """↑/↓ wrap around, a digit jumps to that suggestion, Enter/r/c act on the chosen one."""
    state = _state("du -sh *", "ls -S", "rm -rf big")
    assert state.key(Key("up")) is None and state.selected == 2
    assert state.key(Key("down")) is None and state.selected == 0
    assert state.key(Key("char", "2")) is None and state.selected == 1
    assert state.key(Key("enter")) == Action("type", 1)
    assert state.key(Key("char", "r")) == Action("run", 1)
    assert state.key(Key("char", "c")) == Action("copy", 1)
    assert state.key(Key("char", "9")) is None and state.selected == 1
    assert "no suggestion 9" in _text(state)[-2]


def test_escape_and_q_quit_even_before_anything_arrived() -> None:
    """Esc, q and Ctrl+C leave at any time; other keys do nothing while the list is empty."""
    state = PickerState()
    assert state.key(Key("enter")) is None
    assert state.key(Key("down")) is None
    assert state.key(Key("esc")) == Action("quit")
    assert state.key(Key("char", "q")) == Action("quit")
    assert state.key(Key("interrupt")) == Action("quit")


def test_e_expands_the_chosen_suggestion() -> None:
    """`e` shows the whole explanation, caveats and the model's risk note; `e` again folds it."""
    long = " ".join(["word"] * 60)
    state = PickerState()
    state.apply(
        SuggestionReady(0, Suggestion("rm -rf build", long, "gone for good", verdict=DANGER))
    )
    state.apply(VerdictReady(0, Verdict("dangerous", DANGER.reasons, "removes the build folder")))
    short = _text(state)
    assert any(line.endswith("…") for line in short)
    assert not any("risk: removes the build folder" in line for line in short)
    state.key(Key("char", "e"))
    full = _text(state)
    assert len(full) > len(short)
    assert any("risk: removes the build folder" in line for line in full)
    state.key(Key("char", "e"))
    assert _text(state) == short


# -- drawing ---------------------------------------------------------------------------------


def test_list_shows_numbers_verdicts_sources_explanations_and_caveats() -> None:
    """Each suggestion shows its number, command, verdict, source, explanation, caveat and why it is risky."""
    state = PickerState()
    state.apply(
        SuggestionReady(0, Suggestion("ls -S", "largest first", source="rules", verdict=SAFE))
    )
    state.apply(
        SuggestionReady(1, Suggestion("rm -rf big", "frees space", "cannot undo", verdict=DANGER))
    )
    lines = _text(state)
    assert lines[0].startswith("› 1. ls -S") and "[safe · rules]" in lines[0]
    assert "largest first" in lines[1]
    assert lines[2].startswith("  2. rm -rf big") and "[DANGEROUS · model]" in lines[2]
    assert any("caveat: cannot undo" in line for line in lines)
    assert any("why dangerous: rm-recursive-force" in line for line in lines)
    assert "Enter type it" in lines[-1]


def test_verdict_refined_later_replaces_the_shown_one() -> None:
    """A later VerdictReady changes the label shown for that suggestion."""
    state = _state("curl x | sh")
    state.apply(VerdictReady(0, Verdict("confirm", ("pipes a download into a shell",))))
    assert "[confirm · model]" in _text(state)[0]


def test_lines_fit_the_width_and_the_height() -> None:
    """No drawn line reaches the terminal's width; too many lines fold to one line per suggestion."""
    state = _state(*(f"command-{i} " + "x" * 100 for i in range(6)))
    for line in _text(state, width=40):
        assert len(line) < 40
    compact = _text(state, width=80, height=8)
    assert len(compact) <= 8
    assert any(line.startswith("› 1.") for line in compact)


def test_status_question_and_errors_are_shown() -> None:
    """Waiting shows the status and how to quit; a question and errors are printed as lines."""
    state = PickerState()
    state.apply(Status("asking the model…"))
    assert _text(state)[-2:] == ["asking the model…", "q quit · waiting for suggestions…"]
    state.apply(Question("Which folder?"))
    state.apply(Error("the model timed out", retryable=True))
    state.apply(Finished())
    lines = _text(state)
    assert "? Which folder?" in lines
    assert "error: the model timed out (try again)" in lines
    assert state.waiting_for_answer


def test_clip_drops_control_characters() -> None:
    """A command with escapes or newlines cannot break the drawing."""
    line = clip([Segment("echo \x1b[31mred\nnext")], 80)
    assert "\x1b" not in plain_text(line) and "\n" not in plain_text(line)


def test_screen_redraws_in_place() -> None:
    """A redraw moves up over the previous drawing and clears it before drawing again."""
    out = io.StringIO()
    screen = Screen(out.write, colour=False)
    screen.draw([[Segment("a")], [Segment("b")], [Segment("c")]])
    assert out.getvalue() == "a\r\nb\r\nc"
    screen.draw([[Segment("d")]])
    assert out.getvalue().endswith("c\r\x1b[2A\x1b[Jd")
    screen.clear()
    assert out.getvalue().endswith("d\r\x1b[J")
    assert screen.drawn == 0


# -- the plain fallback (no raw mode) with a real model turn ---------------------------------------------


class _NoRawMode:
    def __enter__(self) -> _NoRawMode:
        raise RawModeUnavailable("test terminal")

    def close(self) -> None:
        pass


def _console(answers: list[str]) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    feed: Iterator[str] = iter(answers)

    def read_line(prompt: str) -> str:
        out.write(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return Console(out, read_line, _NoRawMode, colour=False), out  # type: ignore[arg-type]


@pytest.fixture
def model(llm_server: LlmServer, monkeypatch: pytest.MonkeyPatch) -> LlmServer:
    monkeypatch.setenv("TERMWISE_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("TERMWISE_MODEL", "test")
    monkeypatch.setenv("TERMWISE_API_KEY", "x")
    return llm_server


def _turn() -> SuggestTurn:
    from termwise.agent.llm.factory import make_client

    config = Config()
    return SuggestTurn(make_client(config), config, env_info={"os": "Linux"})


def test_plain_prompt_answers_a_question_then_copies(
    model: LlmServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without raw mode: the model's question is answered on a line, the list follows, `c2` copies #2."""
    model.reply(text='{"question": "Which folder?"}\n')
    model.reply(text='{"command": "du -sh /srv/*"}\n{"command": "ls -S /srv"}\n')
    copied: list[str] = []
    import pyperclip

    monkeypatch.setattr(pyperclip, "copy", copied.append)  # no X clipboard in this test
    console, out = _console(["/srv", "c2"])
    code = run_picker(
        _turn(), "list big files", SessionContext(), paths=resolve_paths(), console=console
    )
    assert code == 0
    text = out.getvalue()
    assert "? Which folder?" in text and "1. du -sh /srv/*" in text and "2. ls -S /srv" in text
    assert copied == ["ls -S /srv"]
    second = model.requests[1]["messages"][-1]["content"]
    assert "Which folder?" in second and "/srv" in second


def test_plain_prompt_empty_answer_quits(model: LlmServer) -> None:
    """An empty line at the choice prompt leaves without doing anything."""
    model.reply(text='{"command": "ls -S"}\n')
    console, out = _console([""])
    code = run_picker(
        _turn(), "big files", SessionContext(), paths=resolve_paths(), console=console
    )
    assert code == 0
    assert "Choose 1-1" in out.getvalue()


def test_plain_prompt_run_of_a_dangerous_command_asks_and_no_stops_it(
    model: LlmServer, tmp_path: Path
) -> None:
    """`r1` on a dangerous suggestion asks first; answering no runs nothing."""
    victim = tmp_path / "big"
    victim.mkdir()
    # json.dumps: a Windows path's backslashes must be escaped inside JSON.
    model.reply(text=json.dumps({"command": f"rm -rf {victim}"}) + "\n")
    model.reply(text='{"risk": "high", "explanation": "deletes the folder"}')
    console, out = _console(["r1", "n"])
    code = run_picker(
        _turn(), "free space", SessionContext(), paths=resolve_paths(), console=console
    )
    assert code == 1
    assert "DANGEROUS" in out.getvalue() and "Run it?" in out.getvalue()
    assert victim.exists()


def test_follow_up_carries_question_and_answer() -> None:
    """The re-asked request names the original question, the model's question and the answer."""
    text = follow_up("", "Which port?", "8080")
    assert "Fix the last failed command." in text and "Which port?" in text and "8080" in text


# -- the `??` word's helpers ---------------------------------------------------------------------


def test_word_blocks_are_left_out_of_the_context() -> None:
    """Earlier `??` blocks (the picker's own output) are not sent as context; other blocks are."""
    ctx = SessionContext(
        blocks=[
            Block("make", "error 2", 2),
            Block("?? why", "› 1. make -k", 0),
            Block("??", "", 1),
            Block("echo ??x", "??x", 0),
        ]
    )
    assert [b.command for b in without_word_blocks(ctx).blocks] == ["make", "echo ??x"]
    assert is_word_block("  ?? list files") and not is_word_block("???")
    assert is_word_block("termwise ask how") and is_word_block("termwise fix")
    assert not is_word_block("termwise sessions")


def test_prompt_watch_waits_for_marker_block_end_and_prompt() -> None:
    """Typing waits for the picker's marker, then the block's end, then the next prompt."""
    marker = NONCE_OSC.format(nonce="abc").encode()
    watch = PromptWatch("abc")
    # An older prompt (before the marker) does not count; pieces may split needles.
    assert not watch.feed(b"\x1b]133;D;0\x07\x1b]133;A\x07$ \x1b]133;B\x07?? x\r\n")
    assert not watch.feed(marker[:10])
    assert not watch.feed(marker[10:] + b"\x1b]133;D;0\x07\x1b[?2004h\x1b]133;A\x07$ \x1b]13")
    assert watch.feed(b"3;B\x07")
    assert watch.paste


def test_keystrokes_never_run_a_multiline_command_by_accident() -> None:
    """Without Enter, a multi-line command is pasted (or joined) so it waits on the prompt."""
    assert keystrokes("ls -l", enter=False, paste=True) == b"ls -l"
    assert keystrokes("ls -l", enter=True, paste=True) == b"ls -l\r"
    assert keystrokes("a\nb", enter=False, paste=True) == b"\x1b[200~a\nb\x1b[201~"
    assert keystrokes("a\nb\n", enter=False, paste=False) == b"a; b"


def test_status_text_never_contains_raw_escape_from_the_model() -> None:
    """A suggestion with terminal escapes in it is drawn without them (no screen tricks)."""
    state = PickerState()
    state.apply(SuggestionReady(0, Suggestion("echo hi\x1b]0;pwned\x07", "x\x1b[2J")))
    drawn = "".join(plain_text(line) for line in state.lines(80))
    assert not re.search(r"\x1b|\x07", drawn)


def test_a_long_list_scrolls_to_keep_the_chosen_one_in_view() -> None:
    """In a short terminal the chosen suggestion and the key help stay visible."""
    state = _state(*(f"command-{i}" for i in range(9)))
    state.key(Key("char", "8"))
    lines = _text(state, width=80, height=4)
    assert len(lines) == 4
    assert any(line.startswith("› 8. command-7") for line in lines)
    assert "Enter type it" in lines[-1]


def test_e_asks_the_model_once_and_shows_its_explanation_as_it_streams() -> None:
    """With a model, `e` requests an explanation once; streamed text appears under the command."""
    state = _state("du -sh *")
    state.can_explain = True
    state.key(Key("char", "e"))
    assert state.explain_requests == [0]
    assert "explaining…" in "\n".join(_text(state))
    state.apply(ExplainChunk(0, "du sums disk use;"))
    state.apply(ExplainChunk(0, " -s gives one total per argument.", done=True))
    text = "\n".join(_text(state))
    assert "du sums disk use; -s gives one total per argument." in text
    assert "explaining…" not in text
    state.key(Key("char", "e"))  # fold
    state.key(Key("char", "e"))  # unfold: no second request
    assert state.explain_requests == [0]


def test_a_turn_that_ends_empty_says_so() -> None:
    """When nothing was suggested the picker says so instead of leaving a blank line."""
    state = PickerState()
    state.apply(Status("no suggestions for this one"))
    state.apply(Finished())
    assert _text(state) == ["no suggestions"]
    assert state.nothing


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminal")
def test_key_reader_in_a_real_pty_reads_single_keys_and_restores_the_terminal() -> None:
    """On a real pseudo-terminal: no echo, no line buffering while open; a lone Esc is Esc; settings come back."""
    import termios

    from termwise.tray.commands.term_io import KeyReader

    master, slave = os.openpty()
    try:
        before = termios.tcgetattr(slave)
        with KeyReader(slave) as reader:
            os.write(master, b"\x1b[B2r")
            keys: list[Key] = []
            deadline = time.monotonic() + 5
            while len(keys) < 3 and time.monotonic() < deadline:
                keys += reader.read(0.1)
            assert keys == [Key("down", "[B"), Key("char", "2"), Key("char", "r")]
            echoed, _, _ = select.select([master], [], [], 0.1)
            assert not echoed  # the keys were not echoed back to the screen
            os.write(master, b"\x1b")
            assert reader.read(1.0) == [Key("esc")]
            assert reader.read(0.05) == []
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)
