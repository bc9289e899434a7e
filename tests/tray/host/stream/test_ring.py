"""The bounded buffers behind the raw ring and capped block output."""

from __future__ import annotations

import pytest
from termwise.tray.host.stream import ByteRing, HeadTailBuffer


def test_ring_keeps_the_newest_bytes() -> None:
    """Appends past the capacity push the oldest bytes out and count them."""
    ring = ByteRing(10)
    for part in (b"abcd", b"efgh", b"ijkl"):
        ring.append(part)
    assert ring.getvalue() == b"cdefghijkl"
    assert (len(ring), ring.total, ring.dropped) == (10, 12, 2)
    assert ring.tail(3) == b"jkl"
    assert ring.tail(6) == b"ghijkl"
    assert ring.tail(100) == b"cdefghijkl"


def test_ring_with_one_huge_append() -> None:
    """A single append bigger than the ring keeps only its end."""
    ring = ByteRing(4)
    ring.append(b"xy")
    ring.append(b"0123456789")
    assert ring.getvalue() == b"6789"
    assert ring.dropped == 8


def test_ring_rejects_zero_capacity() -> None:
    """A ring without room is a programming error, said at once."""
    with pytest.raises(ValueError):
        ByteRing(0)


def test_head_tail_small_output_is_untouched() -> None:
    """Output under the limit comes back byte for byte."""
    buf = HeadTailBuffer(100)
    buf.append(b"hello\r\n")
    buf.append(b"world\r\n")
    assert buf.getvalue() == b"hello\r\nworld\r\n"
    assert buf.dropped == 0


def test_head_tail_cuts_at_a_line_start() -> None:
    """When the middle is dropped, the tail starts at a whole line and a note says how much."""
    buf = HeadTailBuffer(40)
    for i in range(100):
        buf.append(b"line %02d\r\n" % i)
    value = buf.getvalue()
    head, _, tail = value.partition(b"[... ")
    assert head.startswith(b"line 00\r\nline 01\r\n")
    assert tail.split(b"...]\r\n")[1].startswith(b"line ")
    assert value.endswith(b"line 99\r\n")
    assert b"bytes of output dropped by termwise" in value
