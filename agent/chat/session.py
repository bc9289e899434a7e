"""One `termwise chat` conversation: context building, streamed answers and skill calls.

A turn yields plain events (text pieces, tool calls and results, the prompt when
asked for); the REPL in `chat.py` only prints them. History keeps the last N
exchanges; older ones are compressed into a state snapshot when over budget.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config
from termwise.agent.base.prompts import load_prompt
from termwise.agent.chat.skills.base import SkillContext
from termwise.agent.chat.skills.registry import (
    SkillResult,
    fallback_catalogue,
    find_fallback_call,
    offered_skills,
    parse_arguments,
    run_skill,
)
from termwise.agent.llm.base import LlmClient, LlmError, Message
from termwise.memory.snapshot import HistoryCompressor, StateSnapshot

log = logging.getLogger(__name__)

MAX_TOOL_ROUNDS = 6  # model → skill → model rounds per question


@dataclass(frozen=True)
class TextPiece:
    text: str


@dataclass(frozen=True)
class ToolCalled:
    name: str
    arguments: Any


@dataclass(frozen=True)
class ToolDone:
    result: SkillResult


@dataclass(frozen=True)
class PromptSent:
    """The messages about to be sent (shown with --verbose)."""

    messages: list[Message]
    tools: list[str]


@dataclass(frozen=True)
class Remembered:
    keys: list[str]
    withheld: int


@dataclass(frozen=True)
class TurnError:
    message: str


@dataclass(frozen=True)
class Compressed:
    snapshot: StateSnapshot


ChatEvent = TextPiece | ToolCalled | ToolDone | PromptSent | Remembered | TurnError | Compressed


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


_Streamed = tuple[str, list[_PendingCall], str | None]  # text, tool calls, error


@dataclass
class ChatMemory:
    """What chat needs from memory: retrieval and remembering what the user says."""

    snippets: Callable[[str, int], list[str]]
    remember: Callable[[str], Any] | None = None  # returns an Extraction


@dataclass
class ChatSession:
    client: LlmClient
    config: Config
    skills: SkillContext
    memory: ChatMemory | None = None
    redact: Callable[[str], str] = lambda text: text
    history: list[Message] = field(default_factory=list)
    snapshot: StateSnapshot | None = None
    last_memories: list[str] = field(default_factory=list)
    native_tools: bool = True  # False once the model said it cannot take tools

    def reset(self) -> None:
        """Forget the short-term history (memories and skills stay)."""
        self.history.clear()
        self.snapshot = None
        self.last_memories = []

    def ask(self, question: str, cancel: CancelToken | None = None) -> Iterator[ChatEvent]:
        """Answer one question, running any skills the model calls; yields what happens."""
        if self.memory is not None and self.memory.remember is not None:
            extraction = self.memory.remember(question)
            keys = [item.key for item in getattr(extraction, "written", [])]
            withheld = int(getattr(extraction, "withheld", 0))
            if keys or withheld:
                yield Remembered(keys, withheld)
        self.last_memories = (
            self.memory.snippets(question, self.config.memory.top_n) if self.memory else []
        )
        user = {"role": "user", "content": self.redact(question)}
        turn: list[Message] = [user]
        answer = ""
        for _ in range(MAX_TOOL_ROUNDS):
            skills = offered_skills(self.skills)
            messages = self._context(turn, skills)
            tools = [s.tool_spec() for s in skills] if self.native_tools else []
            yield PromptSent(messages, [s.name for s in skills] if self.native_tools else [])
            text, calls, error = yield from self._stream(messages, tools, cancel)
            if error is not None:
                yield TurnError(error)
                return
            if cancel is not None and cancel.cancelled:
                return
            if calls:
                turn.append(_assistant_with_calls(text, calls))
                for call in calls:
                    result = yield from self._run_call(call.name, call.arguments)
                    turn.append(
                        {
                            "role": "tool",
                            "tool_call_id": call.id,
                            "content": self._for_model(result),
                        }
                    )
                continue
            fallback = find_fallback_call(text)
            if fallback is not None:
                turn.append({"role": "assistant", "content": text})
                name, args = fallback
                yield ToolCalled(name, args)
                result = run_skill(name, args, self.skills)
                yield ToolDone(result)
                turn.append(
                    {
                        "role": "user",
                        "content": f"Result of skill {name}:\n{self._for_model(result)}",
                    }
                )
                continue
            answer = text
            break
        else:
            answer = "(stopped: too many skill calls in one answer)"
            yield TextPiece(answer)
        self.history.extend([user, {"role": "assistant", "content": answer}])
        yield from self._compress()

    # -- internals ------------------------------------------------------------------------

    def _context(self, turn: list[Message], skills: list[Any]) -> list[Message]:
        system = load_prompt("chat")
        if self.last_memories:
            system += "\n\nWhat you remember about the user:\n" + "\n".join(
                f"- {self.redact(line)}" for line in self.last_memories
            )
        if not self.native_tools and skills:
            system += "\n\n" + load_prompt("chat_skills_fallback") + fallback_catalogue(skills)
        messages: list[Message] = [{"role": "system", "content": system}]
        if self.snapshot is not None:
            messages += self.snapshot.as_messages()
        keep = max(0, self.config.memory.chat_turns) * 2
        messages += self.history[-keep:] if keep else []
        return messages + turn

    def _stream(
        self, messages: list[Message], tools: list[dict[str, Any]], cancel: CancelToken | None
    ) -> Generator[ChatEvent, None, _Streamed]:
        """Stream one answer; returns (text, tool calls, error message or None)."""
        pieces: list[str] = []
        calls: dict[int, _PendingCall] = {}
        # A reply starting with "{" may be a fallback skill call: hold it back until the end.
        mode = ""  # "" undecided, "stream" or "hold"
        try:
            for delta in self.client.stream_chat(
                messages, task="chat", tools=tools or None, cancel=cancel
            ):
                for part in delta.tool_calls:
                    pending = calls.setdefault(part.index, _PendingCall())
                    pending.id = part.id or pending.id
                    pending.name = part.name or pending.name
                    pending.arguments += part.arguments
                if not delta.text:
                    continue
                pieces.append(delta.text)
                if mode == "stream":
                    yield TextPiece(delta.text)
                elif not mode:
                    so_far = "".join(pieces).lstrip()
                    if so_far:
                        mode = "hold" if so_far.startswith("{") else "stream"
                        if mode == "stream":
                            yield TextPiece("".join(pieces))
        except LlmError as exc:
            if tools and exc.status == 400 and "tool" in str(exc).lower():
                # This model takes no tools: describe the skills in text instead.
                self.native_tools = False
                return (yield from self._stream(self._retool(messages), [], cancel))
            return "", [], str(exc)
        text = "".join(pieces)
        if mode == "hold" and find_fallback_call(text) is None:
            yield TextPiece(text)
        ordered = [calls[i] for i in sorted(calls)]
        for n, call in enumerate(ordered):
            call.id = call.id or f"call_{n}"
        return text, [c for c in ordered if c.name], None

    def _retool(self, messages: list[Message]) -> list[Message]:
        skills = offered_skills(self.skills)
        first = dict(messages[0])
        first["content"] = (
            str(first["content"])
            + "\n\n"
            + load_prompt("chat_skills_fallback")
            + fallback_catalogue(skills)
        )
        return [first, *messages[1:]]

    def _run_call(self, name: str, raw_arguments: str) -> Generator[ChatEvent, None, SkillResult]:
        try:
            args = parse_arguments(raw_arguments)
        except Exception as exc:
            result = SkillResult(name, False, str(exc))
            yield ToolCalled(name, raw_arguments)
            yield ToolDone(result)
            return result
        yield ToolCalled(name, args)
        result = run_skill(name, args, self.skills)
        yield ToolDone(result)
        return result

    def _for_model(self, result: SkillResult) -> str:
        text = result.text if result.ok else f"ERROR: {result.text}"
        return self.redact(text)

    def _compress(self) -> Iterator[ChatEvent]:
        budget = self.config.llm.max_prompt_tokens
        compressor = HistoryCompressor(
            budget,
            summarize=self._summarize,
            keep_recent=4,
            instructions=load_prompt("snapshot"),
        )
        if not compressor.over_budget(self.history, self.snapshot):
            return
        self.snapshot, self.history = compressor.compress(self.history, self.snapshot)
        if self.snapshot is not None:
            yield Compressed(self.snapshot)

    def _summarize(self, prompt: str) -> str:
        return self.client.complete([{"role": "user", "content": prompt}], task="chat")


def _assistant_with_calls(text: str, calls: list[_PendingCall]) -> Message:
    return {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments or "{}"},
            }
            for c in calls
        ],
    }


def describe_args(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)
