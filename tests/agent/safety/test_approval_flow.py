"""The one approval flow: what each verdict offers, what each answer records, Deny as the default."""

from __future__ import annotations

from pathlib import Path

import pytest
from termwise.agent.base.types import Verdict
from termwise.agent.safety.approval_flow import (
    answer_from,
    answer_from_text,
    approval_request,
    settle,
    suggested_pattern,
    terminal_prompt,
)
from termwise.agent.safety.approvals import ApprovalStore

DANGER = Verdict("dangerous", ("rm-recursive-force: deletes recursively",))
CONFIRM = Verdict("confirm", ("changes: pushes commits",))


def test_dangerous_offers_no_always_no_session_no_wildcard() -> None:
    """A dangerous command: Run once, Deny (the default) and Always deny — nothing broader."""
    request = approval_request("rm -rf ./build", "bash", DANGER)
    assert [o.answer for o in request.options] == ["once", "deny", "never"]
    assert request.heading == "This command is dangerous" and request.dangerous
    assert request.default == "deny" and request.pattern is None
    assert request.reasons == DANGER.reasons
    assert "Always allow" not in terminal_prompt(request)
    assert "Deny (Enter)" in terminal_prompt(request)


def test_confirm_offers_once_session_always_and_a_wildcard() -> None:
    """A confirm command: once / this session / always / `git push *` / deny / always deny."""
    request = approval_request("git push origin main", "bash", CONFIRM)
    assert [o.answer for o in request.options] == [
        "once",
        "session",
        "always",
        "pattern",
        "deny",
        "never",
    ]
    assert request.pattern == "git push *"
    assert request.heading == "This command needs your confirmation" and not request.dangerous
    assert "confirm." not in request.heading


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("git push origin main", "git push *"),
        ("npm install", None),
        ("ls", None),
        ("$(evil) push x", None),
        ("a;b c d", None),
    ],
)
def test_suggested_pattern(command: str, pattern: str | None) -> None:
    """The wildcard is the program and subcommand; never from shell syntax or too few words."""
    assert suggested_pattern(command) == pattern


def test_each_answer_records_what_it_says(tmp_path: Path) -> None:
    """Deny and once store nothing; session stays in memory; always/pattern/never are saved."""
    path = tmp_path / "approvals.yaml"
    store = ApprovalStore(path)
    request = approval_request("git push origin main", "bash", CONFIRM)
    assert settle(store, request, "deny").runs is False
    assert settle(store, request, "once").runs is True
    assert not path.exists() and store.entries() == []
    assert settle(store, request, "session").remembered == "session"
    assert not path.exists()
    assert settle(store, request, "pattern").remembered == "always:git push *"
    assert ApprovalStore(path).decide("git push origin dev", "bash", CONFIRM) == "allow"
    never = settle(store, request, "never")
    assert (never.runs, never.remembered) == (False, "deny")
    assert ApprovalStore(path).decide("git push origin main", "bash", CONFIRM) == "deny"


@pytest.mark.parametrize("raw", [None, "cancel", "", "esc", "always", "pattern", 3, "session"])
def test_anything_not_offered_is_a_one_time_deny_for_dangerous(raw: object, tmp_path: Path) -> None:
    """Esc, a closed window, EOF, a stale "cancel" or an answer a dangerous command does not offer
    is the one-time deny: nothing runs, nothing is saved, no error."""
    store = ApprovalStore(tmp_path / "approvals.yaml")
    request = approval_request("rm -rf ./build", "bash", DANGER)
    settled = settle(store, request, raw)
    assert (settled.answer, settled.runs, settled.remembered) == ("deny", False, "")
    assert store.entries() == []


def test_terminal_answers() -> None:
    """Enter and EOF deny; letters and words pick options; a typo asks again (None)."""
    request = approval_request("git push origin main", "bash", CONFIRM)
    assert answer_from_text(request, "\n") == "deny"
    assert answer_from_text(request, None) == "deny"
    assert answer_from_text(request, "y\n") == "once"
    assert answer_from_text(request, "once") == "once"
    assert answer_from_text(request, "s") == "session"
    assert answer_from_text(request, "p") == "pattern"
    assert answer_from_text(request, "d") == "never"
    assert answer_from_text(request, "n") == "deny"
    assert answer_from_text(request, "zzz") is None
    assert answer_from_text(request, "\x1b\n") == "deny"  # Esc then Enter
    danger = approval_request("rm -rf ./build", "bash", DANGER)
    assert answer_from_text(danger, "a") is None  # "always" is not offered: ask again
    assert answer_from(danger, "once") == "once"
