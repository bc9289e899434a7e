"""Process ancestry read from /proc, checked against real process chains."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from termwise.tray.host.foreground.procs import ancestry, parent_pid

from tests.tray.serve_support import wait_until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


class Chain:
    """outer sh → inner process (exec'd into `program`), with both pids known."""

    def __init__(self, program: str = "sleep") -> None:
        # The inner shell prints its pid, then becomes `program` under the same pid;
        # `; true` keeps the outer shell from exec'ing into the inner one.
        script = f"sh -c 'echo $$; exec \"{program}\" 60'; true"
        self.outer = subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE, text=True)
        assert self.outer.stdout is not None
        self.inner = int(self.outer.stdout.readline())

    def close(self) -> None:
        try:
            os.kill(self.inner, 15)
        except ProcessLookupError:
            pass
        self.outer.wait(10)
        if self.outer.stdout is not None:
            self.outer.stdout.close()


@pytest.fixture
def chain() -> Iterator[Chain]:
    c = Chain()
    yield c
    c.close()


def test_ancestry_walks_a_real_chain_up_to_init(chain: Chain) -> None:
    """A grandchild's ancestry is itself, its shell, this test process and on up to pid 1."""
    found = ancestry(chain.inner)
    assert found[:3] == (chain.inner, chain.outer.pid, os.getpid())
    assert found[-1] == 1 or parent_pid(found[-1]) in (0, None)
    assert len(set(found)) == len(found)


def test_parent_of_a_process_named_with_parentheses_and_spaces(tmp_path: Path) -> None:
    """A command name like 'x) (y z' does not confuse the /proc/PID/stat parser."""
    odd = tmp_path / "x) (y z"
    odd.symlink_to(
        subprocess.run(["which", "sleep"], capture_output=True, text=True).stdout.strip()
    )
    c = Chain(str(odd))
    try:
        # The odd name really is what /proc shows, once the shell has exec'd it.
        assert wait_until(lambda: "(" in Path(f"/proc/{c.inner}/comm").read_text())
        assert parent_pid(c.inner) == c.outer.pid
    finally:
        c.close()


def test_a_gone_process_has_no_parent() -> None:
    """Once a process has exited and been reaped, it has no parent and is its only ancestor."""
    proc = subprocess.Popen(["true"])
    proc.wait(10)
    assert parent_pid(proc.pid) is None
    assert ancestry(proc.pid) == (proc.pid,)
