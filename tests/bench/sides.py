"""Side-by-side set-ups for the relay benchmarks: raw bash, Termwise attached and tmux
attached, each seen through the same kind of outer terminal (a byte copier or xterm).

Every side runs the same `run.sh` loop: it waits for a token on a FIFO, produces the
output, optionally asks the terminal for the cursor position (DSR, so the end is
when the terminal has taken everything), records its own CPU (`times`) and wall
clock, and prints an end marker. CPU of the long-lived processes (host, attach
client, tmux server and client, xterm, the byte copier's thread) is read from /proc.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.tmux import tmux_server_pid
from tests.tray.serve_support import TERMWISE, ServeProcess, wait_until

ROWS, COLS = 50, 200
TICK = os.sysconf("SC_CLK_TCK")
LINE = "0123456789" * 8 + "012"  # with "line %08g " and \n: 100 bytes a line

RUN_SH = r"""
fifo=$1; out=$2; dsr=$3
while :; do
  read -r tok shape total < "$fifo" || exit 0
  (
    # GNU time, where present, reports how long the producer ran and how often it was
    # preempted: what a relay costs the program that prints.
    set --
    if [ -x /usr/bin/time ]; then set -- /usr/bin/time -f "%e %U %S %c" -o "$out/prod.$tok"; fi
    start=$(date +%s.%N)
    if [ "$shape" = lines ]; then
      "$@" seq -f "line %08g LINE" 1 $((total / 100))
    else
      "$@" cat "$out/big.$total"
    fi
    if [ "$dsr" = 1 ]; then printf '\033[6n'; IFS= read -rs -d R _; fi
    end=$(date +%s.%N)
    times > "$out/cpu.$tok"
    echo "$start $end" > "$out/time.$tok"
    printf '\nEND-%s-DONE\n' "$tok"
  )
done
""".replace("LINE", LINE)


def proc_cpu(pid: int) -> float:
    """User + system seconds of one process (0 once it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def times_cpu(path: Path) -> float:
    """Seconds in a `times` report: the shell's own and its children's, user and system."""
    total = 0.0
    for minutes, seconds in re.findall(r"(\d+)m([\d.]+)s", path.read_text()):
        total += int(minutes) * 60 + float(seconds)
    return total


def child_pids(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def make_big_file(folder: Path, total: int) -> Path:
    """`total` bytes of 100-byte numbered lines (the large-write producer cats it)."""
    path = folder / f"big.{total}"
    if not path.exists():
        line_count = total // 100
        with path.open("w") as f:
            for start in range(1, line_count + 1, 10000):
                stop = min(start + 10000, line_count + 1)
                f.write("".join(f"line {i:08d} {LINE}\n" for i in range(start, stop)))
    return path


class ByteTerminal:
    """The plainest outer terminal: a PTY whose master side one thread drains with one
    plain `os.read` per wake-up (not our adapter's read, which gathers more: the
    measuring instrument stays the same whatever the product does)."""

    def __init__(self, argv: Sequence[str], env: dict[str, str] | None = None) -> None:
        from termwise.tray.host.pty.posix import PosixPty  # the benchmarks run on POSIX

        self.pty = PosixPty.spawn(list(argv), rows=ROWS, cols=COLS, env=env)
        self.count = 0
        self.cpu = 0.0  # this thread's CPU seconds so far
        self._tail = b""
        self._want: bytes | None = None
        self._seen = threading.Event()
        self.seen_at = 0.0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        fd = self.pty.fileno()
        os.set_blocking(fd, True)  # a plain terminal sleeps in read() (our adapter polls)
        read = os.read
        while True:
            try:
                data = read(fd, 65536)
            except OSError:  # EIO: the program ended; EBADF: closed
                return
            if not data:
                return
            self.count += len(data)
            want = self._want
            if want is not None:
                tail = self._tail + data[-len(want) - 64 :]
                if want in tail:
                    self.seen_at = time.time()
                    self._want = None
                    self._seen.set()
                self._tail = tail[-len(want) - 64 :]
            self.cpu = time.thread_time()

    def expect(self, marker: bytes) -> None:
        self._tail = b""
        self._seen.clear()
        self._want = marker

    def wait(self, timeout: float) -> bool:
        return self._seen.wait(timeout)

    def write(self, data: bytes) -> None:
        self.pty.write(data)

    def close(self) -> None:
        self.pty.close()


@dataclass
class Sample:
    seconds: float
    cpu: float
    received: int = 0  # bytes the outer terminal took in this round
    producer_share: float = 0.0  # of its own run, the part the producer was on a CPU
    preempted: int = 0  # times the producer was preempted (it wanted to run on)


@dataclass
class Side:
    """One contestant: how to start it inside a terminal and which processes it costs."""

    name: str
    folder: Path
    dsr: bool
    fifo: Path = field(init=False)
    pids: Callable[[], list[int]] = field(default=lambda: [])
    closers: list[Callable[[], None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "run.sh").write_text(RUN_SH)
        self.fifo = self.folder / "go"
        os.mkfifo(self.fifo)

    @property
    def command(self) -> list[str]:
        return ["bash", str(self.folder / "run.sh"), str(self.fifo), str(self.folder),
                "1" if self.dsr else "0"]  # fmt: skip

    def close(self) -> None:
        for close in reversed(self.closers):
            try:
                close()
            except Exception:
                pass


def tmux_argv(socket_name: str) -> list[str]:
    return ["tmux", "-L", socket_name, "-f", "/dev/null"]


def start_tmux_session(side: Side) -> str:
    """A detached tmux server running the side's loop; returns its socket name."""
    name = f"tw-bench-{uuid.uuid4().hex[:8]}"
    tmux = tmux_argv(name)
    subprocess.run([*tmux, "new-session", "-d", "-x", str(COLS), "-y", str(ROWS),
                    "-e", "PS1=$ ", *side.command], check=True, timeout=30)  # fmt: skip
    subprocess.run([*tmux, "set", "-g", "status", "off"], check=True, timeout=30)
    server_pid = tmux_server_pid(tmux)

    def kill_server() -> None:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=30)

    side.closers.append(kill_server)
    side.pids = lambda: [server_pid]
    return name


def start_termwise_session(side: Side, serve: ServeProcess) -> str:
    """A session of the running host, typed into running the side's loop."""
    sid = serve.client.create("bash", rows=ROWS, cols=COLS)["id"]
    serve.run_command(sid, "true")
    serve.client.send(sid, " ".join(side.command), enter=True)
    host_pid = serve.proc.pid
    side.pids = lambda: [host_pid]
    return str(sid)


def attach_argv(session_id: str) -> list[str]:
    return [*TERMWISE, "attach", session_id]


def run_round(side: Side, shape: str, total: int, extra_pids: Callable[[], list[int]],
              terminal: ByteTerminal | None, timeout: float = 900.0) -> Sample:  # fmt: skip
    """One production through one side; its wall time and the CPU of everything involved."""
    token = uuid.uuid4().hex[:10]
    pids = side.pids() + extra_pids()
    before = sum(proc_cpu(p) for p in pids)
    term_before = terminal.cpu if terminal is not None else 0.0
    count_before = terminal.count if terminal is not None else 0
    if terminal is not None:
        terminal.expect(f"END-{token}-DONE".encode())
    with open(side.fifo, "w") as fifo:
        fifo.write(f"{token} {shape} {total}\n")
    stamp = side.folder / f"time.{token}"
    if terminal is not None:
        assert terminal.wait(timeout), f"{side.name}: no end marker"
    assert wait_until(lambda: stamp.exists() and stamp.read_text().strip(), timeout, 0.02)
    start, end = (float(x) for x in stamp.read_text().split())
    if terminal is not None:
        end = max(end, terminal.seen_at)
    # Let the last bytes settle so their CPU is counted.
    time.sleep(0.2)
    after = sum(proc_cpu(p) for p in pids)
    cpu = after - before + times_cpu(side.folder / f"cpu.{token}")
    share, preempted = producer_report(side.folder / f"prod.{token}")
    if terminal is None:
        return Sample(end - start, cpu, 0, share, preempted)
    cpu += terminal.cpu - term_before
    return Sample(end - start, cpu, terminal.count - count_before, share, preempted)


def producer_report(path: Path) -> tuple[float, int]:
    """GNU time's report on the producer: the part of its run it spent on a CPU, and how
    often it was preempted ((0, 0) without GNU time)."""
    try:
        wall, user, system, preempted = path.read_text().split()[-4:]
        return (float(user) + float(system)) / max(float(wall), 0.01), int(preempted)
    except (OSError, ValueError):
        return 0.0, 0


def spread(values: Sequence[float]) -> str:
    return f"{min(values):7.3f} {statistics.median(values):7.3f} {max(values):7.3f}"


def print_wall_cpu(title: str, times: dict[str, list[float]], cpus: dict[str, list[float]]) -> None:
    """`title` with the load average, then min / median / max wall and CPU seconds per side."""
    load = os.getloadavg()
    print(f"\n{title} (load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}); seconds")
    width = max(16, *(len(name) for name in times))
    print(f"  {'side':<{width}} {'wall: min  median    max':>26}   {'cpu: min  median    max':>25}")
    for name, values in times.items():
        print(f"  {name:<{width}} {spread(values)}   {spread(cpus[name])}")


def ratio(a: Sequence[float], b: Sequence[float]) -> str:
    pairs = [x / y for x, y in zip(a, b, strict=True) if y > 0]
    med = statistics.median(a) / statistics.median(b)
    return f"{med:5.2f}x (rounds {min(pairs):.2f}-{max(pairs):.2f})"


def median_ratio(a: Sequence[float], b: Sequence[float]) -> float:
    return statistics.median(a) / statistics.median(b)


def print_table(
    title: str,
    results: dict[str, list[Sample]],
    ours: str,
    peers: Sequence[str],
    key: str = "",
    megabytes: float = 0.0,
) -> None:
    """min / median / max of time and CPU per side, then Termwise ÷ each peer; with
    `megabytes`, also each side's median CPU per MB relayed."""
    print(f"\n{title}")
    print(f"  {'side':<22} {'time s: min  median    max':>28}   {'cpu s: min  median    max':>27}")
    for name, samples in results.items():
        print(f"  {name:<22} {spread([s.seconds for s in samples])}   "
              f"{spread([s.cpu for s in samples])}")  # fmt: skip
    if megabytes:
        per_mb = ", ".join(
            f"{name} {statistics.median(s.cpu for s in samples) / megabytes * 1000:.1f}"
            for name, samples in results.items()
        )
        print(f"  cpu ms per MB (median, every process involved): {per_mb}")
    if any(s.received for samples in results.values() for s in samples):
        taken = ", ".join(
            f"{name} {statistics.median(s.received for s in samples) / 1e6:.1f}"
            for name, samples in results.items()
        )
        print(f"  MB the terminal took (median; tmux may redraw instead of relaying): {taken}")
    if any(s.producer_share for samples in results.values() for s in samples):
        ran = ", ".join(
            f"{name} {statistics.median(s.producer_share for s in samples):.0%}"
            f" ({statistics.median(s.preempted for s in samples) / 1000:.0f}k)"
            for name, samples in results.items()
        )
        print(f"  producer on a CPU, of its run (times preempted), median: {ran}")
    for peer in peers:
        mine, theirs = results[ours], results[peer]
        print(f"  {ours} / {peer}: time {ratio([s.seconds for s in mine], [s.seconds for s in theirs])}"
              f", cpu {ratio([s.cpu for s in mine], [s.cpu for s in theirs])}")  # fmt: skip
        if key:
            times = median_ratio([s.seconds for s in mine], [s.seconds for s in theirs])
            budget(f"{key}.{ours}_per_{peer}.time", times)
            budget(
                f"{key}.{ours}_per_{peer}.cpu",
                median_ratio([s.cpu for s in mine], [s.cpu for s in theirs]),
            )


def have(*tools: str) -> bool:
    return all(shutil.which(t) for t in tools)


PYTHON = sys.executable


BASELINE = Path(__file__).with_name("baseline.json")
REGRESSION = 1.25  # a ratio may grow by this factor over the recorded one before failing


# Ratios of the running test that regressed; tests/bench/conftest.py fails the test with
# them once its body is done, so one bad ratio does not hide the rest of the table.
REGRESSED: list[str] = []


def budget(key: str, value: float) -> None:
    """Note a ratio (lower is better) that regressed past the recorded table by more than
    25 % (the test fails at its end); with TW_BENCH_RECORD=1, record this run's value."""
    import json

    table = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    if os.environ.get("TW_BENCH_RECORD") == "1":
        table[key] = round(value, 3)
        BASELINE.write_text(json.dumps(dict(sorted(table.items())), indent=2) + "\n")
        return
    recorded = table.get(key)
    if recorded is None:
        print(f"  (no recorded {key} in {BASELINE.name}; TW_BENCH_RECORD=1 records one)")
        return
    if value > recorded * REGRESSION:
        line = f"{key} regressed: {value:.2f} against {recorded:.2f} recorded (limit +25 %)"
        print(f"  REGRESSED {line}")
        REGRESSED.append(line)
