"""Table tests: every case in cases.yaml, nasty_inputs.yaml and edges.yaml gets its verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from termwise.agent.safety import classify

HERE = Path(__file__).parent


def load_cases(name: str) -> list[dict[str, Any]]:
    data = yaml.safe_load((HERE / name).read_text(encoding="utf-8"))
    cases = data["cases"]
    for case in cases:
        if "repeat" in case:  # long inputs are built, not pasted
            case["cmd"] = case["cmd"] * int(case["repeat"]) + case.get("tail", "")
    return cases


def _id(case: dict[str, Any]) -> str:
    text = case["cmd"] if len(case["cmd"]) < 60 else case["cmd"][:57] + "..."
    return f"{case.get('shell', 'bash')}:{text}"


TABLE = load_cases("cases.yaml")
NASTY = load_cases("nasty_inputs.yaml")
EDGES = load_cases("edges.yaml")


def _check(case: dict[str, Any]) -> None:
    verdict = classify(case["cmd"], case.get("shell", "bash"))
    assert verdict.level == case["level"], f"{case['cmd']!r}: {verdict}"
    assert verdict.reasons, "a verdict always says why"
    # a placeholder of ours for a path only known at run time is never shown to the user
    assert not any("$COMPUTED" in reason for reason in verdict.reasons), verdict.reasons
    fired = [reason.split(":", 1)[0] for reason in verdict.reasons]
    if "rule" in case:
        assert case["rule"] in fired, (
            f"{case['cmd']!r}: expected {case['rule']}, got {verdict.reasons}"
        )
    if "not_rule" in case:  # a reason that would mislead the reader
        assert case["not_rule"] not in fired, f"{case['cmd']!r}: {verdict.reasons}"


@pytest.mark.parametrize("case", TABLE, ids=_id)
def test_table(case: dict[str, Any]) -> None:
    """A command gets the level a careful reviewer would give it, naming the rule that fired."""
    _check(case)


@pytest.mark.parametrize("case", NASTY, ids=_id)
def test_nasty_inputs(case: dict[str, Any]) -> None:
    """Inputs built to slip past a checker (quoting, nesting, encodings, look-alikes) are caught."""
    _check(case)


@pytest.mark.parametrize("case", EDGES, ids=_id)
def test_edges(case: dict[str, Any]) -> None:
    """Issue 14's edges: inline scripts, heredocs, lost work, cloud deletes, temp folders."""
    _check(case)


def test_table_covers_every_level_in_every_shell_family() -> None:
    """The table is broad: each level appears for bash, PowerShell and cmd alike."""
    seen = {(c.get("shell", "bash"), c["level"]) for c in TABLE}
    for shell in ("bash", "pwsh", "cmd"):
        for level in ("safe", "confirm", "dangerous"):
            assert (shell, level) in seen


def test_unknown_shell_is_read_as_bash_but_never_safe() -> None:
    """An unknown shell name cannot make a command look safe; the reason says what happened."""
    verdict = classify("ls", "tcsh-9000")
    assert verdict.level == "confirm"
    assert any(r.startswith("unknown-shell") for r in verdict.reasons)
    assert classify("rm -rf /", "tcsh-9000").level == "dangerous"


def test_shell_names_fold_case_and_exe_suffix() -> None:
    """`PWSH.EXE` and a full path to cmd.exe pick the right parser."""
    assert classify("Remove-Item x -Recurse -Force", "PWSH.EXE").level == "dangerous"
    assert classify("rd /s /q x", r"C:\Windows\System32\cmd.exe").level == "dangerous"


def test_reasons_list_only_the_winning_level() -> None:
    """Reasons explain the verdict given, not the harmless parts around it."""
    verdict = classify("ls && rm -rf / && pwd")
    assert verdict.level == "dangerous"
    assert all("known-safe" not in r for r in verdict.reasons)


def test_classify_returns_new_verdicts_without_shared_state() -> None:
    """Two calls do not leak findings into each other."""
    assert classify("rm -rf /").level == "dangerous"
    assert classify("ls").level == "safe"
    assert classify("ls").reasons == ("known-safe: ls",)


def test_random_shell_soup_never_crashes() -> None:
    """Thousands of random fragments of shell syntax give a verdict with reasons, never an error."""
    import random

    pieces = [*"ab rm-f/\\'\"`$(){}[]<>|&;#\n\t%^@=*?~.,:+"]
    pieces += ["rm -rf /", "sudo ", "Remove-Item ", "-Recurse", "cmd /c ", "bash -c ", "pwsh -c "]
    pieces += ["$(", "@{", "@(", "<#", "#>", "--%", "2>&1", "&&", "||", "iex ", "-enc ", "wsl -- "]
    pieces += ["find . -exec ", "\\;", "case x in", "[[", "$((", "<<EOF\n", '@"\n', "if exist x "]
    rng = random.Random(2026)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        shell = rng.choice(["bash", "zsh", "pwsh", "cmd"])
        verdict = classify(text, shell)
        assert verdict.level in ("safe", "confirm", "dangerous") and verdict.reasons, text


def test_recursive_deletes_name_the_specific_rule_first() -> None:
    """`rm -rf` is explained by the recursive rule, not the plain `-f` one it implies."""
    from termwise.agent.safety import classify

    posix = classify("rm -rf ./build", "bash")
    assert posix.level == "dangerous"
    assert [r.split(":")[0] for r in posix.reasons] == ["rm-recursive-force"]
    ps = classify("Remove-Item -Recurse -Force build", "pwsh")
    assert [r.split(":")[0] for r in ps.reasons] == ["remove-item-recurse-force"]
    assert classify("rm -f a.txt", "bash").reasons[0].startswith("rm-force:")


def test_a_checker_bug_fails_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the analyzer itself breaks on a command (a fault no input causes on purpose), the
    command is dangerous, with a reason, instead of an exception or a pass."""
    from termwise.agent.safety.engine import Analyzer

    def broken(self: Analyzer, text: str, family: str, depth: int = 0) -> None:
        raise ValueError("a bug")

    monkeypatch.setattr(Analyzer, "text", broken)
    verdict = classify("ls", "bash")
    assert verdict.level == "dangerous"
    assert verdict.reasons == ("check-failed: the safety check failed on this command",)
