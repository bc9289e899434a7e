"""The `LlmClient` protocol and the streamed pieces it yields; no network code here."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from termwise.agent.base.errors import AgentError

if TYPE_CHECKING:
    from termwise.agent.base.cancel import CancelToken

Task = Literal["suggest", "safety", "memory", "deploy", "chat"]
TASKS: tuple[Task, ...] = ("suggest", "safety", "memory", "deploy", "chat")

Message = dict[str, Any]  # {"role": ..., "content": ...} as the OpenAI chat API takes it


UNREACHABLE = "cannot reach "  # how an LlmError for a model that does not answer begins


class LlmError(AgentError):
    """A model call failed; the message is for the user, `retryable` says if trying again may help."""

    def __init__(self, message: str, *, retryable: bool = True, status: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status


@dataclass(frozen=True)
class ToolCallDelta:
    """A piece of a streamed tool call; pieces with the same `index` belong together."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""  # a fragment of the JSON arguments


@dataclass(frozen=True)
class ChatDelta:
    """One streamed step of a model answer: some text, tool-call pieces, or the end."""

    text: str = ""
    tool_calls: tuple[ToolCallDelta, ...] = ()
    finish_reason: str | None = None


class LlmClient(Protocol):
    """What the agent needs from a model; `openai_client.OpenAIClient` is the real one."""

    def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        task: Task,
        tools: Sequence[dict[str, Any]] | None = None,
        cancel: CancelToken | None = None,
    ) -> Iterator[ChatDelta]:
        """Stream the answer; raises `LlmError` on failure (after what was already yielded)."""
        ...

    def complete(self, messages: Sequence[Message], *, task: Task) -> str:
        """The whole answer text at once; raises `LlmError` on failure."""
        ...
