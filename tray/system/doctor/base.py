"""What a check gets (the context) and what it returns (a result line with its fix)."""

from __future__ import annotations

import enum
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from termwise.agent.base.config_schema import Config
    from termwise.agent.base.paths import Paths


class Status(str, enum.Enum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class CheckResult:
    """One line of the report; `fix` says what to do when the status is not OK."""

    name: str
    status: Status
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status.value,
            "detail": self.detail,
            "fix": self.fix,
        }


def ok(name: str, detail: str) -> CheckResult:
    return CheckResult(name, Status.OK, detail)


def warn(name: str, detail: str, fix: str) -> CheckResult:
    return CheckResult(name, Status.WARN, detail, fix)


def fail(name: str, detail: str, fix: str) -> CheckResult:
    return CheckResult(name, Status.FAIL, detail, fix)


@dataclass
class DoctorContext:
    """Everything the checks read; built once by the command, never at import time."""

    env: Mapping[str, str]
    paths: Paths
    config: Config  # defaults when the file has problems (the config check reports them)
    config_problems: list[str] = field(default_factory=list)
    timeout: float = 3.0  # per network request
    platform: str = sys.platform


CONSOLE_EXE = "termwise.exe"


def self_command() -> list[str]:
    """How to run this same `termwise` in a child process (frozen or not).

    A frozen install has a windowed TermwiseTray.exe beside the console termwise.exe;
    children whose output is read must be the console one.
    """
    if getattr(sys, "frozen", False):
        console = Path(sys.executable).with_name(CONSOLE_EXE)
        if sys.platform == "win32" and console.is_file():
            return [str(console)]
        return [sys.executable]
    return [sys.executable, "-m", "termwise.tray.commands.cli"]
