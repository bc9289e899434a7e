"""Two processes writing the same memory at once lose nothing and leave a consistent index."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from pathlib import Path

import pytest
from termwise.memory.format import parse_text
from termwise.memory.store import MemoryStore

WRITER = r"""
import sys, time
from pathlib import Path
from termwise.memory.store import MemoryStore
root, name, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
store = MemoryStore(root)
(go.parent / f"ready-{name}").touch()  # the barrier: both writers up before either writes
while not go.exists():
    time.sleep(0.001)
for i in range(1000):
    kind = "fact" if i % 3 else "profile"
    store.upsert(f"{name}:{i}", kind, f"{name} wrote number {i}")
"""


# Under Wine every file operation goes through the wineserver: the 2,000 locked rewrites
# took 240 s on a loaded 2-core machine (a few seconds on Linux).
@pytest.mark.timeout(900)
def test_two_processes_upserting_1000_keys_each(tmp_path: Path) -> None:
    """Both writers' 2,000 keys end up in the files and the index names the right file for each."""
    root = tmp_path / "memory"
    go = tmp_path / "go"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(root), name, str(go)])
        for name in ("alpha", "beta")
    ]
    # A barrier, not a sleep: both interpreters are up before either writes, so the writes overlap.
    ready = [tmp_path / f"ready-{name}" for name in ("alpha", "beta")]
    deadline = time.monotonic() + 120
    while not all(p.exists() for p in ready):
        assert time.monotonic() < deadline, "the writers did not start"
        assert all(proc.poll() is None for proc in procs), "a writer died before writing"
        time.sleep(0.01)
    go.touch()
    for proc in procs:
        assert proc.wait(timeout=840) == 0

    expected = {f"{name}:{i}" for name in ("alpha", "beta") for i in range(1000)}
    on_disk: dict[str, str] = {}
    for rel in ("profile.md", "facts.md"):
        parsed = parse_text((root / rel).read_text(encoding="utf-8"))
        assert parsed.problems == []
        for loc in parsed.entries:
            assert loc.entry.key not in on_disk
            on_disk[loc.entry.key] = rel
    assert set(on_disk) == expected

    rows = {}
    for line in (root / "index" / "memory_keys.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        key, rel, _kind, _ = line.split("\t")
        rows[key] = rel
    assert rows == on_disk

    # The writers really took turns (the test would prove nothing run one after the other).
    order = [key.split(":")[0] for key in on_disk]
    switches = sum(1 for a, b in itertools.pairwise(order) if a != b)
    assert switches >= 2

    fresh = MemoryStore(root)
    assert fresh.get("beta:999") is not None and fresh.get("alpha:0") is not None
    assert fresh.problems == []
