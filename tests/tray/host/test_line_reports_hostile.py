"""Line reports and integration properties come from bytes a shell (or any program) prints:
they never raise, stay bounded, and cost linear work."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from termwise.tray.host.line import parse_line_report, refusal_for_text
from termwise.tray.host.stream import StreamParser
from termwise.tray.host.stream.parser import MAX_PROPERTIES

_PIECES = st.sampled_from(
    [
        b"\x1b]633;TermwiseBuffer;echo%20hi\x07",
        b"\x1b]633;TermwiseBuffer;%zz%\x07",
        b"\x1b]633;TermwiseBuffer;a;changed;x\x07",
        b"\x1b]633;TermwiseBuffer\x07",
        b"\x1b]633;P;TermwiseLine=report\x07",
        b"\x1b]633;P;=\x07",
        b"\x1b]633;P;\x07",
        b"\x1b]133;C\x07",
        b"\x1b]133;D;0\x07",
        b"%",
        b";",
        b"\x07",
    ]
)
_STREAM = st.lists(st.one_of(_PIECES, st.binary(max_size=30)), max_size=60).map(b"".join)


@given(st.binary(max_size=2000))
def test_parse_line_report_never_raises(payload: bytes) -> None:
    """Any payload decodes to bytes and a flag."""
    line, changed = parse_line_report(payload)
    assert isinstance(line, bytes) and isinstance(changed, bool)


@given(_STREAM)
def test_reports_and_properties_from_any_stream(data: bytes) -> None:
    """The parser hands every report to its listener and keeps a bounded property table."""
    seen: list[bytes] = []
    parser = StreamParser(on_line_report=seen.append)
    parser.feed(data)
    for payload in seen:
        parse_line_report(payload)
    assert len(parser.properties) <= MAX_PROPERTIES


def test_property_spam_is_bounded() -> None:
    """A program printing thousands of distinct properties cannot grow the table."""
    parser = StreamParser()
    parser.feed(b"".join(b"\x1b]633;P;K%d=v\x07" % i for i in range(5000)))
    assert len(parser.properties) == MAX_PROPERTIES


@given(st.text(max_size=500))
def test_refusal_for_text_never_raises(text: str) -> None:
    """Any text gets a verdict: typed as is, or a reason."""
    assert isinstance(refusal_for_text(text), str)


def test_a_huge_report_decodes_in_one_pass() -> None:
    """A megabyte-long report (escapes, separators) is decoded without quadratic work."""
    payload = b"%41%zz;" * 200_000 + b";changed"
    line, changed = parse_line_report(payload)
    assert changed is True and line == b"A%zz"  # the first ";" ends the line; flags follow
    parser = StreamParser(on_line_report=lambda p: None)
    parser.feed(b"\x1b]633;TermwiseBuffer;" + b"%41" * 20_000 + b"\x07")
