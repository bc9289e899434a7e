"""`termwise --smoke-test`, the check the installer build runs on the frozen app."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.wine_limits import UNDER_WINE, wine_limit

TIMEOUT = 120


def smoke(env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run(
        [sys.executable, "-m", "termwise.tray.commands.cli", "--smoke-test"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
    )


@wine_limit("no-powershell")  # the default shell on Windows
def test_smoke_test_runs_a_command_in_a_real_session_and_passes(termwise_home: Path):
    """The default shell runs `echo termwise-smoke`; its block comes back with exit 0."""
    before = sorted(termwise_home.rglob("*"))
    done = smoke()
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    steps = ("package metadata", "bundled resources", "Qt", "open a session", "read it over IPC")
    for step in (*steps, "shut down"):
        assert re.search(rf"^  ok    {step}:", out, re.M), out
    assert "'echo termwise-smoke' -> 'termwise-smoke', exit code 0" in out
    assert out.rstrip().endswith("smoke test passed")
    # It worked in a throwaway home, removed afterwards, and left the user's alone.
    home = re.search(r"start session host: home (\S+)", out)
    assert home and not Path(home.group(1)).exists()
    assert sorted(termwise_home.rglob("*")) == before


@pytest.mark.requires("zsh")
def test_smoke_test_with_zsh():
    """TERMWISE_SMOKE_SHELL picks the shell; zsh's integration gives the block back too."""
    done = smoke({"TERMWISE_SMOKE_SHELL": "zsh"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"open a session: session \d+: zsh, pid \d+", done.stdout)


def test_unknown_shell_fails_with_a_clear_message():
    """An unknown shell name makes the smoke test fail and say which shells exist."""
    done = smoke({"TERMWISE_SMOKE_SHELL": "fish"})
    assert done.returncode == 1
    assert "FAIL  open a session: UnknownShell: unknown shell 'fish'" in done.stderr
    assert "smoke test FAILED" in done.stderr
    assert "passed" not in done.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="uses a POSIX stand-in shell")
def test_shell_that_dies_at_start_fails_and_names_its_exit_code(tmp_path: Path):
    """A broken shell (here one that exits 7 at once) is reported, not waited on forever."""
    fake = tmp_path / "bash"
    fake.write_text("#!/bin/sh\nexit 7\n")
    fake.chmod(0o755)
    done = smoke({"TERMWISE_SMOKE_SHELL": "bash", "PATH": f"{tmp_path}:{os.environ['PATH']}"})
    assert done.returncode == 1
    assert "FAIL  run a command: bash exited at once (exit code 7)" in done.stderr


@pytest.mark.windows
@pytest.mark.skipif(sys.platform != "win32", reason="Windows shells in ConPTY")
@pytest.mark.parametrize(
    "shell",
    [
        pytest.param("cmd", marks=wine_limit("no-prompt-marks")),
        pytest.param("powershell", marks=wine_limit("no-powershell")),
    ],
)
def test_smoke_test_with_windows_shells(shell: str):
    """On Windows both cmd and Windows PowerShell run the command and report exit 0."""
    done = smoke({"TERMWISE_SMOKE_SHELL": shell})
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(rf"open a session: session \d+: {shell}, pid \d+", done.stdout)
    # cmd's prompt carries no exit code (termwise.cmd); PowerShell's does.
    status = "exit code not reported (cmd)" if shell == "cmd" else "exit code 0"
    assert f"'termwise-smoke', {status}" in done.stdout


@pytest.mark.skipif(not UNDER_WINE, reason="Wine's console only")
def test_smoke_test_with_cmd_under_wine_reads_the_last_screen():
    """Wine's console shows cmd's marks as '?]133;A?\\': the smoke test passes on the last
    screen and says that it did (the Windows lane's installed smoke test is the same)."""
    done = smoke({"TERMWISE_SMOKE_SHELL": "cmd"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "'termwise-smoke' on the last screen" in done.stdout
    assert "smoke test passed (last-screen fallback: no prompt marks arrived from cmd)" in (
        done.stdout
    )


def test_only_cmd_may_leave_the_exit_code_out():
    """A cmd block without an exit code passes; any other shell must report 0."""
    from termwise.tray.system.smoke import exit_code_problem

    assert exit_code_problem("cmd", None) is None
    assert exit_code_problem("powershell", 0) is None
    assert exit_code_problem("powershell", None) == "expected exit code 0, got None"
    assert exit_code_problem("cmd", 1) == "expected exit code 0, got 1"


def _fake_shell(tmp_path: Path, body: str) -> dict[str, str]:
    """A POSIX stand-in named bash whose prompt shows its marks as text (ESC lost), as
    Wine's console shows cmd's; `body` handles each typed line."""
    fake = tmp_path / "bash"
    prompt = r"printf '?]133;D?\\?]133;A?\\$ ?]133;B?\\'"
    fake.write_text(f"#!/bin/sh\nwhile {prompt}; IFS= read -r line; do {body}; done\n")
    fake.chmod(0o755)
    return {"TERMWISE_SMOKE_SHELL": "bash", "PATH": f"{tmp_path}:{os.environ['PATH']}"}


@pytest.mark.skipif(sys.platform == "win32", reason="uses a POSIX stand-in shell")
def test_marks_shown_as_text_pass_on_the_last_screen_and_say_so(tmp_path: Path):
    """No marks arrive, but the prompt shows them as text: the command's output is read
    from the last screen, here and over IPC, and the result names the fallback."""
    done = smoke(_fake_shell(tmp_path, 'eval "$line"'))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert re.search(
        r"^  ok    run a command: 'echo termwise-smoke' -> 'termwise-smoke' on the last "
        r"screen \(\d+ ms\); last-screen fallback: bash's prompt marks reach the console as text",
        out,
        re.M,
    ), out
    assert re.search(r"^  ok    read it over IPC: .* returned the last screen with", out, re.M)
    assert out.rstrip().endswith(
        "smoke test passed (last-screen fallback: no prompt marks arrived from bash)"
    ), out


@pytest.mark.skipif(sys.platform == "win32", reason="uses a POSIX stand-in shell")
def test_last_screen_fallback_still_fails_when_the_command_does_not_run(tmp_path: Path):
    """The fallback is not a pass by default: a shell that never runs the command fails."""
    done = smoke(_fake_shell(tmp_path, "echo not-run"))
    assert done.returncode == 1, done.stdout
    assert (
        "FAIL  run a command: no prompt marks arrive from bash and 'termwise-smoke' did not "
        "show on its last screen within 30 s"
    ) in done.stderr
    assert "smoke test FAILED" in done.stderr
