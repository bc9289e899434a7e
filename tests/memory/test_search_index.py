"""The search index beside the Markdown: same answers as the plain scan, and the Markdown
stays the truth through hand edits, deleted files, damaged indexes and two processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from termwise.memory import search_index
from termwise.memory.store import SEARCH_INDEX, MemoryStore

from tests.support.memory_corpus import QUERIES, write_corpus

# Whole words, pieces of words (the scan matches substrings), key words, tags, CJK
# pairs and single characters, case and stop words.
EXTRA_QUERIES = (
    "git",
    "it",
    "DOCKER Compose",
    "fact:",
    "episode",
    "profile_12",
    "ker po",
    "数据",
    "据",
    "部署 镜像 分支",
    "the a of",
    "zebrafish",
    "quokka kubectl ssh",
    "nothing-here-xyzzy",
    "Ünïcode straße",
)


def _same(store: MemoryStore, query: str, n: int) -> None:
    indexed = store.search(query, n)
    plain = store.scan(query, n)
    assert indexed == plain, (query, n)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus") / "memory"
    write_corpus(root, 3000, seed=11)
    # Hand-written oddities: Windows line ends, no date, upper case, tags only, a
    # multi-line content, an unknown field and characters whose lower case is longer.
    (root / "episodes" / "1999-01-01.md").write_bytes(
        b"# Old\r\n\r\n## Note:CRLF\r\n- type: episode\r\n- content: Docker on CRLF lines\r\n"
        b"\r\n## undated:1\r\n- type: episode\r\n- mood: fine\r\n- content: first line\r\n"
        b"  second line mentions kubectl\r\n\r\n## tags:only\r\n- type: episode\r\n"
        b"- tags: zebrafish, ssh\r\n- content: nothing else\r\n"
    )
    with open(root / "facts.md", "a", encoding="utf-8") as handle:
        handle.write("\n## fact:İstanbul\n- type: fact\n- content: STRASSE straße Ünïcode 部署\n")
        # Lines of Unicode spaces after a section are blank to the parser too.
        handle.write("\u00a0\n\u3000\n## fact:nbsp\n- type: fact\n- content: docker after spaces\n")
    return root


@pytest.mark.parametrize("n", [1, 3, 12])
def test_indexed_search_ranks_exactly_as_the_plain_scan(corpus: Path, n: int) -> None:
    """Every query gives the same hits, scores, files, lines and order as scoring every entry."""
    store = MemoryStore(corpus)
    for query in (*QUERIES, *EXTRA_QUERIES):
        _same(store, query, n)
    # A second process's view: the blocks come from the index file, not from this store.
    again = MemoryStore(corpus)
    for query in QUERIES:
        _same(again, query, n)


def test_hits_are_read_from_their_sections_without_falling_back_to_the_scan(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every hit's section checks out against the file (no stale block, no scan)."""
    store = MemoryStore(corpus)

    def no_scan(query: str, n: int = 3) -> list[object]:
        raise AssertionError("fell back to the scan")

    monkeypatch.setattr(store, "scan", no_scan)
    for query in ("İstanbul straße", "docker after spaces", "crlf docker", "kubectl second"):
        assert store.search(query, 3)


def test_the_index_is_written_and_a_new_store_reads_no_markdown_to_search(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once built, a search in a new process opens only the index and the hits' files."""
    MemoryStore(corpus).search("docker")
    assert (corpus / SEARCH_INDEX).stat().st_size > 0
    store = MemoryStore(corpus)
    parsed: list[str] = []
    real = MemoryStore._read_file

    def spy(self: MemoryStore, rel: str) -> object:
        parsed.append(rel)
        return real(self, rel)

    monkeypatch.setattr(MemoryStore, "_read_file", spy)
    hits = store.search("docker port proxy", 3)
    assert len(hits) == 3
    assert parsed == []  # (a file written in the last RACY_NS is compared by bytes, not parsed)


def _store_with(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.upsert("fact:vpn", "fact", "the VPN interface is wg0")
    store.upsert("fact:editor", "fact", "uses helix for editing")
    store.upsert("pref:shell", "profile", "bash with vi keys")
    return store


def test_a_hand_edit_that_keeps_size_and_mtime_is_still_seen(tmp_path: Path) -> None:
    """A file rewritten in place within one mtime tick (same size, same inode) is re-read."""
    store = _store_with(tmp_path)
    assert store.search("wg0")[0].entry.key == "fact:vpn"
    path = tmp_path / "facts.md"
    st = path.stat()
    data = path.read_bytes().replace(b"wg0", b"wg7")
    # In place (the inode stays), in bytes (text mode would write CRLF on Windows).
    with open(path, "r+b") as handle:
        handle.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # a coarse clock: the same tick
    assert path.stat().st_size == st.st_size and path.stat().st_ino == st.st_ino
    for fresh in (store, MemoryStore(tmp_path)):
        assert fresh.search("wg7")[0].entry.content == "the VPN interface is wg7"
        assert fresh.search("wg0") == []


def test_hand_added_and_deleted_files_are_seen(tmp_path: Path) -> None:
    """A new episode file written by hand is searched; a deleted one is gone; nothing raises."""
    store = _store_with(tmp_path)
    assert store.search("helix")
    episodes = tmp_path / "episodes"
    episodes.mkdir()
    (episodes / "2026-01-02.md").write_text(
        "## ep:1\n- type: episode\n- content: rebuilt the helix config\n", encoding="utf-8"
    )
    assert [h.entry.key for h in store.search("rebuilt helix config", 3)] == ["ep:1", "fact:editor"]
    (tmp_path / "facts.md").unlink()
    assert [h.entry.key for h in MemoryStore(tmp_path).search("helix", 3)] == ["ep:1"]
    assert [h.entry.key for h in store.search("helix", 3)] == ["ep:1"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",
        lambda data: data[: len(data) // 2],
        lambda data: data[:-1],
        lambda data: data + b"\x00",
        lambda data: b"PK\x03\x04 not ours at all",
        lambda data: data[:40] + bytes([data[40] ^ 0xFF]) + data[41:],
        lambda data: search_index.MAGIC + b"\xff" * 64,
    ],
    ids=["empty", "half", "short", "long", "foreign", "flipped", "garbage-after-magic"],
)
def test_a_damaged_index_is_rebuilt_silently(tmp_path: Path, damage) -> None:
    """Whatever happened to the index file, search answers from the Markdown and repairs it."""
    _store_with(tmp_path).search("vpn")
    index = tmp_path / SEARCH_INDEX
    index.write_bytes(damage(index.read_bytes()))
    store = MemoryStore(tmp_path)
    for query in ("vpn wg0", "helix", "bash keys"):
        _same(store, query, 3)
    assert search_index.load(index.read_bytes()) is not None


def test_an_index_that_cannot_be_written_still_answers(tmp_path: Path) -> None:
    """A folder in the index file's place: searches work from memory, nothing raises."""
    _store_with(tmp_path)
    (tmp_path / SEARCH_INDEX).mkdir(parents=True)
    store = MemoryStore(tmp_path)
    assert store.search("wg0")[0].entry.key == "fact:vpn"


def test_deleted_and_purged_memories_leave_the_index(tmp_path: Path) -> None:
    """A forgotten entry's words are gone from the index at once; purge removes the index."""
    store = _store_with(tmp_path)
    store.search("wg0")
    index = tmp_path / SEARCH_INDEX
    assert b"helix" in index.read_bytes()
    assert store.delete("fact:editor")
    assert b"helix" not in index.read_bytes()
    assert store.search("helix") == []
    store.purge()
    assert not index.exists()
    assert store.search("wg0") == []


def test_a_file_changed_between_search_and_reading_the_hit_is_reread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hit whose file changed after its block was checked is answered from the new file."""
    store = _store_with(tmp_path)
    stale = store._search_blocks()
    path = tmp_path / "facts.md"
    path.write_text(path.read_text(encoding="utf-8").replace("wg0", "wg09"), encoding="utf-8")
    real = store._search_blocks
    once = iter([stale])
    monkeypatch.setattr(store, "_search_blocks", lambda: next(once, None) or real())
    assert [h.entry.content for h in store.search("vpn")] == ["the VPN interface is wg09"]


WRITER = r"""
import sys
from pathlib import Path
from termwise.memory.store import MemoryStore
root, name = Path(sys.argv[1]), sys.argv[2]
store = MemoryStore(root, durable=False)
for i in range(150):
    store.upsert(f"{name}:{i}", "fact" if i % 2 else "episode", f"{name} wrote entry {i} zebra{i}")
    if i % 10 == 0:
        store.search(f"zebra{i} {name}", 3)
"""

SEARCHER = r"""
import sys, time
from pathlib import Path
from termwise.memory.store import MemoryStore
root, stop = Path(sys.argv[1]), Path(sys.argv[2])
n = 0
while not stop.exists() or n < 5:
    MemoryStore(root).search("wrote entry zebra7", 3)
    n += 1
print(n)
"""


def test_two_processes_writing_and_searching_leave_a_sound_index(tmp_path: Path) -> None:
    """A writer (upserts with searches) and a searcher at once: neither fails, the index file
    always loads, and the final answers equal the plain scan."""
    root = tmp_path / "memory"
    stop = tmp_path / "stop"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    searcher = subprocess.Popen(
        [sys.executable, "-c", SEARCHER, str(root), str(stop)], env=env, stdout=subprocess.PIPE
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(root), name], env=env)
        for name in ("alpha", "beta")
    ]
    index = root / SEARCH_INDEX
    deadline = time.monotonic() + 240
    while any(w.poll() is None for w in writers):
        assert time.monotonic() < deadline
        if index.exists():
            try:
                data = index.read_bytes()
            except OSError:
                continue  # replaced while being opened (Windows)
            assert search_index.load(data) is not None
        time.sleep(0.01)
    stop.touch()
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    out, _ = searcher.communicate(timeout=120)
    assert searcher.returncode == 0 and int(out) >= 5
    store = MemoryStore(root)
    for query in ("alpha zebra7", "beta wrote entry 149", "zebra1"):
        _same(store, query, 5)
    assert len(store.entries()) == 300
