"""State snapshots: compression over budget, and resuming keeps the goal and the plan."""

from __future__ import annotations

from pathlib import Path

from termwise.agent.base.prompts import load_prompt
from termwise.memory.snapshot import HistoryCompressor, PlanItem, StateSnapshot

MODEL_SNAPSHOT = """Here you go:
## Overall goal
Deploy the blog with Docker.
## Key knowledge
- port 8080 is taken
## File-system state
- wrote docker-compose.yml
## Recent actions
- ran docker compose up (failed: port)
## Current plan
1. [DONE] write compose file
2. [IN PROGRESS] pick a free port
3. [TODO] start the stack
"""


def _history(n: int) -> list[dict[str, str]]:
    msgs = [{"role": "user", "content": "Help me deploy my blog with Docker."}]
    for i in range(n):
        msgs.append({"role": "assistant", "content": f"step {i} " + "x" * 200})
        msgs.append({"role": "user", "content": f"done {i}"})
    return msgs


def test_within_budget_nothing_changes() -> None:
    """A short history is left alone."""
    comp = HistoryCompressor(budget_tokens=10_000, summarize=lambda p: MODEL_SNAPSHOT)
    snap, rest = comp.compress(_history(2))
    assert snap is None and len(rest) == 5


def test_over_budget_history_becomes_a_snapshot_plus_recent_turns() -> None:
    """Over budget, old turns go to the summariser and come back as a structured snapshot."""
    prompts: list[str] = []

    def summarize(prompt: str) -> str:
        prompts.append(prompt)
        return MODEL_SNAPSHOT

    comp = HistoryCompressor(
        budget_tokens=300, summarize=summarize, keep_recent=2, instructions=load_prompt("snapshot")
    )
    snap, rest = comp.compress(_history(10))
    assert len(rest) == 2 and rest[-1]["content"] == "done 9"
    assert "Help me deploy my blog" in prompts[0] and "[IN PROGRESS]" in prompts[0]
    assert snap is not None and snap.goal == "Deploy the blog with Docker."
    assert snap.plan == (
        PlanItem("DONE", "write compose file"),
        PlanItem("IN PROGRESS", "pick a free port"),
        PlanItem("TODO", "start the stack"),
    )
    assert snap.files == ("wrote docker-compose.yml",)


def test_resume_from_a_saved_snapshot_keeps_goal_and_plan(tmp_path: Path) -> None:
    """A snapshot saved to disk and loaded again carries the same goal and plan into new messages."""
    snap = StateSnapshot.parse(MODEL_SNAPSHOT)
    path = tmp_path / "run" / "snapshot.md"
    snap.save(path)
    resumed = StateSnapshot.load(path)
    assert resumed == snap
    seed = resumed.as_messages()[0]["content"]
    assert "Deploy the blog with Docker." in seed and "2. [IN PROGRESS] pick a free port" in seed


def test_a_later_snapshot_that_forgets_the_goal_keeps_the_old_one() -> None:
    """If the summariser drops the goal and plan, the previous ones carry over."""
    first = StateSnapshot.parse(MODEL_SNAPSHOT)
    comp = HistoryCompressor(
        budget_tokens=100, summarize=lambda p: "## Recent actions\n- freed port 8080\n"
    )
    # An answer with neither goal nor plan counts as no snapshot: the plain one is used.
    snap, _ = comp.compress(_history(10), first)
    assert snap is not None and snap.goal == first.goal and snap.plan == first.plan


def test_summariser_failure_falls_back_to_a_plain_snapshot() -> None:
    """When the model fails the run still compresses, with the first request as its goal."""

    def broken(prompt: str) -> str:
        raise TimeoutError("no answer")

    comp = HistoryCompressor(budget_tokens=100, summarize=broken)
    snap, rest = comp.compress(_history(10))
    assert snap is not None and snap.goal == "Help me deploy my blog with Docker."
    assert snap.recent_actions and len(rest) == 4
    assert "no answer" in comp.failures[0]
