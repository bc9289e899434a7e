"""thefuck itself over cases.jsonl, in-process: its top-3 hit rate and ms per case (the peer).

Run with an interpreter that has thefuck installed (3.32 needs Python <= 3.11):
    python peer.py cases.jsonl
Prints one JSON line: {"hits": n, "cases": n, "ms": [per-case milliseconds]}.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import tempfile
import time


def main(path: str) -> None:
    os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp(prefix="thefuck-peer-"))
    from thefuck import conf, shells
    from thefuck.corrector import get_corrected_commands
    from thefuck.types import Command

    conf.settings.init()
    shells.shell = shells.Generic()  # `&&` chaining, as in thefuck's own tests
    hits = 0
    times: list[float] = []
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    for row in rows:
        t0 = time.perf_counter()
        try:
            found = get_corrected_commands(Command(row["script"], row["output"]))
            top = [c.script for c in itertools.islice(found, 3)]
        except Exception:  # a rule of theirs failing counts as a miss
            top = []
        times.append((time.perf_counter() - t0) * 1000)
        norm = {" ".join(t.split()) for t in top}
        hits += any(" ".join(e.split()) in norm for e in row["expected"])
    print(json.dumps({"hits": hits, "cases": len(rows), "ms": times}))


if __name__ == "__main__":
    main(sys.argv[1])
