"""The `LlmClient` protocol and the streamed pieces it yields; no network code here."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, Protocol

from termwise.agent.base.errors import AgentError

if TYPE_CHECKING:
    from termwise.agent.base.cancel import CancelToken
    from termwise.agent.llm.schemas import AnswerSchema

Task = Literal["suggest", "safety", "memory", "deploy", "chat"]
TASKS: tuple[Task, ...] = ("suggest", "safety", "memory", "deploy", "chat")

Message = dict[str, Any]  # {"role": ..., "content": ...} as the OpenAI chat API takes it


# A ChatDelta.finish_reason of ours: the client stopped reading a model that kept
# repeating itself (the provider's own reasons are "stop", "length", "tool_calls" …).
REPETITION = "repetition"


class Failure(str, Enum):
    """Why a model call failed (the `reason` of an LlmError); renderers branch on this."""

    NO_ROUTE = "no_route"  # no model is set up for the task
    NO_KEY = "no_key"  # the provider needs an API key and none is set
    UNREACHABLE = "unreachable"  # nothing answers at the endpoint
    AUTH = "auth"  # the key was rejected
    UNKNOWN_MODEL = "unknown_model"
    RATE_LIMITED = "rate_limited"
    SERVER = "server"  # 5xx
    REFUSED = "refused"  # another 4xx
    TIMEOUT = "timeout"  # nothing arrived for the idle / first-token timeout
    DEADLINE = "deadline"  # the whole answer took longer than the answer deadline
    BROKEN = "broken"  # the connection broke mid-answer
    NOT_AN_ANSWER = "not_an_answer"  # HTML, non-JSON or unreadable chunks instead of an answer
    OTHER = "other"


class LlmError(AgentError):
    """A model call failed; the message is for the user, `retryable` says if trying again may help."""

    def __init__(
        self,
        message: str,
        *,
        reason: Failure = Failure.OTHER,
        retryable: bool = True,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
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
        schema: AnswerSchema | None = None,
    ) -> Iterator[ChatDelta]:
        """Stream the answer; raises `LlmError` on failure (after what was already yielded).

        With `schema`, the provider is asked for an answer of that shape where it can
        constrain its output; the text may still be anything, so parse it leniently.
        """
        ...

    def complete(self, messages: Sequence[Message], *, task: Task) -> str:
        """The whole answer text at once; raises `LlmError` on failure."""
        ...
