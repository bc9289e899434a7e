"""Benchmark: raw PTY read throughput of ~200 MB (the baseline the session host's relay
is compared against), and the same stream read through StreamParser.feed."""

from __future__ import annotations

import sys
import time

import pytest
from termwise.tray.host.pty import TerminationPolicy, spawn_pty
from termwise.tray.host.stream import StreamParser

TOTAL = 200_000_000
LINE = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod"


def producer_argv(total: int = TOTAL) -> list[str]:
    """A command printing `total` bytes of text lines as fast as it can."""
    return ["sh", "-c", f"yes '{LINE}' | head -c {total}"]


def pty_read_throughput(total: int = TOTAL, parse: bool = False) -> tuple[float, int, int]:
    """Read a producer's whole output from a PTY: (seconds, bytes, reads)."""
    parser = StreamParser() if parse else None
    pty = spawn_pty(producer_argv(total), rows=50, cols=200)
    got = reads = 0
    start = time.perf_counter()
    try:
        while True:
            chunk = pty.read(65536)
            if not chunk:
                break
            got += len(chunk)
            reads += 1
            if parser is not None:
                parser.feed(chunk)
        elapsed = time.perf_counter() - start
    finally:
        pty.terminate(TerminationPolicy(1, 1, 2))
        pty.close()
    return elapsed, got, reads


@pytest.mark.bench
@pytest.mark.skipif(sys.platform == "win32", reason="uses sh, yes and head")
def test_pty_raw_read_throughput() -> None:
    """Prints MB/s of raw PTY reads, then the same through the parser, and their ratio."""
    raw_s, raw_bytes, reads = pty_read_throughput()
    parsed_s, parsed_bytes, _ = pty_read_throughput(parse=True)
    # The PTY turns each \n into \r\n, so more bytes arrive than were written.
    assert raw_bytes >= TOTAL and parsed_bytes >= TOTAL
    raw_rate = raw_bytes / 1e6 / raw_s
    parsed_rate = parsed_bytes / 1e6 / parsed_s
    print(
        f"\nBENCH pty raw read: {raw_rate:.0f} MB/s ({raw_bytes / 1e6:.0f} MB in {raw_s:.2f} s, "
        f"{raw_bytes / reads / 1024:.1f} KiB per read)"
    )
    print(
        f"BENCH pty read + StreamParser.feed: {parsed_rate:.0f} MB/s "
        f"({parsed_rate / raw_rate:.2f}x raw)"
    )
