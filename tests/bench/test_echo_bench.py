"""Key → echo round trip, side by side: raw bash, `termwise attach` and tmux attached,
each in the same byte-copier terminal, with `cat` in the foreground (the inner
terminal echoes each key). A fourth side attaches with TERMWISE_DIRECT_KEYS=0: the
client carries the keys, as before the host read them from the terminal itself.

Run with `uv run pytest tests/bench/test_echo_bench.py -m bench -s`: interleaved rounds
of 200 keys; per side the min / median / max of the rounds' medians, and the ratios.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.tray.host.pty import PtyProcess, spawn_pty

from tests.bench.sides import COLS, ROWS, attach_argv, budget, have, spread, tmux_argv
from tests.tray.serve_support import ServeProcess, serve_fixture, wait_until

pytestmark = [
    pytest.mark.timeout(3600),
    pytest.mark.bench,
    pytest.mark.skipif(not have("tmux"), reason="needs tmux"),
]

ROUNDS = int(os.environ.get("TW_BENCH_ROUNDS", "5"))
KEYS = 200


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


class EchoTerminal:
    """A byte-copier terminal that times how long a typed key takes to come back. It
    reads with one plain blocking `os.read` per wake-up, as ByteTerminal does: our PTY
    adapter's gathering and pacing must not change the instrument."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.pty: PtyProcess = spawn_pty(argv, rows=ROWS, cols=COLS, env=env)
        self._got = b""
        self._last = 0.0  # when output last arrived
        self._cond = threading.Condition()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        fd = self.pty.fileno()
        os.set_blocking(fd, True)
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self._cond:
                self._got = (self._got + data)[-4096:]
                self._last = time.monotonic()
                self._cond.notify_all()

    def settle(self, quiet: float = 0.3, timeout: float = 30.0) -> bool:
        """Wait for the first screen (a prompt) and then a pause in output. Keys typed
        earlier can be lost: a client that enters raw mode flushes pending input."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while time.monotonic() < deadline:
                if self._last and time.monotonic() - self._last >= quiet:
                    return True
                self._cond.wait(quiet / 3)
        return False

    def wait_for(self, needle: bytes, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while needle not in self._got:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def round_trip(self, key: bytes) -> float:
        with self._cond:
            self._got = b""
        start = time.perf_counter()
        self.pty.write(key)
        assert self.wait_for(key, 5)
        return time.perf_counter() - start

    def close(self) -> None:
        self.pty.close()


def test_echo_round_trip(serve: ServeProcess) -> None:
    """Median key → echo time per round, for raw bash, Termwise attached and tmux attached."""
    terms: dict[str, EchoTerminal] = {}
    tmux = tmux_argv(f"tw-echo-{uuid.uuid4().hex[:8]}")
    try:
        terms["raw"] = EchoTerminal(["bash", "--norc", "--noprofile"])
        sid = serve.client.create("bash", rows=ROWS, cols=COLS)["id"]
        serve.run_command(sid, "true")
        terms["termwise"] = EchoTerminal(attach_argv(sid))
        assert wait_until(lambda: serve.client.sessions()[0]["clients"] == 1)
        # The same, with the keys carried by the client as before the host read them.
        relayed = serve.client.create("bash", rows=ROWS, cols=COLS)["id"]
        serve.run_command(relayed, "true")
        env = {**os.environ, "TERMWISE_DIRECT_KEYS": "0"}
        terms["via-client"] = EchoTerminal(attach_argv(relayed), env=env)
        terms["tmux"] = EchoTerminal([*tmux, "new-session", "bash --norc --noprofile"])
        for name, term in terms.items():
            assert term.settle(), f"{name}: no prompt"
            term.pty.write(b"cat\r")  # canonical mode: the inner terminal echoes each key
            assert term.wait_for(b"cat\r\n", 30), f"{name}: no echo of cat"
        time.sleep(0.5)
        medians: dict[str, list[float]] = {name: [] for name in terms}
        for _ in range(ROUNDS):
            for name, term in terms.items():
                times = [term.round_trip(b"k") for _ in range(KEYS)]
                medians[name].append(statistics.median(times) * 1e3)
    finally:
        for term in terms.values():
            term.close()
        import subprocess

        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)
    print(f"\nkey -> echo round trip, ms (medians of {KEYS} keys per round, {ROUNDS} rounds)")
    print(f"  {'side':<10} {'min  median    max':>24}")
    for name, values in medians.items():
        print(f"  {name:<10} {spread(values)}")
    ours, before = medians["termwise"], medians["via-client"]
    print(
        f"  termwise / keys via the client: {statistics.median(ours) / statistics.median(before):.2f}x"
    )
    for peer in ("raw", "tmux"):
        ours, theirs = medians["termwise"], medians[peer]
        pairs = [a / b for a, b in zip(ours, theirs, strict=True)]
        print(
            f"  termwise / {peer}: {statistics.median(ours) / statistics.median(theirs):.2f}x "
            f"(rounds {min(pairs):.2f}-{max(pairs):.2f})"
        )
        budget(f"echo.termwise_per_{peer}", statistics.median(ours) / statistics.median(theirs))
