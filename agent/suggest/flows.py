"""The flows every screen shares (overlay, `??` picker, CLI): explain, follow-up, session context.

One function per behaviour, so the screens cannot drift apart: the overlay once sent a
clarifying answer without the user's original request while the picker kept it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from termwise.agent.base.config_schema import Config
from termwise.agent.base.prompts import load_prompt
from termwise.agent.llm.base import LlmClient, Message
from termwise.agent.privacy.redact import redact
from termwise.agent.suggest.wire import CONTEXT_BLOCKS, block_from_json, session_context

__all__ = [
    "CONTEXT_BLOCKS",
    "FIX_REQUEST",
    "block_from_json",
    "explain",
    "explain_messages",
    "follow_up",
    "session_context",
]

if TYPE_CHECKING:
    from termwise.agent.base.cancel import CancelToken

FIX_REQUEST = "Fix the last failed command."


def follow_up(request: str, asked: str, answer: str) -> str:
    """The user's request again, with the model's clarifying question and the user's answer.

    `request` is what the user first asked ("" = fix the last failure); it is always kept,
    so the model's second answer is about the same thing as its question.
    """
    base = request.strip() or FIX_REQUEST
    return f"{base}\n(You asked: {asked.strip()} My answer: {answer.strip()})"


def explain_messages(command: str, shell: str, config: Config) -> list[Message]:
    """The `explain` prompt for one command, redacted as every text that leaves the machine."""
    text = command
    if config.privacy.redact:
        text = redact(command, config.privacy.patterns).text
    return [
        {"role": "system", "content": load_prompt("explain", shell=shell or "bash")},
        {"role": "user", "content": text},
    ]


def explain(
    client: LlmClient,
    config: Config,
    command: str,
    shell: str,
    cancel: CancelToken | None = None,
) -> Iterator[str]:
    """Stream the model's explanation of `command` as text pieces; raises LlmError on failure."""
    messages = explain_messages(command, shell, config)
    for delta in client.stream_chat(messages, task="suggest", cancel=cancel):
        if delta.text:
            yield delta.text
        if cancel is not None and cancel.cancelled:
            return
