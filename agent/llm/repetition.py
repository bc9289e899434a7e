"""Noticing a model stuck in a loop (`bash && linux-2.11.1 && bash && linux-2.11.1 && …`).

Weak local models can fall into repeating one phrase until their token budget ends,
which takes minutes on a laptop CPU. The guard looks at the tail of the answer every
`CHECK_EVERY` characters: when its last `MIN_SPAN` characters or more are one unit of
at most `MAX_UNIT` characters repeated at least `MIN_REPEATS` times, the model is looping.
Honest answers repeat structure (NDJSON keys, table rules), not whole runs this long.
"""

from __future__ import annotations

CHECK_EVERY = 128  # characters between two looks at the tail
MAX_UNIT = 200  # longest repeating unit looked for
MIN_REPEATS = 8  # this many copies in a row …
MIN_SPAN = 480  # … covering at least this many characters
_WINDOW = max(MAX_UNIT * MIN_REPEATS, MIN_SPAN) + MAX_UNIT


class RepetitionGuard:
    """Feed streamed text; `looping` turns True once the tail is one phrase over and over."""

    def __init__(self) -> None:
        self._tail = ""
        self._since = 0
        self.looping = False
        self.unit = ""  # the repeated phrase, once found

    def feed(self, text: str) -> bool:
        """Add text; True when the answer has become a loop."""
        if self.looping or not text:
            return self.looping
        self._tail = (self._tail + text)[-_WINDOW:]
        self._since += len(text)
        if self._since >= CHECK_EVERY:
            self._since = 0
            self._check()
        return self.looping

    def _check(self) -> None:
        tail = self._tail
        for unit in range(1, MAX_UNIT + 1):
            span = max(MIN_SPAN, unit * MIN_REPEATS)
            if span > len(tail):
                return
            window = tail[-span:]
            # A string of period `unit`: shifting it by one unit changes nothing.
            if window[unit:] == window[:-unit]:
                self.looping = True
                self.unit = window[-unit:]
                return
