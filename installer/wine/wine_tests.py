"""Run the test suite under the Wine lane's Windows CPython, folder by folder, and sum it up.

    python installer/wine/wine_tests.py --repo DIR --out DIR --python 'C:\\py312\\python.exe'
        [--summary FILE] [--only tests/tray/ipc ...]

pytest-timeout's Windows method ends the whole process on a timeout, so each folder runs
in its own pytest (tests/tray one run per subfolder). A run that ends without its JUnit
report hung: the hung test is read from the timeout's stack dump, counted as failed,
deselected, and the folder runs again. Exit status 1 when a test failed that is not
marked as a Wine limit (those skip with "Wine limit (...)"; tests/support/wine_limits.py).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

PER_TEST_TIMEOUT = 120  # seconds, pytest-timeout (a test that takes longer is hung)
RUN_TIMEOUT = 1200  # seconds for one folder's pytest, the hard stop
MAX_HANG_RETRIES = 4
LINGER = 10  # seconds to keep reading a run's output after it ended
SPLIT = ("tests/tray",)  # folders run one subfolder at a time
NOT_RUN = ("tests/support", "tests/bench")  # helpers, and benchmarks (not tests of behaviour)
HUNG = re.compile(r'File "[^"]*?(tests[\\/][^"]*?\.py)", line \d+, in (test_\w+)')


@dataclass
class Chunk:
    path: str
    passed: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: int = 0
    wine_limit: int = 0
    hung: list[str] = field(default_factory=list)
    seconds: float = 0.0
    note: str = ""


def chunks(repo: Path) -> list[str]:
    """The test folders (and loose files) in the order they run."""
    found: list[str] = []
    tests = repo / "tests"
    for entry in sorted(tests.iterdir()):
        rel = entry.relative_to(repo).as_posix()
        if rel in NOT_RUN or entry.name.startswith(("_", ".")):
            continue
        if entry.is_file() and entry.name.startswith("test_") and entry.suffix == ".py":
            found.append(rel)
        elif entry.is_dir() and rel in SPLIT:
            found += [
                sub.relative_to(repo).as_posix()
                for sub in sorted(entry.iterdir())
                if (sub.is_dir() and any(sub.rglob("test_*.py")))
                or (sub.name.startswith("test_") and sub.suffix == ".py")
            ]
        elif entry.is_dir() and any(entry.rglob("test_*.py")):
            found.append(rel)
    return found


def winpath(path: Path) -> str:
    return "Z:" + str(path.resolve()).replace("/", "\\")


def read_junit(xml: Path, chunk: Chunk) -> None:
    for case in ET.parse(xml).iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome = [c for c in case if c.tag in ("failure", "error", "skipped")]
        if not outcome:
            chunk.passed += 1
        elif outcome[0].tag == "skipped":
            if (outcome[0].get("message") or "").startswith("Wine limit ("):
                chunk.wine_limit += 1
            else:
                chunk.skipped += 1
        else:
            message = (outcome[0].get("message") or "").splitlines()
            chunk.failed.append(f"{name}: {message[0][:160] if message else outcome[0].tag}")


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run `cmd` with its output in a pipe, and return once it has ended.

    Not at the pipe's end: what the run started and left behind holds the pipe open for as
    long as it lives: the prefix's wineserver and its services, started by whichever run
    came first, stay while any other run goes on (which made a finished folder wait for
    the whole suite). Output still arriving LINGER seconds after the end is not waited for.
    """
    proc = subprocess.Popen(
        cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    parts: list[bytes] = []

    def read() -> None:
        while block := os.read(fd, 65536):
            parts.append(block)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    code = proc.wait()
    reader.join(LINGER)
    return subprocess.CompletedProcess(cmd, code, b"".join(parts))


def run_chunk(repo: Path, out: Path, python: str, path: str) -> Chunk:
    chunk = Chunk(path)
    stem = path.replace("/", "__")
    deselect: list[str] = []
    start = time.monotonic()
    for attempt in range(MAX_HANG_RETRIES + 1):
        xml = out / f"{stem}.xml"
        xml.unlink(missing_ok=True)
        cmd = ["timeout", "-k", "10", str(RUN_TIMEOUT), "wine", python, "-m", "pytest", path]
        cmd += ["-p", "no:cacheprovider", "-q", "-rfEs", f"--timeout={PER_TEST_TIMEOUT}"]
        cmd += [f"--junitxml={winpath(xml)}", *(f"--deselect={d}" for d in deselect)]
        done = _run(cmd, repo)
        text = done.stdout.decode("utf-8", "replace")
        (out / f"{stem}.{attempt}.log").write_text(text, encoding="utf-8")
        if xml.is_file():
            read_junit(xml, chunk)
            break
        found = HUNG.findall(text)
        if done.returncode == 124 or not found:
            tail = text.strip().splitlines()[-1:] or ["no output"]
            chunk.note = f"no report (exit {done.returncode}): {tail[0][:160]}"
            chunk.failed.append(f"{path}: the run ended without a report")
            break
        rel, name = found[-1]
        nodeid = f"{rel.replace(chr(92), '/')}::{name}"
        chunk.hung.append(nodeid)
        deselect.append(nodeid)
    chunk.seconds = time.monotonic() - start
    return chunk


def _weight(found: Path) -> int:
    """Roughly how long a folder takes: its number of test files."""
    return 1 if found.suffix == ".py" else sum(1 for _ in found.rglob("test_*.py"))


def summary(results: list[Chunk]) -> tuple[str, bool]:
    lines = [
        f"{'tests under Wine':34} {'passed':>7} {'failed':>7} {'wine-lim':>8} {'skipped':>8} {'time':>6}"
    ]
    total = Chunk("total")
    for c in results:
        failed = len(c.failed) + len(c.hung)
        lines.append(
            f"{c.path:34} {c.passed:7} {failed:7} {c.wine_limit:8} {c.skipped:8} {c.seconds:5.0f}s"
            + (f"  {c.note}" if c.note else "")
        )
        total.passed += c.passed
        total.wine_limit += c.wine_limit
        total.skipped += c.skipped
        total.seconds += c.seconds
        total.failed += c.failed
        total.hung += c.hung
    for c in results:
        lines += [f"  FAILED {f}" for f in c.failed]
        lines += [f"  HUNG   {h} (deselected after {PER_TEST_TIMEOUT} s)" for h in c.hung]
    failed = len(total.failed) + len(total.hung)
    lines.append(
        f"tests: {total.passed} passed, {failed} failed, {total.wine_limit} Wine limits, "
        f"{total.skipped} skipped; the folders' times add up to {total.seconds:.0f}s"
    )
    return "\n".join(lines), failed == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--python", required=True, help="the Windows python.exe (a C:\\ path)")
    parser.add_argument("--summary", type=Path)
    parser.add_argument("--only", nargs="*", help="these folders/files instead of all")
    parser.add_argument("--jobs", type=int, default=2, help="folders run at once (2)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    paths = args.only or chunks(args.repo)

    def one(path: str) -> Chunk:
        chunk = run_chunk(args.repo, args.out, args.python, path)
        print(
            f"{path}: {chunk.passed} passed, {len(chunk.failed) + len(chunk.hung)} failed, "
            f"{chunk.wine_limit} Wine limits ({chunk.seconds:.0f}s)",
            flush=True,
        )
        return chunk

    # Two folders at a time (the lane's two cores); each test uses its own TERMWISE_HOME,
    # so their hosts and pipes never meet. The biggest folder starts first.
    ordered = sorted(paths, key=lambda p: _weight(args.repo / p), reverse=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(one, ordered))
    results.sort(key=lambda c: paths.index(c.path))
    text, green = summary(results)
    if args.summary:
        args.summary.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0 if green else 1


if __name__ == "__main__":
    sys.exit(main())
