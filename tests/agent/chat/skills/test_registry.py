"""The whitelist as tools, and the JSON fallback for models without tool calls."""

from __future__ import annotations

from termwise.agent.chat.skills.base import SkillContext
from termwise.agent.chat.skills.registry import (
    fallback_catalogue,
    find_fallback_call,
    offered_skills,
)


def test_default_offer_is_the_file_and_command_skills(ctx: SkillContext) -> None:
    """Unconfigured, only the local skills are offered, each as an OpenAI function tool."""
    skills = offered_skills(ctx)
    assert [s.name for s in skills] == ["file_search", "file_read", "list_dir", "run_readonly"]
    spec = skills[1].tool_spec()
    assert spec["type"] == "function" and spec["function"]["name"] == "file_read"
    assert spec["function"]["parameters"]["required"] == ["path"]
    ctx.config.skills.allowed_folders = []
    assert [s.name for s in offered_skills(ctx)] == ["run_readonly"]


def test_fallback_call_is_found_in_prose() -> None:
    """A `{"skill": …, "args": …}` object inside an answer is recognised, nested args included."""
    text = 'Let me look.\n{"skill": "list_dir", "args": {"path": "src"}}\n'
    assert find_fallback_call(text) == ("list_dir", {"path": "src"})
    assert find_fallback_call('{"skill": "file_search"}') == ("file_search", {})
    assert find_fallback_call('Use {"command": "ls"} here') is None
    assert find_fallback_call('{"skill": "x", "args": {broken') is None


def test_fallback_catalogue_describes_each_skill(ctx: SkillContext) -> None:
    """The text catalogue names every offered skill and its arguments."""
    text = fallback_catalogue(offered_skills(ctx))
    assert "- file_read: Read a text file" in text and '"path": file to read' in text
