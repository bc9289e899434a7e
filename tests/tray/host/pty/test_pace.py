"""The flood pace: when the PTY reader naps between reads, and when it must not."""

from __future__ import annotations

from termwise.tray.host.pty.pace import BULK, FULL, MOMENT, NAP_FIRST, NAP_MOST, STREAK, FloodPace

QUICK = MOMENT / 10  # a read whose output came at once
SIZE = 65536  # the host's reads


def flooded(chunk: int = 2000) -> FloodPace:
    pace = FloodPace()
    for _ in range(STREAK):
        pace.after(chunk, QUICK, SIZE)
    return pace


def test_no_nap_until_output_keeps_coming_in_bulk() -> None:
    pace = FloodPace()
    for _ in range(STREAK - 1):
        pace.after(2000, QUICK, SIZE)
        assert pace.nap == 0
    pace.after(2000, QUICK, SIZE)
    assert pace.nap == NAP_FIRST


def test_small_chunks_double_the_nap_up_to_the_most() -> None:
    pace = flooded()
    naps = []
    for _ in range(20):
        pace.after(2000, QUICK, SIZE)
        naps.append(pace.nap)
    assert naps[0] == 2 * NAP_FIRST
    assert naps == sorted(naps)
    assert max(naps) == NAP_MOST


def test_a_chunk_near_what_the_pty_holds_stops_the_nap_at_once() -> None:
    """Large writes fill the PTY during a nap: the program would wait on us."""
    pace = flooded()
    pace.after(FULL, QUICK, SIZE)
    assert pace.nap == 0
    for _ in range(10):  # a flood of large writes keeps reading at once
        pace.after(65536, QUICK, SIZE)
        assert pace.nap == 0


def test_a_read_that_waited_ends_the_flood() -> None:
    pace = flooded()
    pace.after(2000, MOMENT * 5, SIZE)  # output paused: the user may be typing now
    assert pace.nap == 0
    pace.after(2000, QUICK, SIZE)  # a new flood is counted from the start
    assert pace.nap == 0


def test_echo_of_keys_typed_back_to_back_never_naps() -> None:
    """A program typing keys as fast as they echo: each read is a few bytes, at once."""
    pace = FloodPace()
    for _ in range(100):
        pace.after(1, QUICK, SIZE)
        assert pace.nap == 0
    pace = flooded()
    pace.after(BULK - 1, QUICK, SIZE)  # an echo right after a flood
    assert pace.nap == 0


def test_end_of_output_ends_the_nap() -> None:
    pace = flooded()
    pace.after(0, QUICK, SIZE)
    assert pace.nap == 0


def test_a_small_read_counts_as_full_at_half_its_size() -> None:
    """A caller reading 4 KiB at a time never has the PTY fill behind a nap."""
    pace = FloodPace()
    for _ in range(STREAK + 5):
        pace.after(2048, QUICK, 4096)
        assert pace.nap == 0
