"""Loop detection for long runs: the same failing command or the same output, again and again."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field

# How many times the same thing may happen before the run is stopped.
SAME_FAILING_COMMAND_LIMIT = 3
SAME_OUTPUT_LIMIT = 3


def _digest(text: str) -> str:
    normal = " ".join(text.split())
    return hashlib.sha1(normal.encode("utf-8", "replace")).hexdigest()


@dataclass
class LoopDetector:
    """Counts failing commands and outputs; `observe` returns a reason once a limit is hit."""

    command_limit: int = SAME_FAILING_COMMAND_LIMIT
    output_limit: int = SAME_OUTPUT_LIMIT
    _commands: Counter[str] = field(default_factory=Counter)
    _outputs: Counter[str] = field(default_factory=Counter)

    def observe(self, command: str, output: str, exit_code: int | None) -> str | None:
        if exit_code == 0:
            return None
        key = " ".join(command.split())
        self._commands[key] += 1
        if self._commands[key] >= self.command_limit:
            return (
                f"`{key}` failed {self._commands[key]} times; stopping instead of trying it again"
            )
        if output.strip():
            digest = _digest(output)
            self._outputs[digest] += 1
            if self._outputs[digest] >= self.output_limit:
                return (
                    f"the same failure output came back {self._outputs[digest]} times; "
                    "the repairs are going in circles"
                )
        return None
