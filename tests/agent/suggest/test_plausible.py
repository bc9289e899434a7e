"""Which model "commands" cannot be command lines: table tests, both ways."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from termwise.agent.suggest.plausible import implausible

DROPPED = [
    ("bash", 'ls | grep -i "*.json"', "file glob"),
    ("bash", "grep -r '*.py' .", "file glob"),
    ("bash", "rg *.log", "file glob"),
    ("bash", "sudo grep -E '*.conf' /etc", "file glob"),
    ("pwsh", 'Get-ChildItem | Select-String -Pattern "*.txt"', "file glob"),
    ("bash", 'echo "unterminated', "unclosed double quote"),
    ("zsh", "echo 'it", "unclosed single quote"),
    ("bash", "echo `date", "unclosed backquote"),
    ("pwsh", "Write-Host 'it''s", "unclosed single quote"),
    ("cmd", 'echo "hi', "unclosed double quote"),
    ("bash", "List the five largest files in this folder", "sentence"),
    ("bash", "To list the files, use ls.", "sentence"),
    ("bash", "Here is the command you need", "sentence"),
    ("bash", "ls \x1b[31m", "control characters"),
    ("bash", "   ", "empty"),
]
KEPT = [
    ("bash", 'grep -r --include="*.json" token .'),
    ("bash", 'grep -r --include "*.json" token .'),
    ("bash", 'grep -F "*.json" notes.txt'),
    ("bash", 'find . -name "*.json"'),
    ("bash", "du -ah . | sort -rh | head -5"),
    ("bash", 'echo "it\'s fine"'),
    ("bash", "awk '{print $1}' access.log"),
    ("bash", 'git commit -m "Fix the build."'),
    ("bash", "echo $'a\\'b'"),
    ("bash", "ls  # don't worry"),
    ("bash", "cat <<'EOF' > notes.txt\nit's data\nEOF"),
    ("bash", "echo Done."),
    ("pwsh", "Get-ChildItem -Recurse -Filter *.json | Sort-Object Length -Descending"),
    ("pwsh", 'Write-Host "say `"hi`""'),
    ("pwsh", "Write-Host 'it''s'"),
    ("cmd", 'dir /s /b "*.json"'),
    ("bash", "make build"),
    ("bash", "git status"),
]


@pytest.mark.parametrize(("shell", "command", "why"), DROPPED)
def test_not_a_command_line(shell: str, command: str, why: str) -> None:
    """Each of these is dropped, and the reason says what is wrong."""
    reason = implausible(command, shell)
    assert reason is not None and why in reason


@pytest.mark.parametrize(("shell", "command"), KEPT)
def test_real_command_lines_are_kept(shell: str, command: str) -> None:
    """Real commands, globs where they belong and quotes in quotes pass."""
    assert implausible(command, shell) is None


@settings(max_examples=max(2_000, settings().max_examples or 0))
@given(text=st.text(max_size=400), shell=st.sampled_from(["bash", "zsh", "pwsh", "cmd", "fish"]))
def test_any_text_gets_an_answer_never_an_exception(text: str, shell: str) -> None:
    """Whatever a model puts in "command", the check answers (a reason or None)."""
    reason = implausible(text, shell)
    assert reason is None or isinstance(reason, str)
