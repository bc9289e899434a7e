"""`termwise mem …` as a user runs it: a real subprocess on a temporary home."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _mem(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "termwise.tray.commands.cli", "mem", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_add_search_show_and_purge(termwise_home: Path) -> None:
    """Add two memories, find one by search (text and JSON), show it, forget it, forget all."""
    added = _mem("add", "--key", "pref:editor", "--type", "profile", "--content", "uses Helix")
    assert added.returncode == 0 and "remembered pref:editor" in added.stdout
    assert (
        _mem("add", "--key", "fact:vpn", "--type", "fact", "--content", "VPN is wg0").returncode
        == 0
    )

    found = _mem("search", "which editor")
    assert found.returncode == 0 and found.stdout.startswith("pref:editor  (profile, ")
    assert "profile.md:" in found.stdout and "uses Helix" in found.stdout
    [record] = [json.loads(line) for line in _mem("search", "vpn", "--json").stdout.splitlines()]
    assert record["key"] == "fact:vpn" and record["file"] == "facts.md" and record["score"] >= 3

    shown = _mem("show", "pref:editor")
    assert (
        "## pref:editor\n- type: profile\n" in shown.stdout
        and "- content: uses Helix" in shown.stdout
    )
    everything = _mem("show").stdout
    assert "profile.md" in everything and "facts.md" in everything and "wg0" in everything

    assert _mem("purge", "--key", "pref:editor").stdout.strip() == "forgot pref:editor"
    missing = _mem("show", "pref:editor")
    assert missing.returncode == 1
    assert (
        missing.stderr.strip()
        == "termwise: no memory under key 'pref:editor' (see `termwise mem show`)"
    )

    refused = _mem("purge", "--all")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert _mem("show", "fact:vpn").returncode == 0
    assert _mem("purge", "--all", "--yes").stdout.strip() == "forgot 1 memories"
    assert _mem("show", "fact:vpn").returncode == 1


def test_path_is_under_termwise_home(termwise_home: Path) -> None:
    """`mem path` prints the memory folder inside TERMWISE_HOME."""
    out = _mem("path")
    assert out.returncode == 0 and Path(out.stdout.strip()) == termwise_home / "data" / "memory"


def test_bad_input_is_a_clear_one_line_error(termwise_home: Path) -> None:
    """A secret, a bad key or an unknown type is refused with a message, never a traceback."""
    secret = _mem(
        "add", "--key", "fact:token", "--type", "fact", "--content", "token ghp_" + "a1B2" * 9
    )
    assert secret.returncode == 1 and "looks like it holds a secret" in secret.stderr
    bad_key = _mem("add", "--key", "two words", "--type", "fact", "--content", "x")
    assert bad_key.returncode == 1 and "without spaces" in bad_key.stderr
    assert "Traceback" not in bad_key.stderr
    bad_type = _mem("add", "--key", "k", "--type", "episode", "--content", "x")
    assert bad_type.returncode == 2 and "invalid choice" in bad_type.stderr
    assert not (termwise_home / "data" / "memory" / "facts.md").exists()


def test_damaged_file_is_reported_on_stderr(termwise_home: Path) -> None:
    """A broken section is named with file and line on stderr while the rest still shows."""
    _mem("add", "--key", "fact:a", "--type", "fact", "--content", "alpha")
    facts = termwise_home / "data" / "memory" / "facts.md"
    facts.write_text(
        facts.read_text(encoding="utf-8") + "\n## fact:b\nnot a field\n", encoding="utf-8"
    )
    shown = _mem("show")
    assert shown.returncode == 0 and "alpha" in shown.stdout
    assert f"memory damaged: {facts}:" in shown.stderr and "kept as" in shown.stderr


def test_an_unreadable_memory_file_gets_a_sentence_not_a_traceback(termwise_home: Path) -> None:
    """`mem add` over a memory file it cannot read once printed a traceback."""
    from termwise.agent.base.paths import resolve_paths

    facts = resolve_paths().memory_dir / "facts.md"
    facts.mkdir(parents=True)  # a folder where the file should be: unreadable, even for root
    added = _mem("add", "--key", "fact:x", "--type", "fact", "--content", "hello")
    assert added.returncode == 1
    assert "cannot read the memory file" in added.stderr and str(facts) in added.stderr
    assert "Traceback" not in added.stderr
    assert facts.is_dir(), "nothing was moved or overwritten"


LEAN = r"""
import sys
from termwise.tray.commands.cli import main
code = main(["mem", "search", sys.argv[1]])
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"PySide6", "shiboken6", "openai",
               "httpx", "yaml", "keyring", "filelock", "ptyprocess"})
print("heavy:" + ",".join(heavy), file=sys.stderr)
sys.exit(code)
"""


def test_mem_search_stays_lean(termwise_home: Path) -> None:
    """`mem search` with its index built imports no Qt, no model SDK, no config or lock
    library: it reads the index and the hits' lines, nothing else."""
    assert (
        _mem("add", "--key", "fact:vpn", "--type", "fact", "--content", "VPN is wg0").returncode
        == 0
    )
    assert _mem("search", "vpn").returncode == 0  # builds the index
    done = subprocess.run(
        [sys.executable, "-c", LEAN, "wg0"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "fact:vpn" in done.stdout
    assert done.stderr.splitlines()[-1] == "heavy:", done.stderr
