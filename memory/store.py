"""MemoryStore: the Markdown files under the memory folder, their key index, upserts and search.

Layout under the root: `profile.md` (type profile), `facts.md` (type fact),
`episodes/YYYY-MM-DD.md` (type episode, by the day the entry was first written) and
`index/memory_keys.tsv` (key → file). The index also records each file's identity
(inode, size, mtime) when it was last indexed, so a writer only re-reads a file that
someone else changed by hand; every write holds the cross-process lock.

Search reads `index/search.bin` (see `search_index`): one block of words per file,
rebuilt for a file whose identity changed, and for a file changed within `RACY_NS` of
its reading only when its bytes differ (an mtime that coarse cannot tell two writes
apart). Searches take no lock: the search index is replaced atomically, and a missing,
foreign or damaged one is rebuilt from the Markdown without a word to the caller.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import sys
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from termwise.memory.errors import MemoryStoreError
from termwise.memory.format import (
    FORMAT_VERSION,
    TYPES,
    Entry,
    Located,
    ParsedFile,
    Problem,
    decode_file,
    entry_text,
    new_file_text,
    parse_text,
    render_entry,
    salvage,
    validate_key,
)
from termwise.memory.lock import StoreLock, atomic_write, free_aside_path
from termwise.memory.migrations import migrate
from termwise.memory.retrieve import RECENT_DAYS, Hit, Retriever, query_terms
from termwise.memory.search_index import (
    RACY,
    Block,
    CorruptIndex,
    Spanned,
    StaleIndex,
    build_block,
    dump,
    file_sig,
    line_offsets,
    load,
    rank,
    read_entry,
)

log = logging.getLogger(__name__)

PROFILE = "profile.md"
FACTS = "facts.md"
EPISODES = "episodes"
INDEX = "index/memory_keys.tsv"
SEARCH_INDEX = "index/search.bin"
# A file read less than this long after its last change may change again within the
# same mtime tick (FAT keeps 2 s): its block is trusted only after comparing its bytes.
RACY_NS = 2_000_000_000
SEARCH_TRIES = 3  # rebuild a block that went stale under a search this often, then scan
READ_TRIES, READ_PAUSE = 20, 0.05  # a Windows reader waits out a writer's replace
_INDEX_HEADER = "# termwise memory index, format 1: key, file, type, updated_at"
Sig = tuple[int, int, int]
_BAD_TAG = re.compile(r"[,\r\n\t]")


@dataclass(frozen=True)
class MemoryProblem:
    """A damaged spot in a memory file; the original was copied to `kept_aside`."""

    path: Path
    line: int
    message: str
    kept_aside: Path | None = None

    def __str__(self) -> str:
        aside = f" (the original is kept as {self.kept_aside})" if self.kept_aside else ""
        return f"{self.path}:{self.line}: {self.message}{aside}"


@dataclass(frozen=True)
class IndexRow:
    key: str
    file: str
    type: str
    updated_at: str


@dataclass
class _Index:
    rows: dict[str, IndexRow] = field(default_factory=dict)
    sigs: dict[str, Sig] = field(default_factory=dict)


@dataclass(frozen=True)
class _FileRead:
    """A memory file as read: its identity then, the bytes now on disk, and their entries."""

    sig: Sig
    data: bytes
    parsed: ParsedFile


class MemoryStore:
    """Readable Markdown memory; safe with several writers (threads or processes)."""

    def __init__(
        self, root: Path, *, clock: Callable[[], float] = time.time, durable: bool = True
    ) -> None:
        self.root = Path(root)
        self.clock = clock
        self.durable = durable  # fsync before rename; off only where speed beats power loss
        self.problems: list[MemoryProblem] = []
        self._lock = StoreLock(self.root / "index" / ".lock")
        self._cache: dict[str, tuple[Sig, ParsedFile]] = {}
        self._blocks: dict[str, Block] | None = None  # None: not read from disk yet

    # -- places ---------------------------------------------------------------------------

    @property
    def index_path(self) -> Path:
        return self.root / INDEX

    @property
    def search_index_path(self) -> Path:
        return self.root / SEARCH_INDEX

    def path_of(self, rel: str) -> Path:
        return self.root / rel

    def files(self) -> list[str]:
        """Memory files that exist, relative to the root: profile, facts, then episodes."""
        found = [rel for rel in (PROFILE, FACTS) if (self.root / rel).is_file()]
        try:
            with os.scandir(self.root / EPISODES) as listing:
                # Names, not Paths: sorting a thousand Paths costs more than the search.
                # normcase: `*.MD` counts on Windows and names sort as Path sorts them there.
                names = [e.name for e in listing if os.path.normcase(e.name).endswith(".md")]
        except (FileNotFoundError, NotADirectoryError):
            return found
        found.extend(f"{EPISODES}/{name}" for name in sorted(names, key=os.path.normcase))
        return found

    def file_for(self, kind: str, day: str) -> str:
        if kind == "profile":
            return PROFILE
        if kind == "fact":
            return FACTS
        return f"{EPISODES}/{day}.md"

    def today(self) -> str:
        return date.fromtimestamp(self.clock()).isoformat()

    # -- reading ----------------------------------------------------------------------------

    def located(self) -> list[tuple[str, Located]]:
        """Every entry with its file and section position."""
        return [(rel, loc) for rel in self.files() for loc in self._load(rel).entries]

    def entries(self) -> list[Entry]:
        return [loc.entry for _, loc in self.located()]

    def get(self, key: str) -> Entry | None:
        for _, loc in self.located():
            if loc.entry.key == key:
                return loc.entry
        return None

    def search(self, query: str, n: int = 3) -> list[Hit]:
        """The n best entries for a query (see `retrieve` for the scoring), via the index."""
        today = date.fromtimestamp(self.clock())
        for _ in range(SEARCH_TRIES):
            blocks = self._search_blocks()
            terms = query_terms(query)
            if not terms or n <= 0:
                return []
            try:
                ranked = rank(blocks, terms, n, today.toordinal(), RECENT_DAYS)
                return [
                    Hit(
                        read_entry(self.path_of(c.block.rel), c.block, c.number),
                        c.score,
                        c.block.rel,
                        c.block.line(c.number),
                    )
                    for c in ranked
                ]
            except StaleIndex as exc:
                if self._blocks is not None:
                    self._blocks.pop(exc.rel, None)
            except CorruptIndex:
                log.info("memory search index damaged, rebuilding it from the files")
                self._blocks = {}
        return self.scan(query, n)

    def scan(self, query: str, n: int = 3) -> list[Hit]:
        """`search` without the index: parse every file and score every entry."""
        located = self.located()
        retriever = Retriever(
            [loc.entry for _, loc in located], [(rel, loc.start + 1) for rel, loc in located]
        )
        return retriever.search(query, n, today=date.fromtimestamp(self.clock()))

    def profile_text(self) -> str:
        """The profile entries as Markdown sections (what a profile rewrite starts from)."""
        parts = [entry_text(loc.entry) for loc in self._load(PROFILE).entries]
        return "\n\n".join(parts)

    def index_rows(self) -> dict[str, IndexRow]:
        """The index after bringing it up to date with the files."""
        with self._lock.hold():
            return dict(self._index().rows)

    # -- writing ----------------------------------------------------------------------------

    def upsert(self, key: str, kind: str, content: str, tags: Iterable[str] = ()) -> Entry:
        """Replace the entry under key (refreshing `updated_at`) or append a new one."""
        why = validate_key(key)
        if why:
            raise MemoryStoreError(f"bad key {key!r}: {why}")
        if kind not in TYPES:
            raise MemoryStoreError(f"type must be one of {', '.join(TYPES)}, not {kind!r}")
        content = content.strip()
        if not content:
            raise MemoryStoreError(f"nothing to remember under {key!r}: the content is empty")
        clean_tags = tuple(t.strip() for t in tags if t.strip() and not _BAD_TAG.search(t))
        with self._lock.hold():
            index = self._index()
            day = self.today()
            entry = Entry(key, kind, content, clean_tags, day)
            row = index.rows.get(key)
            located = None
            if row is not None:
                parsed = self._load(row.file)
                located = next((loc for loc in parsed.entries if loc.entry.key == key), None)
                if located is not None:
                    entry = Entry(key, kind, content, clean_tags, day, located.entry.extra)
            if row is not None and located is not None and row.type == kind:
                rel = row.file
                lines = parsed.lines[: located.start] + render_entry(entry)
                text = "\n".join(lines + parsed.lines[located.end :])
            else:
                if row is not None and located is not None:
                    # The type changed, so the entry moves to another file.
                    self._remove_section(row.file, key)
                    index.sigs[row.file] = self._sig(row.file) or (0, 0, 0)
                rel = self.file_for(kind, day)
                text = self._raw_text(rel) or new_file_text(_title(rel))
                text = text.rstrip("\n") + "\n\n" + entry_text(entry) + "\n"
            self._write(rel, text)
            index.rows[key] = IndexRow(key, rel, kind, day)
            index.sigs[rel] = self._sig(rel) or (0, 0, 0)
            self._save_index(index)
        return entry

    def delete(self, key: str) -> bool:
        """Forget one entry; False when there was none."""
        with self._lock.hold():
            index = self._index()
            row = index.rows.pop(key, None)
            if row is None:
                return False
            self._remove_section(row.file, key)
            index.sigs[row.file] = self._sig(row.file) or (0, 0, 0)
            self._save_index(index)
            if self.search_index_path.exists():
                self._search_blocks()  # the forgotten words leave the search index now
            return True

    def purge(self) -> int:
        """Forget everything (files, kept-aside copies, backups, index); returns entries removed."""
        with self._lock.hold():
            count = len(self._index().rows)
            for rel in self.files():
                self.path_of(rel).unlink(missing_ok=True)
            for pattern in ("*.corrupt-*", "*.bak"):
                for path in [*self.root.glob(pattern), *self.root.glob(f"{EPISODES}/{pattern}")]:
                    path.unlink(missing_ok=True)
            self.index_path.unlink(missing_ok=True)
            self.search_index_path.unlink(missing_ok=True)
            self._cache.clear()
            self._blocks = None
            return count

    def check(self) -> list[MemoryProblem]:
        """Read every file now, so damage is found (and set aside) before it is needed."""
        before = len(self.problems)
        with self._lock.hold():
            self._index()
        return self.problems[before:]

    # -- internals --------------------------------------------------------------------------

    def _sig(self, rel: str) -> Sig | None:
        try:
            st = os.stat(self.path_of(rel))
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _raw_text(self, rel: str) -> str:
        try:
            return self.path_of(rel).read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise _unreadable(self.path_of(rel), exc) from None

    def _write(self, rel: str, text: str) -> None:
        try:
            atomic_write(self.path_of(rel), text, durable=self.durable)
        except OSError as exc:
            raise MemoryStoreError(
                f"cannot save memory to {self.path_of(rel)}: {exc.strerror or exc}"
            ) from None
        self._cache.pop(rel, None)

    def _load(self, rel: str) -> ParsedFile:
        """The parsed file, re-read only when it changed; damage is set aside and reported."""
        sig = self._sig(rel)
        cached = self._cache.get(rel)
        if sig is not None and cached is not None and cached[0] == sig:
            return cached[1]
        read = self._read_file(rel)
        if read is None:
            return ParsedFile(version=FORMAT_VERSION, lines=[])
        self._cache[rel] = (read.sig, read.parsed)
        return read.parsed

    def _read_file(self, rel: str) -> _FileRead | None:
        """Read and parse a file now (None: it does not exist), setting damage aside and
        bringing an old format up to date; its identity is taken before the read, so a
        change during the read makes it look changed, never unchanged."""
        with self._lock.hold():
            path = self.path_of(rel)
            try:
                with open(path, "rb") as handle:
                    st = os.fstat(handle.fileno())
                    raw = handle.read()
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise _unreadable(path, exc) from None
            sig = (st.st_ino, st.st_size, st.st_mtime_ns)
            text, bad_line = decode_file(raw)
            text, old_version, shift = migrate(text, where=str(path))
            parsed = parse_text(text)
            problems = [Problem(max(1, p.line - shift), p.message) for p in parsed.problems]
            if bad_line:
                problems.insert(0, Problem(bad_line, "not valid UTF-8 text"))
            if not problems and old_version >= FORMAT_VERSION:
                return _FileRead(sig, raw, parsed)
            if problems:
                aside = self._keep_aside(path, raw)
                for problem in problems:
                    self._report(MemoryProblem(path, problem.line, problem.message, aside))
                text = salvage(parsed)
                parsed = parse_text(text)
            else:
                shutil.copyfile(path, path.with_name(f"{path.name}.v{old_version}.bak"))
            atomic_write(path, text, durable=self.durable)
            new_sig = self._sig(rel)
            assert new_sig is not None
            return _FileRead(new_sig, text.encode("utf-8"), parsed)

    def _search_blocks(self) -> list[Block]:
        """A block per memory file, in file order: kept while its file is unchanged, else rebuilt
        (and the index file rewritten)."""
        known = self._blocks
        if known is None:
            known = self._read_search_index()
        current: dict[str, Block] = {}
        dirty = False
        root = os.fspath(self.root)
        for rel in self.files():
            try:
                st = os.stat(os.path.join(root, rel))
            except FileNotFoundError:
                continue  # gone since the listing: nothing to search there
            except OSError as exc:
                raise _unreadable(self.path_of(rel), exc) from None
            sig = file_sig(st.st_ino, st.st_size, st.st_mtime_ns)
            block = known.get(rel)
            if block is not None and block.sig == sig and block.racy:
                checked = self._recheck(block)
                dirty = dirty or checked is not block
                block = checked
            elif block is not None and block.sig != sig:
                block = None
            if block is None:
                block = self._index_file(rel)
                if block is None:
                    continue
                dirty = True
            current[rel] = block
        dirty = dirty or current.keys() != known.keys()
        self._blocks = current
        if dirty:
            self._save_search_index(current.values())
        return list(current.values())

    def _index_file(self, rel: str) -> Block | None:
        read = self._read_file(rel)
        if read is None:
            return None
        offsets = line_offsets(read.data)
        end = len(read.data)
        entries = [
            Spanned(loc.entry, loc.start + 1, offsets[loc.start], min(offsets[loc.end], end))
            for loc in read.parsed.entries
        ]
        sig = file_sig(*read.sig)
        # Wall time, not the injected clock: it is compared with the file system's mtime.
        flags = RACY if time.time_ns() - sig[2] < RACY_NS else 0
        return build_block(rel, sig, zlib.crc32(read.data), flags, entries)

    def _recheck(self, block: Block) -> Block | None:
        """A racy block stays if the file's bytes are the ones it was made from."""
        try:
            with open(self.path_of(block.rel), "rb") as handle:
                st = os.fstat(handle.fileno())
                data = handle.read()
        except OSError:
            return None
        sig = file_sig(st.st_ino, st.st_size, st.st_mtime_ns)
        if sig != block.sig or zlib.crc32(data) != block.digest:
            return None
        if time.time_ns() - sig[2] < RACY_NS:
            return block
        return block.with_identity(sig, block.flags & ~RACY)

    def _read_search_index(self) -> dict[str, Block]:
        for attempt in range(READ_TRIES):
            try:
                with open(self.search_index_path, "rb") as handle:
                    data = handle.read()
                break
            except PermissionError:
                # Windows: another process is replacing it this instant.
                if sys.platform != "win32" or attempt == READ_TRIES - 1:
                    return {}
                time.sleep(READ_PAUSE)
            except OSError:
                return {}
        blocks = load(data)
        if blocks is None:
            log.info("memory search index unreadable, rebuilding it from the files")
            return {}
        return blocks

    def _save_search_index(self, blocks: Iterable[Block]) -> None:
        try:
            # Derived from the files, like the key index: a power cut costs a rebuild.
            atomic_write(self.search_index_path, dump(blocks), durable=False)
        except OSError as exc:
            # Searching still works from memory; the next process rebuilds what it needs.
            log.info("memory search index not saved: %s", exc)

    def _keep_aside(self, path: Path, raw: bytes) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.clock()))
        aside = free_aside_path(path, "corrupt", stamp)
        # A kept-aside copy holds the user's memories: readable by this user only.
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
        return aside

    def _report(self, problem: MemoryProblem) -> None:
        self.problems.append(problem)
        log.warning("memory file damaged: %s", problem)

    def _remove_section(self, rel: str, key: str) -> None:
        parsed = self._load(rel)
        loc = next((loc for loc in parsed.entries if loc.entry.key == key), None)
        if loc is None:
            return
        end = loc.end
        while end < len(parsed.lines) and not parsed.lines[end].strip():
            end += 1
        lines = parsed.lines[: loc.start] + parsed.lines[end:]
        self._write(rel, "\n".join(lines).rstrip("\n") + "\n")

    def _index(self) -> _Index:
        """The index, brought up to date with any file changed behind its back (lock held)."""
        index, ok = self._read_index()
        dirty = not ok
        current = self.files()
        for rel in [r for r in index.sigs if r not in current]:
            _drop_file(index, rel)
            dirty = True
        for rel in current:
            if index.sigs.get(rel) == self._sig(rel):
                continue
            parsed = self._load(rel)
            _drop_file(index, rel)
            for loc in parsed.entries:
                entry = loc.entry
                other = index.rows.get(entry.key)
                if other is not None:
                    self._report(
                        MemoryProblem(
                            self.path_of(rel),
                            loc.start + 1,
                            f"key {entry.key!r} is also in {other.file}; using that one",
                        )
                    )
                    continue
                index.rows[entry.key] = IndexRow(entry.key, rel, entry.type, entry.updated_at)
            index.sigs[rel] = self._sig(rel) or (0, 0, 0)
            dirty = True
        if dirty:
            self._save_index(index)
        return index

    def _read_index(self) -> tuple[_Index, bool]:
        index = _Index()
        try:
            text = self.index_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return index, False
        except (OSError, UnicodeDecodeError):
            return index, False
        for line in text.split("\n"):
            if not line or line == _INDEX_HEADER:
                continue
            parts = line.split("\t")
            try:
                if parts[0] == "#file" and len(parts) == 5:
                    index.sigs[parts[1]] = (int(parts[2]), int(parts[3]), int(parts[4]))
                elif len(parts) == 4 and not parts[0].startswith("#"):
                    index.rows[parts[0]] = IndexRow(*parts)
                else:
                    raise ValueError(line)
            except ValueError:
                log.info("memory index unreadable, rebuilding it from the files")
                return _Index(), False
        return index, True

    def _save_index(self, index: _Index) -> None:
        lines = [_INDEX_HEADER]
        lines += [f"#file\t{rel}\t{s[0]}\t{s[1]}\t{s[2]}" for rel, s in sorted(index.sigs.items())]
        lines += [f"{r.key}\t{r.file}\t{r.type}\t{r.updated_at}" for r in index.rows.values()]
        # The index is derived from the files, so losing it to a power cut costs a rebuild.
        atomic_write(self.index_path, "\n".join(lines) + "\n", durable=False)


def _drop_file(index: _Index, rel: str) -> None:
    for key in [k for k, row in index.rows.items() if row.file == rel]:
        del index.rows[key]
    index.sigs.pop(rel, None)


def _title(rel: str) -> str:
    if rel == PROFILE:
        return "Profile"
    if rel == FACTS:
        return "Facts"
    return f"Episodes {Path(rel).stem}"


def _unreadable(path: Path, exc: OSError) -> MemoryStoreError:
    return MemoryStoreError(
        f"cannot read the memory file {path}: {exc.strerror or exc}; "
        "move it away or fix it, then try again (nothing was changed)"
    )
