"""PowerShell 5.1/7 and cmd.exe with Termwise's integration, in real ConPTYs (Windows CI)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from termwise.tray.host.shells import available_shells

from tests.support.wine_limits import wine_limit
from tests.tray.host.stream.live import LiveShell

pytestmark = [
    pytest.mark.windows,
    pytest.mark.skipif(sys.platform != "win32", reason="needs Windows"),
]

POWERSHELLS = ["pwsh", "powershell"]


@pytest.fixture
def live(tmp_path: Path):
    shells: list[LiveShell] = []

    def start(name: str) -> LiveShell:
        if name not in available_shells():
            pytest.skip(f"{name} not installed")
        shell = LiveShell(name, tmp_path)
        shells.append(shell)
        shell.wait_ready()
        return shell

    yield start
    for shell in shells:
        shell.close()


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=wine_limit("no-powershell")) for n in POWERSHELLS]
)
def test_powershell_blocks(name: str, live) -> None:
    """PowerShell reports command, output, native exit code and cwd."""
    shell = live(name)
    hello = shell.run("Write-Output hi")
    assert (hello.command, hello.text(), hello.exit_code) == ("Write-Output hi", "hi", 0)
    failed = shell.run("cmd /c exit 3")
    assert failed.exit_code == 3
    shell.run("Set-Location $env:SystemRoot")
    assert (shell.parser.cwd or "").lower().endswith("windows")


@wine_limit("no-prompt-marks")
def test_cmd_blocks(live) -> None:
    """cmd.exe blocks carry the command and its output (cmd cannot report exit codes)."""
    shell = live("cmd")
    block = shell.run("echo hi")
    assert (block.command, block.text()) == ("echo hi", "hi")


def test_cmd_integration_script_loads_and_marks_the_prompt(tmp_path: Path) -> None:
    """resources/shell/termwise.cmd runs in cmd.exe (Wine's too) and leaves a PROMPT with
    the command marks (133;D, 133;A, the cwd as 9;9, 133;B) around the user's own prompt."""
    import subprocess
    from importlib import resources

    script = resources.files("termwise.resources").joinpath("shell").joinpath("termwise.cmd")
    env = {k: v for k, v in os.environ.items() if k.upper() != "PROMPT"}
    done = subprocess.run(
        # A string: Windows passes it as it is (a list would escape the inner quotes as
        # \" , which cmd does not read).
        f'cmd.exe /d /c call "{script}" & set PROMPT',
        capture_output=True,
        text=True,
        errors="replace",
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    # The output shows what cmd could not run: Wine's cmd has no doskey, so the prompt
    # words (`??`, `deploy`) are missing there (listed in the README's Windows section).
    line = next((x for x in done.stdout.splitlines() if x.upper().startswith("PROMPT=")), "")
    st = "$e\\"  # ESC backslash: the string terminator after each mark
    assert line == f"PROMPT=$e]133;D{st}$e]133;A{st}$e]9;9;$P{st}$P$G$e]133;B{st}", done
