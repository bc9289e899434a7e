"""The PTY contract on Windows (pywinpty over ConPTY), with cmd.exe and PowerShell."""

from __future__ import annotations

import sys

import pytest

from tests.support.wine_limits import wine_limit
from tests.tray.host.pty.contract import PtyContract

pytestmark = [
    pytest.mark.windows,
    pytest.mark.skipif(sys.platform != "win32", reason="needs Windows ConPTY"),
]


class TestWindowsPty(PtyContract):
    newline = b"\r\n"
    compute_command = b"set /a 6*7+1000"
    compute_needle = b"1042"
    # PowerShell prints the console buffer size the child sees.
    size_command = b'powershell -NoProfile -Command "$s=$Host.UI.RawUI.WindowSize; \\"$($s.Height) $($s.Width)\\""'

    @wine_limit("no-powershell")  # the size is read back through PowerShell
    def test_resize_is_seen_by_the_child(self, spawned):
        super().test_resize_is_seen_by_the_child(spawned)

    def echo_argv(self, word: str) -> list[str]:
        return ["cmd.exe", "/c", "echo", word]

    def shell_argv(self) -> list[str]:
        return ["cmd.exe"]

    def exit_argv(self, code: int) -> list[str]:
        return ["cmd.exe", "/c", f"exit {code}"]

    def stubborn_argv(self) -> list[str]:
        # A console program cannot refuse a forced tree kill; ignoring Ctrl+C/Break is its best.
        script = "[Console]::TreatControlCAsInput=$true; 'ready'; while ($true) { Start-Sleep -Milliseconds 50 }"
        return ["powershell.exe", "-NoProfile", "-Command", script]

    def lingering_argv(self, marker: str) -> list[str]:
        return ["cmd.exe", "/c", f"echo {marker} & ping -n 2 127.0.0.1 >nul & exit 7"]

    def test_terminate_lets_a_lingering_child_finish(self, spawned):
        """Not on Windows: a console program gets no polite request it could act on."""
        pytest.skip("Windows ends the console tree at once (see TerminationPolicy)")


def test_a_shell_under_program_files_gets_its_arguments(tmp_path):
    """pwsh in C:\\Program Files starts with its own arguments, not a path fragment."""
    import shutil

    from termwise.tray.host.pty import spawn_pty

    from tests.tray.host.pty.contract import read_to_eof

    pwsh = shutil.which("pwsh")
    if pwsh is None or " " not in pwsh:
        pytest.skip("needs pwsh installed under a folder with a space")
    pty = spawn_pty([pwsh, "-NoLogo", "-NoProfile", "-Command", "Write-Output ('tw' + 'ok')"])
    try:
        out = read_to_eof(pty, 60.0)
        assert b"twok" in out, out
        assert pty.wait(10.0) == 0
    finally:
        pty.close()
