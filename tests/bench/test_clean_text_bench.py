"""Benchmark: last block -> clean text with a full 10 MB raw ring (goal: 5 ms or less).

Also prints the parser's feed throughput against a bare `bytes.find` scan of the same
chunks (the cheapest possible hot path), and clean_text throughput on whole outputs.
"""

from __future__ import annotations

import statistics
import time

import pytest
from termwise.tray.host.stream import StreamParser, clean_text

RING = 10 * 1024 * 1024
CHUNK = 4800  # what the kernel hands a PTY reader per read here (see RECIPES)


def osc(body: bytes) -> bytes:
    return b"\x1b]" + body + b"\x07"


def colour_lines(n: int, seed: int) -> bytes:
    """ls/grep/compiler-like output: every line has a few colour changes."""
    return b"".join(
        b"\x1b[01;34mdir%d\x1b[0m  \x1b[01;32mrun.sh\x1b[0m  src/mod_%d.py:%d: \x1b[31merror\x1b[0m: "
        b"name 'x' is not defined\r\n" % (seed, i, i)
        for i in range(n)
    )


def progress(n: int) -> bytes:
    """pip/curl-like progress: one line redrawn n times with \\r and erase-line."""
    return b"".join(
        b"\r\x1b[2K  \x1b[32m%s\x1b[0m %3d%%" % (b"#" * (i % 40), i % 101) for i in range(n)
    )


def command(cmd: bytes, output: bytes, code: int) -> bytes:
    return (
        osc(b"133;A")
        + b"\x1b[32mu@h\x1b[0m:\x1b[34m~/src\x1b[0m$ "
        + osc(b"133;B")
        + cmd
        + b"\r\n"
        + osc(b"633;E;" + cmd)
        + osc(b"133;C")
        + output
        + osc(b"7;file://h/home/u/src")
        + osc(b"133;D;%d" % code)
    )


def session_bytes(last_output: bytes) -> bytes:
    """About 10.5 MB of mixed history, then one last command with `last_output`."""
    parts: list[bytes] = []
    size = 0
    i = 0
    while size < RING + RING // 20:
        out = colour_lines(200, i) if i % 3 else progress(3000) + b"\r\ndone\r\n"
        part = command(b"make test%d" % i, out, i % 2)
        parts.append(part)
        size += len(part)
        i += 1
    parts.append(command(b"make last", last_output, 2))
    return b"".join(parts)


def feed(parser: StreamParser, data: bytes) -> float:
    start = time.perf_counter()
    for i in range(0, len(data), CHUNK):
        parser.feed(data[i : i + CHUNK])
    return time.perf_counter() - start


def median_ms(fn, repeat: int = 30) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


LAST_OUTPUTS = {
    "colour, 200 lines": colour_lines(200, 999),
    "colour, 20k lines (capped)": colour_lines(20_000, 999),
    "progress, 10k redraws": progress(10_000) + b"\r\ndone\r\n",
    "plain, 2 MB (capped)": b"plain output line without escapes\r\n" * 60_000,
}


@pytest.mark.bench
@pytest.mark.parametrize("kind", list(LAST_OUTPUTS))
def test_last_block_clean_text_from_a_full_ring(kind: str) -> None:
    """Prints the median time to turn the last block into clean text, ring full."""
    data = session_bytes(LAST_OUTPUTS[kind])
    parser = StreamParser(ring_bytes=RING)
    feed(parser, data)
    assert len(parser.raw_tail(RING * 2)) == RING  # the ring really is full
    last = parser.blocks(1)[0]
    assert last.command == "make last"
    text = last.text()
    ms = median_ms(lambda: parser.blocks(1)[0].text())
    print(
        f"\nBENCH last-block clean text [{kind}]: {ms:.2f} ms median "
        f"(goal <= 5 ms; block {len(last.output) / 1024:.0f} KiB raw -> "
        f"{len(text) / 1024:.0f} KiB text; ring {RING // (1024 * 1024)} MiB full)"
    )


@pytest.mark.bench
def test_feed_throughput_against_a_bare_scan() -> None:
    """Prints parser feed MB/s and its ratio to a bare `bytes.find` pass over the chunks."""
    data = session_bytes(colour_lines(200, 1))
    chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]
    start = time.perf_counter()
    for chunk in chunks:
        chunk.find(b"\x1b]")
    bare = time.perf_counter() - start
    parser = StreamParser(ring_bytes=RING)
    start = time.perf_counter()
    for chunk in chunks:
        parser.feed(chunk)
    parsed = time.perf_counter() - start
    mb = len(data) / 1e6
    print(
        f"\nBENCH parser feed: {mb / parsed:.0f} MB/s ({mb:.1f} MB, {len(chunks)} reads, "
        f"{len(parser.blocks())} blocks); bare find {mb / bare:.0f} MB/s; "
        f"parser/bare time ratio {parsed / bare:.1f}x"
    )


@pytest.mark.bench
@pytest.mark.parametrize("kind", ["plain", "colour", "progress"])
def test_clean_text_throughput(kind: str) -> None:
    """Prints clean_text MB/s on 1 MB of each kind of output, uncapped."""
    sample = {
        "plain": b"plain output line without escapes\r\n" * 30_000,
        "colour": colour_lines(8_000, 3),
        "progress": progress(30_000),
    }[kind]
    ms = median_ms(lambda: clean_text(sample), repeat=5)
    print(
        f"\nBENCH clean_text [{kind}]: {len(sample) / 1e3 / ms:.0f} MB/s on {len(sample) / 1e6:.1f} MB"
    )
