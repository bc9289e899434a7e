"""Relay throughput, side by side: raw bash, `termwise attach` and tmux attached, each in the
same kind of terminal (a byte copier; xterm under Xvfb), for line writes and large writes.
In the byte copier, a bare relay (bare_relay.c: one read and one write per chunk through
a second PTY) is the floor any attached relay pays for its second PTY.

Run with `uv run pytest tests/bench/test_relay_bench.py -m bench -s`. Rounds are
interleaved (raw, bare relay, Termwise, tmux, raw, …); the table gives min / median / max
of the wall time and of the CPU of every process involved, and the ratios of Termwise to
each other side. Nothing is asserted about time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bench.sides import (
    COLS,
    PYTHON,
    ROWS,
    ByteTerminal,
    Sample,
    Side,
    attach_argv,
    child_pids,
    have,
    make_big_file,
    print_table,
    proc_cpu,
    run_round,
    start_termwise_session,
    start_tmux_session,
    tmux_argv,
)
from tests.tray.serve_support import ServeProcess, serve_fixture, wait_until

pytestmark = [
    pytest.mark.timeout(3600),
    pytest.mark.bench,
    pytest.mark.skipif(not have("tmux", "bash", "seq"), reason="needs tmux, bash and seq"),
]

ROUNDS = int(os.environ.get("TW_BENCH_ROUNDS", "5"))
BARE_RELAY = Path(__file__).with_name("bare_relay.c")


def bare_relay(folder: Path) -> tuple[list[str], str]:
    """The floor relay's command and what it is: the C one built here where a compiler
    is found (Python's per-chunk cost would raise the floor), else the Python one."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc:
        program = folder / "bare_relay_c"
        built = subprocess.run(
            [cc, "-O2", "-o", str(program), str(BARE_RELAY), "-lutil", "-lpthread"],
            capture_output=True,
            timeout=120,
        )
        if built.returncode == 0:
            return [str(program)], "bare relay in C"
        why = "the C one did not build: " + built.stderr.decode(errors="replace")[-200:]
    else:
        why = "no C compiler"
    return [PYTHON, str(BARE_RELAY.with_suffix(".py"))], f"bare relay in Python ({why})"


# Large writes (cat of a file) at the 200 MB; line writes (one write per line,
# as `seq` does on a terminal) are ten times slower to produce, so fewer.
SHAPES = {"large": 200_000_000, "lines": 50_000_000}
if os.environ.get("TW_BENCH_SHAPES"):  # e.g. "lines": only those, for a quicker look
    SHAPES = {k: v for k, v in SHAPES.items() if k in os.environ["TW_BENCH_SHAPES"].split(",")}
XTERM_BYTES = 50_000_000


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


def test_relay_throughput_byte_copier(serve: ServeProcess, tmp_path: Path) -> None:
    """Through a byte-copier terminal: raw bash, Termwise attached, tmux attached."""
    names = ("raw", "bare_relay", "termwise", "tmux")
    sides = {name: Side(name, tmp_path / name, dsr=False) for name in names}
    for side in sides.values():
        for total in SHAPES.values():
            make_big_file(side.folder, total)
    terminals: dict[str, ByteTerminal] = {}
    try:
        terminals["raw"] = ByteTerminal(sides["raw"].command)
        # The floor for any relay through a second PTY (see bare_relay.c).
        floor, floor_kind = bare_relay(tmp_path)
        terminals["bare_relay"] = ByteTerminal([*floor, *sides["bare_relay"].command])
        sid = start_termwise_session(sides["termwise"], serve)
        terminals["termwise"] = ByteTerminal(attach_argv(sid))
        assert wait_until(lambda: serve.client.sessions()[0]["clients"] == 1)
        sock = start_tmux_session(sides["tmux"])
        terminals["tmux"] = ByteTerminal([*tmux_argv(sock), "attach"])
        for shape, total in SHAPES.items():
            results: dict[str, list[Sample]] = {name: [] for name in sides}
            run_round(sides["raw"], shape, 1_000_000, lambda: [], terminals["raw"])  # warm-up
            for _ in range(ROUNDS):
                for name, side in sides.items():
                    term = terminals[name]
                    pids: list[int] = [term.pty.pid]
                    results[name].append(run_round(side, shape, total, pids.copy, term))
            print_table(
                f"{total / 1e6:.0f} MB, {shape} writes, byte-copier terminal, {ROUNDS} rounds"
                f" ({floor_kind})",
                {f"{n}": r for n, r in results.items()},
                "termwise",
                ["raw", "bare_relay", "tmux"],
                key=f"relay.byte_copier.{shape}",
                megabytes=total / 1e6,
            )
    finally:
        for term in terminals.values():
            term.close()
        for side in sides.values():
            side.close()


class Xvfb:
    """Our own X server on a display number no one else uses."""

    def __init__(self) -> None:
        self.display = f":{70 + os.getpid() % 200}"
        self.proc = subprocess.Popen(
            ["Xvfb", self.display, "-screen", "0", SCREEN, "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert wait_until(lambda: Path(f"/tmp/.X11-unix/X{self.display[1:]}").exists(), 10)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# Each xterm gets its own part of the screen: a window covered by another draws next to
# nothing, and the X server's drawing shares the machine's cores with the relay.
SCREEN = "2560x1440x24"
PLACES = ("+0+0", "+1280+0", "+0+720")  # 200x50 cells of the default font fit each


class XTerm:
    """A real xterm showing `argv`, at `place` on the screen."""

    def __init__(self, display: str, argv: list[str], place: str = "+0+0") -> None:
        env = {**os.environ, "DISPLAY": display}
        self.proc = subprocess.Popen(
            ["xterm", "-geometry", f"{COLS}x{ROWS}{place}", "-e", *argv],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def pids(self) -> list[int]:
        return [self.proc.pid, *child_pids(self.proc.pid)]

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.mark.skipif(not have("xterm", "Xvfb"), reason="needs xterm and Xvfb")
def test_relay_throughput_xterm(serve: ServeProcess, tmp_path: Path) -> None:
    """In a real xterm: the end is when xterm answered a cursor query sent after the output."""
    sides = {name: Side(name, tmp_path / name, dsr=True) for name in ("raw", "termwise", "tmux")}
    for side in sides.values():
        make_big_file(side.folder, XTERM_BYTES)
    xvfb = Xvfb()
    terms: dict[str, XTerm] = {}
    try:
        terms["raw"] = XTerm(xvfb.display, sides["raw"].command, PLACES[0])
        sid = start_termwise_session(sides["termwise"], serve)
        terms["termwise"] = XTerm(xvfb.display, attach_argv(sid), PLACES[1])
        assert wait_until(lambda: serve.client.sessions()[0]["clients"] == 1, 30)
        sock = start_tmux_session(sides["tmux"])
        terms["tmux"] = XTerm(xvfb.display, [*tmux_argv(sock), "attach"], PLACES[2])
        assert wait_until(lambda: len(terms["tmux"].pids()) > 1, 30)
        for shape in ("large", "lines"):
            results: dict[str, list[Sample]] = {name: [] for name in sides}
            for _ in range(ROUNDS):
                for name, side in sides.items():
                    term = terms[name]

                    def involved(term: XTerm = term) -> list[int]:  # the X server draws for it
                        return [*term.pids(), xvfb.proc.pid]

                    results[name].append(run_round(side, shape, XTERM_BYTES, involved, None))
            print_table(
                f"{XTERM_BYTES / 1e6:.0f} MB, {shape} writes, xterm on Xvfb, {ROUNDS} rounds "
                "(tmux answers the cursor query itself and sends xterm only screen updates)",
                results,
                "termwise",
                ["raw", "tmux"],
                key=f"relay.xterm.{shape}",
                megabytes=XTERM_BYTES / 1e6,
            )
        spent = ", ".join(f"{name} {proc_cpu(t.proc.pid):.1f}" for name, t in terms.items())
        print(f"  each xterm's own CPU over both shapes, s: {spent}")
    finally:
        for term in terms.values():
            term.close()
        for side in sides.values():
            side.close()
        xvfb.stop()
