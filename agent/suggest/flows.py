"""The flows every screen shares (overlay, `??` picker, CLI): explain, follow-up, session context.

One function per behaviour, so the screens cannot drift apart: the overlay once sent a
clarifying answer without the user's original request while the picker kept it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from termwise.agent.base.config_schema import Config
from termwise.agent.base.prompts import load_prompt
from termwise.agent.base.types import Block, SessionContext
from termwise.agent.llm.base import LlmClient, Message
from termwise.agent.privacy.redact import redact

if TYPE_CHECKING:
    from termwise.agent.base.cancel import CancelToken

FIX_REQUEST = "Fix the last failed command."
CONTEXT_BLOCKS = 5  # blocks a request carries (the overlay shows only the last)


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


def session_context(
    blocks: Iterable[Block],
    *,
    shell: str,
    cwd: str | None,
    session_id: str | None,
    os_name: str = "",
    has_marks: bool = True,
    screen_text: str = "",
) -> SessionContext:
    """A session as a turn sees it; the last screenful counts only when the shell has no marks."""
    return SessionContext(
        blocks=list(blocks),
        shell=shell or "bash",
        cwd=cwd,
        os_name=os_name,
        session_id=session_id,
        screen_text="" if has_marks else screen_text,
    )


def block_from_json(data: Mapping[str, object]) -> Block:
    """A block as the host's `context` reply carries it (see `termwise context --json`)."""
    return Block(
        command=str(data.get("command") or ""),
        output=str(data.get("output") or ""),
        exit_code=_int_or_none(data.get("exit_code")),
        cwd=_str_or_none(data.get("cwd")),
        started=_float_or_none(data.get("started")),
        ended=_float_or_none(data.get("ended")),
    )


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float_or_none(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None
