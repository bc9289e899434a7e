"""The `termwise chat` REPL: prints streamed answers and skill calls, handles slash commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from termwise.agent.base.cancel import CancelToken
from termwise.agent.base.config_schema import Config
from termwise.agent.chat.memory_link import MemoryLink, make_redactor
from termwise.agent.chat.session import (
    ChatEvent,
    ChatMemory,
    ChatSession,
    Compressed,
    PromptSent,
    Remembered,
    TextPiece,
    ToolCalled,
    ToolDone,
    TurnError,
    describe_args,
)
from termwise.agent.chat.skills.base import SkillContext
from termwise.agent.llm.base import LlmClient
from termwise.tray.commands.interrupt_watch import follow

PROMPT = "you> "
ANSWER = "termwise> "
HELP = """\
/mem     memories used for the last answer
/reset   forget this conversation's history (memories stay)
/model   show the model (/model NAME switches for this chat)
/exit    leave (Ctrl-D works too)"""
VERBOSE_RESULT_CHARS = 1500


def build_session(
    client: LlmClient,
    config: Config,
    link: MemoryLink | None,
    *,
    cwd: Path,
    confirm: Callable[[str], bool],
    env: Mapping[str, str],
) -> ChatSession:
    redact = make_redactor(config)

    def summarize(text: str) -> str:
        messages = [
            {"role": "system", "content": "Summarise the text in a few sentences."},
            {"role": "user", "content": redact(text)[0]},
        ]
        return client.complete(messages, task="chat")

    skills = SkillContext(config=config, confirm=confirm, summarize=summarize, cwd=cwd, env=env)
    memory = ChatMemory(link.snippets, link.remember) if link is not None else None
    return ChatSession(
        client=client,
        config=config,
        skills=skills,
        memory=memory,
        redact=(lambda text: redact(text)[0]) if config.privacy.redact else (lambda text: text),
    )


class ChatRepl:
    """Reads questions and slash commands, prints what the session yields."""

    def __init__(
        self,
        session: ChatSession,
        *,
        read: Callable[[str], str] = input,
        out: TextIO = sys.stdout,
        verbose: bool = False,
    ) -> None:
        self.session = session
        self.read = read
        self.out = out
        self.verbose = verbose
        self._answering = False

    def run(self) -> int:
        self.say(f"Termwise chat with {self.model_name()}. /exit leaves, /help lists commands.")
        while True:
            try:
                line = self.read(PROMPT)
            except EOFError:
                self.say("")
                return 0
            except KeyboardInterrupt:
                self.say("")
                continue
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                if self.slash(line) == "exit":
                    return 0
                continue
            self.answer(line)

    def confirm(self, question: str) -> bool:
        """Ask the user yes/no in the terminal (the email skill uses this)."""
        self.say("\n" + question.rstrip())
        try:
            reply = self.read("Go ahead? [y/N] ")
        except (EOFError, KeyboardInterrupt):
            return False
        return reply.strip().lower() in ("y", "yes")

    # -- answering ---------------------------------------------------------------------

    def answer(self, question: str) -> None:
        cancel = CancelToken()
        events = self.session.ask(question, cancel)
        self._answering = False
        if follow(events, cancel, self.show):
            self.say("\n(interrupted)")
        elif self._answering:
            self.say("")

    def show(self, event: ChatEvent) -> None:
        if isinstance(event, TextPiece):
            if not self._answering:
                self.write(ANSWER)
                self._answering = True
            self.write(event.text)
        elif isinstance(event, ToolCalled):
            self._end_line()
            self.say(f"  → {event.name} {describe_args(event.arguments)}")
        elif isinstance(event, ToolDone):
            result = event.result
            if not result.ok:
                self.say(f"  ✗ {result.name}: {result.text}")
            elif self.verbose:
                self.say(_indent(result.text[:VERBOSE_RESULT_CHARS]))
            else:
                self.say(f"  ✓ {result.name} ({len(result.text)} characters)")
        elif isinstance(event, PromptSent):
            if self.verbose:
                self._end_line()
                self.say(_render_prompt(event))
        elif isinstance(event, Remembered):
            if event.keys:
                self.say(f"(remembered: {', '.join(event.keys)})")
            if event.withheld:
                self.say("(not remembered: it looked like it holds a secret)")
        elif isinstance(event, TurnError):
            self._end_line()
            self.say(f"termwise: {event.message}")
        elif isinstance(event, Compressed) and self.verbose:
            self._end_line()
            self.say("(older history compressed into a state snapshot)\n" + event.snapshot.render())

    # -- slash commands ----------------------------------------------------------------

    def slash(self, line: str) -> str:
        name, _, arg = line.partition(" ")
        arg = arg.strip()
        if name in ("/exit", "/quit"):
            return "exit"
        if name == "/mem":
            used = self.session.last_memories
            self.say("\n".join(f"- {m}" for m in used) if used else "(no memories were used)")
        elif name == "/reset":
            self.session.reset()
            self.say("(short-term history cleared)")
        elif name == "/model":
            if arg:
                self.say(self.switch_model(arg))
            else:
                self.say(self.model_name())
        elif name == "/help":
            self.say(HELP)
        else:
            self.say(f"unknown command {name}; try /help")
        return ""

    def model_name(self) -> str:
        route = _chat_route(self.session.client)
        if route is None:
            return "the configured model"
        return f"{route.model} at {route.provider.base_url}"

    def switch_model(self, model: str) -> str:
        client: Any = self.session.client
        route = _chat_route(client)
        if route is None:
            return "this client cannot switch models"
        client.routes["chat"] = replace(route, model=model)
        return f"now using {self.model_name()}"

    # -- output ------------------------------------------------------------------------

    def write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def say(self, text: str) -> None:
        self.write(text + "\n")

    def _end_line(self) -> None:
        if self._answering:
            self.write("\n")
            self._answering = False


def _chat_route(client: Any) -> Any:
    routes = getattr(client, "routes", None)
    return routes.get("chat") if isinstance(routes, dict) else None


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _render_prompt(event: PromptSent) -> str:
    lines = ["--- prompt ---"]
    for message in event.messages:
        content = message.get("content") or ""
        if message.get("tool_calls"):
            content += json.dumps(message["tool_calls"], ensure_ascii=False)
        lines.append(f"[{message.get('role')}] {content}")
    if event.tools:
        lines.append(f"[tools] {', '.join(event.tools)}")
    lines.append("--------------")
    return "\n".join(lines)
