"""clean_text gives the text a user saw on screen."""

from __future__ import annotations

import pytest
from termwise.tray.host.stream import clean_text

CASES = [
    (b"a\rb\rdone\n", "done\n", "carriage-return rewrites collapse to the final state"),
    (b"plain\r\nlines\r\n", "plain\nlines\n", "\\r\\n becomes \\n"),
    (b"\x1b[1;31mred\x1b[0m and \x1b[38;5;42mgreen\x1b[m", "red and green", "colours dropped"),
    (b"abc\x08\x08X", "aXc", "backspace moves left, the next byte overwrites"),
    (b"foo\x1b[Kbar", "foobar", "erase to end of line at the end erases nothing"),
    (b"long line\r\x1b[Kshort", "short", "\\r + erase-line replaces the line"),
    (b"50%\r\x1b[2K100%\n", "100%\n", "erase whole line, then redraw"),
    (b"12345\x1b[3D\x1b[1Kx", "  x45", "erase to start of line blanks up to the cursor"),
    (b"a\x1b]0;window title\x07b", "ab", "OSC (title) dropped, BEL terminated"),
    (b"a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb", "ST-terminated OSC hyperlink"),
    (b"\x1b[?25l\x1b[?2004hx\x1b[?25h", "x", "private modes dropped"),
    (b"\x1b(Bx\x1b=y\x1b>", "xy", "two-byte escapes dropped"),
    (b"bell\x07 null\x00 del\x7f", "bell null del", "stray control bytes dropped"),
    (b"tab\tkept", "tab\tkept", "tabs kept"),
    (b"caf\xc3\xa9 \xe2\x9c\x93", "café ✓", "UTF-8 decoded"),
    (b"bad \xff byte", "bad \ufffd byte", "invalid UTF-8 replaced, not fatal"),
    (b"line1\nline2\x1b[A\rLINE1\n", "LINE1\nline2", "cursor up rewrites the line above"),
    (b"[###  ]\x1b[6D#####\n", "[#####]\n", "cursor left then overwrite"),
    (b"ab\x1b[5Gx", "ab  x", "column absolute pads with spaces"),
    (b"", "", "empty input"),
]


@pytest.mark.parametrize(("raw", "expected", "why"), CASES, ids=[c[2] for c in CASES])
def test_clean_text(raw: bytes, expected: str, why: str) -> None:
    """Each raw terminal stream becomes what the screen showed."""
    assert clean_text(raw) == expected, why


def test_progress_bar_with_many_updates() -> None:
    """A thousand progress redraws on one line collapse to the last one."""
    raw = b"".join(b"\rprogress %d%%" % i for i in range(1001)) + b"\r\nok\r\n"
    assert clean_text(raw) == "progress 1000%\nok\n"


def test_zsh_prompt_sp_padding_is_invisible() -> None:
    """zsh's end-of-output marker (reverse `%`, spaces, `\\r \\r`) leaves no text behind."""
    raw = b"hi\r\n\x1b[1m\x1b[7m%\x1b[27m\x1b[1m\x1b[0m" + b" " * 79 + b"\r \r"
    assert clean_text(raw).rstrip("\n") == "hi"


def test_line_reset_at_the_start_of_a_line() -> None:
    """`\\r` + erase-line right at a line's start drops everything drawn before it."""
    assert clean_text(b"\r\x1b[Kfirst\r\x1b[Klast") == "last"
    assert clean_text(b"old text\x1b[2K\rnew") == "new"


def test_multi_line_redraw_with_cursor_up() -> None:
    """Two progress lines redrawn in place with cursor-up end in their final state."""
    raw = b"a: 10%\r\nb: 10%\r\n"
    raw += b"\x1b[2A\ra: 100%\x1b[K\r\nb: 100%\x1b[K\r\n"
    assert clean_text(raw) == "a: 100%\nb: 100%\n"


def test_redraw_moving_between_lines_within_one_line_of_bytes() -> None:
    """Cursor up/down between line clears (docker-style) is replayed, not shortcut."""
    raw = b"a: 10%\r\nb: 10%"
    raw += b"\x1b[1A\r\x1b[2Ka: 100%\x1b[1B\r\x1b[2Kb: 100%\r\n"
    assert clean_text(raw) == "a: 100%\nb: 100%\n"


def test_many_redraws_with_colours_keep_only_the_last() -> None:
    """A coloured progress line redrawn ten thousand times shows only its last state."""
    raw = b"".join(b"\r\x1b[2K\x1b[32m%s\x1b[0m %d%%" % (b"#" * (i % 40), i) for i in range(10_000))
    assert clean_text(raw + b"\r\n") == "#" * (9999 % 40) + " 9999%\n"
