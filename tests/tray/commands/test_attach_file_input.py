"""`termwise attach` with stdin from a file or /dev/null (not a terminal, not a pipe)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.wine_limits import wine_limit
from tests.tray.serve_support import TERMWISE, ServeProcess

pytestmark = pytest.mark.usefixtures("plain_home")


@wine_limit("no-posix-tools")
def test_attach_types_a_file_given_as_stdin(serve: ServeProcess, tmp_path: Path) -> None:
    """A file on stdin is typed into the session (no crash on an unpollable stdin); the client exits with the shell."""
    sid = serve.client.create("bash")["id"]
    script = tmp_path / "typed.txt"
    script.write_text("echo from-$((2 + 3))\nexit 7\n")
    with script.open("rb") as stdin:
        result = subprocess.run(
            [*TERMWISE, "attach", sid], stdin=stdin, capture_output=True, timeout=60
        )
    assert result.returncode == 7, result.stderr.decode(errors="replace")
    assert b"from-5" in result.stdout
    commands = [b["command"] for b in serve.client.context(sid, 5)]
    assert "echo from-$((2 + 3))" in commands
