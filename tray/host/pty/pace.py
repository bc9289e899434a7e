"""Reading a flood late: a short nap between reads while a program prints line by line.

A program that writes one line at a time (`seq`, a build log, `cat` of a pipe) makes a
reader that is always waiting wake for every line: each wake costs the host, the attach
client and the terminal a round, and preempts the very program that prints. Napping a
fraction of a millisecond between reads lets the PTY gather several KiB first, as a
terminal that draws on a timer does. The nap is kept short enough that the PTY never fills
(a Linux PTY holds about 20 KiB from the program): a full PTY would make the program wait
on us instead.

Only while output keeps coming in bulk: a read that waited longer than a moment, or that
took only a few bytes (a key's echo, even under keys typed by a program), ends the nap,
so typing and echo never wait for it.
"""

from __future__ import annotations

NAP_FIRST = 0.0002  # seconds: the first nap once a flood is seen
NAP_MOST = 0.002  # never longer: output stays live to the eye
STREAK = 3  # reads in a row whose output came at once make a flood
MOMENT = 0.001  # seconds: a read that waited longer than this ends the flood
BULK = 256  # bytes: a chunk under this ends the flood
SMALL = 8192  # a chunk under this after a nap: the nap may double
FULL = 16384  # a chunk this big (or half the read): the PTY was close to full, no nap


class FloodPace:
    """How long to nap before the next read, from what the last reads found."""

    __slots__ = ("_streak", "nap")

    def __init__(self) -> None:
        self.nap = 0.0
        self._streak = 0

    def after(self, n: int, waited: float, size: int) -> None:
        """A read of at most `size` bytes took `n` after waiting `waited` seconds for the
        first of them."""
        if waited > MOMENT or n < BULK:
            self._streak = 0
            self.nap = 0.0
            return
        self._streak += 1
        if n >= FULL or n >= size // 2:
            # The program writes faster than napping allows (large writes): read at once.
            self.nap = 0.0
        elif self._streak >= STREAK and n < SMALL:
            self.nap = min(NAP_MOST, self.nap * 2) if self.nap else NAP_FIRST
