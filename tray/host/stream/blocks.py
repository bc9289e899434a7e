"""A command block: one command line with its output, exit code and working directory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from termwise.agent.base.types import Block
from termwise.tray.host.stream.clean import clean_text


@dataclass
class CommandBlock:
    """What happened between a shell's "command executed" and "command finished" marks."""

    index: int  # counts up for the life of the session, past blocks the ring dropped
    command: str
    output: bytes  # raw, capped: head and tail of a huge output with a note between
    exit_code: int | None
    cwd: str | None  # where the shell was when the command finished
    started: float
    ended: float | None
    dropped: int = 0  # bytes of output left out of `output`

    def text(self) -> str:
        """The output as the user saw it (see `clean_text`), without trailing blank lines."""
        return clean_text(self.output).rstrip("\n")

    def to_agent_block(self) -> Block:
        return Block(
            command=self.command,
            output=self.text(),
            exit_code=self.exit_code,
            cwd=self.cwd,
            started=self.started,
            ended=self.ended,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "exit_code": self.exit_code,
            "cwd": self.cwd,
            "output": self.text(),
            "started": self.started,
            "ended": self.ended,
        }
