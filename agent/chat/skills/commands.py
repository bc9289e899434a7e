"""run_readonly: run a command the safety rules call safe, with a timeout; and summarize."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
from typing import Any

from termwise.agent.chat.skills.base import Skill, SkillContext, SkillError, arg_str, cap, params
from termwise.agent.chat.skills.files import inside_allowed

MAX_OUTPUT = 16_000
MAX_SUMMARY_INPUT = 60_000


def _shell() -> tuple[str, list[str]]:
    """The shell name the safety rules parse for, and the argv prefix that runs a command."""
    if sys.platform == "win32":
        return "cmd", ["cmd.exe", "/d", "/s", "/c"]
    bash = shutil.which("bash")
    return ("bash", [bash, "-c"]) if bash else ("sh", ["/bin/sh", "-c"])


def run_readonly(args: dict[str, Any], ctx: SkillContext) -> str:
    from termwise.agent.safety import classify

    command = arg_str(args, "command").strip()
    if not command:
        raise SkillError("no command given")
    shell, prefix = _shell()
    verdict = classify(command, shell)
    if verdict.level != "safe":
        why = "; ".join(verdict.reasons) or "not known to be read-only"
        raise SkillError(
            f"refused: run_readonly runs only commands the safety rules call safe, and "
            f"{command!r} is {verdict.level} ({why})"
        )
    _check_paths(command, ctx, shell)
    timeout = ctx.config.skills.readonly_timeout
    env = {**os.environ, **ctx.env, "PAGER": "cat", "GIT_PAGER": "cat"}
    try:
        out_b, err_b, code = _run([*prefix, command], cwd=str(ctx.cwd), env=env, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        partial = (exc.stdout or b"").decode("utf-8", errors="replace")
        raise SkillError(
            f"{command!r} did not finish within {timeout:g} s and was stopped"
            + (f"; output so far:\n{cap(partial, 2000)}" if partial else "")
        ) from exc
    except OSError as exc:
        raise SkillError(f"could not start {command!r}: {exc.strerror or exc}") from exc
    out = out_b.decode("utf-8", errors="replace")
    err = err_b.decode("utf-8", errors="replace")
    text = f"exit code {code}\n{out}"
    if err.strip():
        text += f"\n[stderr]\n{err}"
    return cap(text, MAX_OUTPUT)


def _run(
    argv: list[str], *, cwd: str, env: dict[str, str], timeout: float
) -> tuple[bytes, bytes, int]:
    """Run in a process group of its own, so a timeout also stops the command's children."""
    if sys.platform == "win32":
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            creationflags=subprocess.CREATE_NEW_PROCESS_GROUP,
        )
    else:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        if sys.platform == "win32":
            subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        try:
            out, _ = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            out = b""
        exc.stdout = out
        raise
    return out, err, proc.returncode


def _check_paths(command: str, ctx: SkillContext, shell: str) -> None:
    """Keep read-only commands to the allowed folders too: cwd and path-like arguments."""
    inside_allowed(str(ctx.cwd), ctx)
    try:
        words = shlex.split(command, posix=shell != "cmd")
    except ValueError:
        words = command.split()
    for word in words:
        if shell == "cmd" and word.startswith("/"):
            continue  # `dir /b`, `findstr /s`: cmd's switches, not paths from the root
        path = word.split("=", 1)[-1] if word.startswith("-") else word
        drive = len(path) > 2 and path[1] == ":" and path[2] in "\\/"
        if drive or path.startswith(("/", "~", "\\")) or ".." in path.replace("\\", "/").split("/"):
            inside_allowed(path, ctx)


def summarize(args: dict[str, Any], ctx: SkillContext) -> str:
    text = arg_str(args, "text")
    if ctx.summarize is None:
        raise SkillError("the summarize skill needs a model, and none is configured")
    if not text.strip():
        raise SkillError("nothing to summarise: the text is empty")
    return ctx.summarize(text[:MAX_SUMMARY_INPUT])


COMMAND_SKILLS = (
    Skill(
        "run_readonly",
        "Run a read-only shell command (ls, git status, cat …) and return its output. "
        "Commands that change anything are refused.",
        params(("command",), command=("string", "the command line")),
        run_readonly,
    ),
    Skill(
        "summarize",
        "Summarise a long text in a few sentences.",
        params(("text",), text=("string", "the text to summarise")),
        summarize,
    ),
)
