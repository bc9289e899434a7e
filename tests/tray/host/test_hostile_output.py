"""What a program prints cannot end the user's shell or wedge `termwise context` (real host, real bash)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.wine_limits import wine_limit
from tests.tray.serve_support import ServeProcess, serve_fixture, termwise


@pytest.fixture
def serve(termwise_home: Path) -> Iterator[ServeProcess]:
    yield from serve_fixture(termwise_home)


@wine_limit("no-posix-tools")
def test_printing_a_malformed_osc7_leaves_the_shell_running(serve: ServeProcess) -> None:
    """`printf '\\e]7;file://[::1/x\\a'` once raised in the reader and ended the session (exit 129)."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, r"printf '\e]7;file://[::1/x\a'; printf '\e]7;file://%%zz\a'")
    block = serve.run_command(sid, "echo still-here")
    assert block["exit_code"] == 0
    sessions = {s["id"]: s for s in serve.client.sessions()}
    assert sessions[sid]["alive"], serve.stderr()
    result = termwise("context", "--json", "--blocks", "1", "--session", sid)
    assert json.loads(result.stdout)[-1]["output"] == "still-here"


@pytest.mark.timeout(120)
@wine_limit("no-posix-tools")
def test_huge_cursor_counts_do_not_wedge_context(serve: ServeProcess) -> None:
    """15 printed bytes (`\\e[400000000C`) once made `termwise context` spin for minutes at 1.4 GB."""
    sid = serve.client.create("bash")["id"]
    serve.run_command(sid, r"printf 'a\e[400000000Cb\n'; printf 'c\e[100000000Bd\n'")
    result = termwise("context", "--json", "--blocks", "1", "--session", sid, timeout=60)
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)[-1]["output"]
    assert "a" in output and "b" in output and "d" in output
    assert len(output) < 100_000
    screen = termwise("context", "--session", sid, timeout=60)
    assert screen.returncode == 0, screen.stderr
