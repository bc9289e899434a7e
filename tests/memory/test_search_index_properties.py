"""The search index file is bytes anyone could have written: loading never raises, a body
that passes the checksum but does not hold together only ever costs a rebuild, and the
work grows linearly with the file."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from termwise.memory import search_index
from termwise.memory.search_index import CorruptIndex, StaleIndex, load, rank, read_entry
from termwise.memory.store import SEARCH_INDEX, MemoryStore

from tests.support.work import calls_made

_HEAD = struct.Struct("<8sIQ")
# The store-level properties write files and search per example: the nightly profile's
# 100,000 examples would take an hour, 5,000 keep them inside the job's time.
_STORE_EXAMPLES = settings(max_examples=min(settings().max_examples, 5000))
QUERIES = ("vpn wg0", "helix editor", "部署 脚本", "bash")


def _seal(body: bytes) -> bytes:
    """A file whose header vouches for `body`: what a careless (or hostile) writer leaves."""
    return _HEAD.pack(search_index.MAGIC, zlib.crc32(body), len(body)) + body


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A small memory folder, its sound index, and the plain scan's answers."""
    root = tmp_path_factory.mktemp("props") / "memory"
    store = MemoryStore(root, durable=False)
    store.upsert("fact:vpn", "fact", "the VPN interface is wg0")
    store.upsert("fact:editor", "fact", "uses helix for editing")
    store.upsert("pref:shell", "profile", "bash with vi keys")
    store.upsert("project:部署", "profile", "部署脚本在 scripts/deploy.sh")
    store.upsert("ep:1", "episode", "fixed the vpn with bash")
    store.search("vpn")
    return root, (root / SEARCH_INDEX).read_bytes()


def _mutations() -> st.SearchStrategy[tuple[str, int, bytes]]:
    return st.tuples(
        st.sampled_from(["flip", "cut", "insert", "overwrite"]),
        st.integers(min_value=0, max_value=10_000),
        st.binary(min_size=1, max_size=12),
    )


def _mutate(body: bytes, steps: list[tuple[str, int, bytes]]) -> bytes:
    for kind, where, chunk in steps:
        at = where % (len(body) + 1)
        if kind == "flip" and at < len(body):
            body = body[:at] + bytes([body[at] ^ chunk[0]]) + body[at + 1 :]
        elif kind == "cut":
            body = body[:at] + body[at + len(chunk) :]
        elif kind == "insert":
            body = body[:at] + chunk + body[at:]
        else:
            body = body[:at] + chunk + body[at + len(chunk) :]
    return body


@given(st.binary(max_size=2000))
def test_loading_any_bytes_never_raises(data: bytes) -> None:
    assert load(data) is None or isinstance(load(data), dict)


@given(st.binary(max_size=300))
def test_bytes_after_a_sound_header_never_raise(tail: bytes) -> None:
    """The magic and a matching checksum, then anything: None or blocks, never an exception."""
    identity = search_index.build_identity() + b"\n"
    for body in (tail, identity + tail):
        blocks = load(_seal(body))
        assert blocks is None or isinstance(blocks, dict)


@pytest.mark.timeout(1800)
@_STORE_EXAMPLES
@given(st.lists(_mutations(), min_size=1, max_size=4))
def test_a_damaged_index_answers_exactly_as_the_plain_scan(
    folder: tuple[Path, bytes], steps: list[tuple[str, int, bytes]]
) -> None:
    """Bytes flipped, cut or inserted anywhere: the checksum catches it, the store rebuilds
    the index from the Markdown and answers exactly as scoring every entry would."""
    root, sound = folder
    (root / SEARCH_INDEX).write_bytes(_mutate(sound, steps))
    store = MemoryStore(root)
    for query in QUERIES:
        assert store.search(query, 3) == store.scan(query, 3)
    assert load((root / SEARCH_INDEX).read_bytes()) is not None


@pytest.mark.timeout(1800)
@_STORE_EXAMPLES
@given(st.lists(_mutations(), min_size=1, max_size=4))
def test_a_forged_body_with_a_matching_checksum_never_raises_or_invents(
    folder: tuple[Path, bytes], steps: list[tuple[str, int, bytes]]
) -> None:
    """A body changed and re-sealed (as a hostile writer could): searching its blocks raises
    only CorruptIndex or StaleIndex (the store's cue to rebuild), the store never raises, and
    every hit it shows is a memory from the Markdown, read from the Markdown."""
    root, sound = folder
    data = _seal(_mutate(sound[_HEAD.size :], steps))
    blocks = load(data)
    if blocks is not None:
        for query in QUERIES:
            try:
                for found in rank(list(blocks.values()), query.split(), 3, 740_000, 14):
                    read_entry(root / found.block.rel, found.block, found.number)
            except (CorruptIndex, StaleIndex):
                pass
    (root / SEARCH_INDEX).write_bytes(data)
    store = MemoryStore(root)
    real = {(rel, loc.entry) for rel, loc in store.located()}
    for query in QUERIES:
        for hit in store.search(query, 3):
            assert (hit.file, hit.entry) in real


def _index_of(tmp_path: Path, entries: int, words: str) -> bytes:
    root = tmp_path / f"m{entries}"
    root.mkdir()
    body = "".join(f"## k:{i}\n- type: fact\n- content: {words} {i}\n\n" for i in range(entries))
    (root / "facts.md").write_text(body, encoding="utf-8")
    MemoryStore(root).search("warm")
    return (root / SEARCH_INDEX).read_bytes()


@pytest.mark.parametrize("words", ["a" * 200, "ab " * 60, "部署" * 50, "x_1 " * 50])
def test_loading_and_searching_grow_linearly(tmp_path: Path, words: str) -> None:
    """Eight times the entries makes at most about eight times the calls (no quadratic step)."""
    small, large = _index_of(tmp_path, 40, words), _index_of(tmp_path, 320, words)

    def work(data: bytes) -> None:
        blocks = load(data)
        assert blocks is not None
        rank(list(blocks.values()), [words.split()[0][:2], "1"], 5, 740_000, 14)
        load(data[:-1] + b"\x00")

    assert calls_made(lambda: work(large)) <= 10 * calls_made(lambda: work(small)) + 1000
