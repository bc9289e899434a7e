"""Bytes anyone can print never break the parser or the screen renderer, and cost linear work."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from termwise.tray.host.stream import StreamParser, clean_text
from termwise.tray.host.stream.parser import path_from_file_url

# Pieces of real terminal traffic, so the fuzzer reaches the handlers, not only plain text.
_PIECES = st.sampled_from(
    [
        b"\x1b]133;A\x07",
        b"\x1b]133;B\x07",
        b"\x1b]133;C\x07",
        b"\x1b]133;D;1\x07",
        b"\x1b]133;D;99999999999999999999999\x07",
        b"\x1b]633;E;echo \\x41\\\\\x07",
        b"\x1b]633;P;Cwd=/tmp\x07",
        b"\x1b]7;file://[::1/x\x07",
        b"\x1b]7;file://host/%zz%\x07",
        b"\x1b]9;9;\x07",
        b"\x1b]1337;CurrentDir=\x07",
        b"\x1b[?1049h",
        b"\x1b[?1049l",
        b"\x1b[400000000C",
        b"\x1b[100000000B",
        b"\x1b[99999999999999999999D",
        b"\x1b[1K",
        b"\x1b[2K",
        b"\x1b[K",
        b"\r",
        b"\x08",
        b"\n",
        b"\x1b",
        b"\x1b[",
        b"\x1b\\",
        b"\xff\xfe",
        "é中".encode(),
    ]
)
_STREAM = st.lists(st.one_of(_PIECES, st.binary(max_size=40)), max_size=60).map(b"".join)


@given(_STREAM, st.lists(st.integers(min_value=1, max_value=64), max_size=20))
def test_feed_never_raises_at_any_split(data: bytes, cuts: list[int]) -> None:
    """Any bytes, split anywhere, are taken; the blocks and screen can always be read."""
    parser = StreamParser()
    pos = 0
    for cut in cuts:
        parser.feed(data[pos : pos + cut])
        pos += cut
    parser.feed(data[pos:])
    parser.end_of_stream(0)
    for block in parser.blocks():
        block.text()
    text = parser.screen_text(24, 80)
    assert len(text) <= 24 * 81


@given(_STREAM)
def test_clean_text_never_raises_and_stays_proportional(data: bytes) -> None:
    """The clean text is never more than a bounded multiple of its input."""
    text = clean_text(data)
    # Cursor moves may pad a line out to the screen edge, never further.
    assert len(text) <= 8 * len(data) + 4096 * (data.count(b"\x1b") + 1)


@given(st.binary(max_size=200))
def test_file_urls_never_raise(raw: bytes) -> None:
    path_from_file_url(raw)


@pytest.mark.timeout(60)
def test_huge_cursor_counts_render_small() -> None:
    """15 printed bytes once made `context` spin for minutes at 1.4 GB; now the move stops at the edge."""
    for seq in (b"a\x1b[400000000Cb\n", b"a\x1b[100000000Bb\n", b"a\x1b[999999999999999G\n"):
        text = clean_text(seq * 200)
        assert len(text) < 10_000_000
        assert ("a" in text and "b" in text) or "\n" in text


@pytest.mark.timeout(60)
def test_long_lines_wrap_and_rewrite_in_linear_work() -> None:
    """A megabyte line, rewritten by backspaces and erases, renders without quadratic work."""
    line = b"x" * 1_000_000 + b"\x08\x1b[1K" * 50_000 + b"\rdone\x1b[K\n"
    parser = StreamParser()
    parser.feed(line)
    assert parser.screen_text(24, 80).endswith("done")
    assert clean_text(line).rstrip().endswith("done")


def test_a_malformed_osc7_keeps_the_previous_folder() -> None:
    parser = StreamParser()
    parser.feed(b"\x1b]7;file://host/home/u\x07")
    parser.feed(b"\x1b]7;file://[::1/x\x07")  # used to raise ValueError: Invalid IPv6 URL
    assert parser.cwd in ("/home/u", "/x")
    parser.feed(b"\x1b]133;A\x07\x1b]133;B\x07ls\x1b]133;C\x07out\n\x1b]133;D;0\x07")
    assert [b.command for b in parser.blocks()] == ["ls"]
