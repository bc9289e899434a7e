"""PowerShell 5.1/7 and cmd.exe with Termwise's integration, in real ConPTYs (Windows CI)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from termwise.tray.host.shells import available_shells

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


@pytest.mark.parametrize("name", POWERSHELLS)
def test_powershell_blocks(name: str, live) -> None:
    """PowerShell reports command, output, native exit code and cwd."""
    shell = live(name)
    hello = shell.run("Write-Output hi")
    assert (hello.command, hello.text(), hello.exit_code) == ("Write-Output hi", "hi", 0)
    failed = shell.run("cmd /c exit 3")
    assert failed.exit_code == 3
    shell.run("Set-Location $env:SystemRoot")
    assert (shell.parser.cwd or "").lower().endswith("windows")


def test_cmd_blocks(live) -> None:
    """cmd.exe blocks carry the command and its output (cmd cannot report exit codes)."""
    shell = live("cmd")
    block = shell.run("echo hi")
    assert (block.command, block.text()) == ("echo hi", "hi")
