"""The search index kept beside the Markdown files: one block of words and postings per file.

`index/search.bin` is derived data; the Markdown files stay the truth. Per memory file a
block records the file's identity when it was read (inode, size, mtime, CRC-32 of its
bytes) and, per entry, its date, title line and byte span in the file, plus two small
inverted indexes: the word runs of the lower-cased key, and of the lower-cased content
and tags, each word with the entries holding it. Every query term lies inside one word
run (terms are made of the same characters), so "the entries whose text contains the
term" is the union of the postings of the words containing it, found with `bytes.find`
over the block's word list: the same answer as the plain scan in `retrieve`, without
reading or parsing the Markdown. Hits are read back from their byte span in the file.

The file is a header (magic, CRC-32 and length of the body) and the body: the build
identity (Unicode version, byte order: lower-casing and word runs depend on them), then
the blocks. `load` never raises: a foreign, truncated or damaged file gives None, and the
caller rebuilds. What the CRC cannot vouch for (a body written by hand with a matching
CRC) is checked where it is used and raises `CorruptIndex`, which callers also answer
with a rebuild. Writers replace the file atomically; each block carries the identity of
the file it came from, so a block written by a slower writer is only ever stale, and a
stale block is rebuilt, never trusted.
"""

from __future__ import annotations

import heapq
import os
import struct
import sys
import unicodedata
import zlib
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Literal

from termwise.memory.format import Entry, parse_text
from termwise.memory.retrieve import WORD_RUN_RE

MAGIC = b"TWMSRCH1"
_HEAD = struct.Struct("<8sIQ")  # magic, CRC-32 of the body, body length
_COUNT = struct.Struct("<I")
# rel length, inode, size, mtime_ns, CRC-32 of the file, flags, entries, oldest and newest
# day, then per column (key, text): word list bytes, words, postings.
_BLOCK = struct.Struct("<HQQqIBIII" + "III" * 2)
RACY = 1  # the file changed too close to its reading for its mtime to vouch for it
KEY, TEXT = 0, 1
_U32: Literal["I"] = "I"
_U32_ONE = struct.Struct("=I")
_SPAN = struct.Struct("=QQ")
MAX_SECTION = 1 << 26  # bytes; a longer span is a damaged index, not a memory

Sig = tuple[int, int, int]


class CorruptIndex(Exception):
    """The index does not hold together (the caller rebuilds it from the files)."""


class StaleIndex(Exception):
    """A memory file changed after its block was made (the caller rebuilds the block)."""

    def __init__(self, rel: str) -> None:
        super().__init__(rel)
        self.rel = rel


def build_identity() -> bytes:
    """What the words depend on besides the files: a change means a rebuild."""
    return f"1|{sys.byteorder}|{unicodedata.unidata_version}|{array(_U32).itemsize}".encode()


def _ino(value: int) -> int:
    return value & 0xFFFF_FFFF_FFFF_FFFF  # some file systems have wider inode numbers


def file_sig(ino: int, size: int, mtime_ns: int) -> Sig:
    """A file's identity as blocks record it."""
    return (_ino(ino), size, mtime_ns)


class Column:
    """One inverted index of a block: its word list lives in `data` between `lo` and `hi`,
    each word followed by b"\\n"; its arrays are read on the first match."""

    __slots__ = ("_arrays", "_at", "_postings", "_words", "data", "hi", "lo")

    def __init__(self, data: bytes, lo: int, hi: int, words: int, postings: int) -> None:
        self.data, self.lo, self.hi = data, lo, hi
        self._at, self._words, self._postings = hi, words, postings
        self._arrays: tuple[Sequence[int], Sequence[int], Sequence[int]] | None = None

    @property
    def end(self) -> int:
        return self.hi + 4 * (2 * self._words + 1 + self._postings)

    def arrays(self) -> tuple[Sequence[int], Sequence[int], Sequence[int]]:
        """Where each word begins (from lo); word k's postings are
        postings[bounds[k]:bounds[k + 1]]; postings are entry numbers within the block."""
        if self._arrays is None:
            view = memoryview(self.data)
            at, words = self._at, self._words
            starts = view[at : at + 4 * words].cast(_U32)
            at += 4 * words
            bounds = view[at : at + 4 * (words + 1)].cast(_U32)
            at += 4 * (words + 1)
            postings = view[at : at + 4 * self._postings].cast(_U32)
            if bounds[0] != 0 or bounds[-1] != len(postings) or (words and starts[0] != 0):
                raise CorruptIndex("a word list that does not hold together")
            self._arrays = (starts, bounds, postings)
        return self._arrays

    def ids(self, term: bytes, count: int) -> Sequence[int] | set[int] | None:
        """Entries (numbers within the block) whose text contains term, or None."""
        data, lo, hi = self.data, self.lo, self.hi
        at = data.find(term, lo, hi)
        if at < 0:
            return None
        starts, bounds, postings = self.arrays()
        last = len(starts) - 1
        groups: list[Sequence[int]] = []
        while at >= 0:
            k = bisect_right(starts, at - lo) - 1
            if k < 0:
                raise CorruptIndex("a match before the first word")
            first, stop = bounds[k], bounds[k + 1]
            if not 0 <= first <= stop <= len(postings):
                raise CorruptIndex("postings out of range")
            group = postings[first:stop]
            if group and max(group) >= count:
                raise CorruptIndex("a posting past the last entry")
            groups.append(group)
            if k == last:
                break
            after = lo + starts[k + 1]
            if after <= at:
                raise CorruptIndex("words out of order")
            at = data.find(term, after, hi)
        if len(groups) == 1:
            return groups[0]
        return set().union(*groups)


class Block:
    """The index of one memory file: its identity when read, per entry the day, title line
    and byte span, and the two columns; it lives in `data` from `at` to `end`."""

    __slots__ = (
        "_arrays_at",
        "_dates",
        "at",
        "columns",
        "count",
        "data",
        "digest",
        "end",
        "flags",
        "newest",
        "oldest",
        "rel",
        "sig",
    )  # fmt: skip

    def __init__(self, rel: str, head: tuple[int, ...], data: bytes, at: int, arrays_at: int,
                 columns: tuple[Column, Column]) -> None:  # fmt: skip
        self.rel = rel
        self.sig: Sig = (head[1], head[2], head[3])
        self.digest, self.flags, self.count, self.oldest, self.newest = head[4:9]
        self.data, self.at, self.end = data, at, columns[1].end
        self.columns = columns
        self._arrays_at = arrays_at
        self._dates: Sequence[int] | None = None

    @property
    def racy(self) -> bool:
        return bool(self.flags & RACY)

    @property
    def raw(self) -> memoryview:
        return memoryview(self.data)[self.at : self.end]

    @property
    def dates(self) -> Sequence[int]:
        """Day ordinal of each entry (0: no date)."""
        if self._dates is None:
            at = self._arrays_at
            self._dates = memoryview(self.data)[at : at + 4 * self.count].cast(_U32)
        return self._dates

    def line(self, i: int) -> int:
        """The 1-based line of entry i's title."""
        at = self._arrays_at + 4 * self.count + 4 * i
        return int(_U32_ONE.unpack_from(self.data, at)[0])

    def span(self, i: int) -> tuple[int, int]:
        """Byte start and end of entry i's section in the file."""
        at = self._arrays_at + 8 * self.count + 16 * i
        start, end = _SPAN.unpack_from(self.data, at)
        if not start <= end or end - start > MAX_SECTION:
            raise CorruptIndex("a section span out of range")
        return int(start), int(end)

    def with_identity(self, sig: Sig, flags: int) -> Block:
        """The same words for a file that was checked unchanged under a new identity."""
        raw = bytearray(self.raw)
        head = list(_BLOCK.unpack_from(raw, 0))
        head[1:6] = [_ino(sig[0]), sig[1], sig[2], self.digest, flags]
        _BLOCK.pack_into(raw, 0, *head)
        block, _ = _parse_block(bytes(raw), 0)
        assert block is not None
        return block


@dataclass(frozen=True)
class Spanned:
    """An entry of the file being indexed: the entry, its title line and its byte span."""

    entry: Entry
    line: int
    start: int
    end: int


def line_offsets(data: bytes) -> list[int]:
    """Byte offset of the start of every line (split at b"\\n"), and one past the end."""
    lengths = accumulate(map(len, data.split(b"\n")), initial=0)
    return [total + i for i, total in enumerate(lengths)]


def build_block(rel: str, sig: Sig, digest: int, flags: int, entries: Sequence[Spanned]) -> Block:
    """Index the entries of one file (read when it had identity `sig` and CRC `digest`)."""
    dates = array(_U32)
    for item in entries:
        day = item.entry.updated_date()
        dates.append(day.toordinal() if day is not None else 0)
    lines = array(_U32, (item.line for item in entries))
    spans = array("Q")
    for item in entries:
        spans.extend((item.start, item.end))
    key_words = [WORD_RUN_RE.findall(item.entry.key.lower()) for item in entries]
    text_words = [
        WORD_RUN_RE.findall((item.entry.content + " " + " ".join(item.entry.tags)).lower())
        for item in entries
    ]
    parts = [_column_parts(key_words), _column_parts(text_words)]
    rel_bytes = rel.encode("utf-8", "surrogatepass")
    head = _BLOCK.pack(
        len(rel_bytes), _ino(sig[0]), sig[1], sig[2], digest, flags, len(entries),
        min(dates, default=0), max(dates, default=0),
        *(n for words, starts, bounds, postings in parts
          for n in (len(words), len(starts), len(postings))),
    )  # fmt: skip
    chunks = [head, rel_bytes, dates.tobytes(), lines.tobytes(), spans.tobytes()]
    for words, starts, bounds, postings in parts:
        chunks += [words, starts.tobytes(), bounds.tobytes(), postings.tobytes()]
    raw = b"".join(chunks)
    block, _ = _parse_block(raw, 0)
    assert block is not None
    return block


def _column_parts(
    per_entry: Sequence[Iterable[str]],
) -> tuple[bytes, array[int], array[int], array[int]]:
    table: dict[str, list[int]] = {}
    for i, found in enumerate(per_entry):
        for word in set(found):
            table.setdefault(word, []).append(i)
    encoded = [word.encode("utf-8", "surrogatepass") for word in table]
    starts = array(_U32, accumulate((len(w) + 1 for w in encoded), initial=0))
    starts.pop()
    postings = array(_U32)
    bounds = array(_U32, [0])
    for ids in table.values():
        postings.extend(ids)
        bounds.append(len(postings))
    words = b"".join(w + b"\n" for w in encoded)
    return words, starts, bounds, postings


def _parse_block(data: bytes, at: int) -> tuple[Block | None, int]:
    """The block at `at` and where the next one starts; (None, 0) when it does not fit.
    Only sizes are checked here; the arrays are checked where they are used."""
    if at + _BLOCK.size > len(data):
        return None, 0
    head = _BLOCK.unpack_from(data, at)
    rel_len, count = head[0], head[6]
    pos = at + _BLOCK.size
    try:
        rel = data[pos : pos + rel_len].decode("utf-8")
    except UnicodeDecodeError:
        return None, 0
    pos += rel_len
    arrays_at = pos
    pos += 24 * count  # dates and lines (4 bytes each), spans (2 x 8)
    columns = []
    for c in range(2):
        n_bytes, n_words, n_postings = head[9 + 3 * c : 12 + 3 * c]
        column = Column(data, pos, pos + n_bytes, n_words, n_postings)
        columns.append(column)
        pos = column.end
    if not rel or pos > len(data):
        return None, 0
    return Block(rel, head, data, at, arrays_at, (columns[0], columns[1])), pos


def load(data: bytes) -> dict[str, Block] | None:
    """The blocks of an index file by file name; None for anything but a sound index."""
    if len(data) < _HEAD.size:
        return None
    magic, crc, length = _HEAD.unpack_from(data, 0)
    if magic != MAGIC or length != len(data) - _HEAD.size:
        return None
    if zlib.crc32(memoryview(data)[_HEAD.size :]) != crc:
        return None
    identity = build_identity() + b"\n"
    at = _HEAD.size + len(identity)
    if data[_HEAD.size : at] != identity or at + _COUNT.size > len(data):
        return None
    (count,) = _COUNT.unpack_from(data, at)
    at += _COUNT.size
    blocks: dict[str, Block] = {}
    for _ in range(count):
        block, at = _parse_block(data, at)
        if block is None or block.rel in blocks:
            return None
        blocks[block.rel] = block
    if at != len(data):
        return None
    return blocks


def dump(blocks: Iterable[Block]) -> list[bytes | memoryview]:
    """The index file for these blocks, in pieces (joining them would double the memory)."""
    items = list(blocks)
    body: list[bytes | memoryview] = [build_identity() + b"\n", _COUNT.pack(len(items))]
    body += [b.raw for b in items]
    crc = 0
    for piece in body:
        crc = zlib.crc32(piece, crc)
    return [_HEAD.pack(MAGIC, crc, sum(len(piece) for piece in body)), *body]


@dataclass(frozen=True)
class Candidate:
    """A scored entry: which block, which entry in it, and its rank."""

    score: int
    day: int
    order: int  # the entry's place among all entries: later wins a tie
    block: Block
    number: int


def rank(blocks: Sequence[Block], terms: Sequence[str], n: int, today: int,
         recent_days: int) -> list[Candidate]:  # fmt: skip
    """The n best entries over the blocks, in order: the plain scan's scores and tie-breaks.

    Key hit +2, content or tag hit +1 per term, +1 for an entry dated within `recent_days`
    of `today`; ties go to the newer entry, then to the later one (files in order, entries
    in file order). Scores are counted per block in C (`Counter`); a histogram of them
    gives the lowest score that can make the answer, so only entries at or above it are
    looked at one by one.
    """
    if n <= 0:
        return []
    encoded = [term.encode("utf-8", "surrogatepass") for term in terms]
    cutoff = today - recent_days
    scored: list[tuple[Block, int, Counter[int], Counter[int]]] = []
    histogram: Counter[int] = Counter()
    base = 0
    for block in blocks:
        count = block.count
        scores: Counter[int] = Counter()
        key_column, text_column = block.columns
        for term in encoded:
            key_hits = key_column.ids(term, count)
            if key_hits:
                scores.update(key_hits)
                scores.update(key_hits)
            text_hits = text_column.ids(term, count)
            if text_hits:
                scores.update(text_hits)
        if scores:
            if block.oldest >= cutoff:
                scores.update(list(scores))
            elif block.newest >= cutoff:
                dates = block.dates
                scores.update([i for i in scores if dates[i] >= cutoff])
            spread = Counter(scores.values())
            histogram.update(spread)
            scored.append((block, base, scores, spread))
        base += count
    if not scored:
        return []
    floor, above = 0, 0
    for score in sorted(histogram, reverse=True):
        floor, above = score, above + histogram[score]
        if above >= n:
            break
    found: list[tuple[int, int, int, int]] = []  # score, day, order, which block
    for which, (block, base, scores, spread) in enumerate(scored):
        if max(spread) >= floor:
            dates = block.dates
            found += [(s, dates[i], base + i, which) for i, s in scores.items() if s >= floor]
    best = heapq.nlargest(n, found)  # the order makes every tuple distinct: no ties left
    return [
        Candidate(score, day, order, scored[which][0], order - scored[which][1])
        for score, day, order, which in best
    ]


def read_entry(path: Path, block: Block, number: int) -> Entry:
    """Entry `number` of the block, parsed from its span in the Markdown file (the truth).

    The span must be a whole section as the file's own parse sees it: it starts a line
    with `## `, and only blank lines come between its end and the next `## ` line (or the
    end of the file); otherwise the block is stale (or forged) and is rebuilt."""
    start, end = block.span(number)
    before_start = 1 if start else 0
    try:
        with open(path, "rb") as handle:
            before = os.fstat(handle.fileno())
            handle.seek(start - before_start)
            raw = handle.read(end - start + before_start + LOOK_AFTER)
            after = os.fstat(handle.fileno())
    except (OSError, ValueError):  # ValueError: a name with a NUL in it
        raise StaleIndex(block.rel) from None
    for st in (before, after):
        if file_sig(st.st_ino, st.st_size, st.st_mtime_ns) != block.sig:
            raise StaleIndex(block.rel)
    head, section = raw[:before_start], raw[before_start : before_start + end - start]
    tail = raw[before_start + end - start :]
    if head not in (b"", b"\n") or not _ends_section(section, tail, len(tail) < LOOK_AFTER):
        raise StaleIndex(block.rel)
    try:
        text = section.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError:
        raise StaleIndex(block.rel) from None
    parsed = parse_text(text)
    if not text.startswith("## ") or len(parsed.entries) != 1:
        raise StaleIndex(block.rel)
    return parsed.entries[0].entry


LOOK_AFTER = 4096  # bytes read past a section to see that the next one starts there


def _ends_section(section: bytes, tail: bytes, at_eof: bool) -> bool:
    """Whether the section ends a line and is followed by blank lines, then `## ` or the end."""
    if tail and not section.endswith(b"\n"):
        return False
    lines = tail.split(b"\n")
    if not at_eof:
        lines.pop()  # cut off mid-line by the read
    for line in lines:
        if line.startswith(b"## "):
            return True
        if line.decode("utf-8", "replace").strip():  # blank as the parser sees it
            return False
    return at_eof
