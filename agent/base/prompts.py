"""Prompt templates from `resources/prompts/<name>.md`, with {placeholders} filled in."""

from __future__ import annotations

from importlib import resources


def load_prompt(name: str, **values: str) -> str:
    """The template `name`, each `{key}` replaced by its value."""
    text = (resources.files("termwise.resources") / "prompts" / f"{name}.md").read_text(
        encoding="utf-8"
    )
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text.strip() + "\n"
