"""`deploy URL` typed in a session: after the plan, run it right here or copy its commands.

The plan cannot run while `termwise deploy` itself holds the session's terminal, so a
detached helper (`termwise deploy-here`) waits for the prompt to come back and then walks
the plan with the step runner in this session. Commands the approval policy wants asked
about are asked before the helper starts; anything it cannot ask about later (a repair
that needs approval) is denied, which stops the run at that step.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from termwise.agent.base.config_schema import Config
    from termwise.agent.base.paths import Paths
    from termwise.agent.base.types import Verdict
    from termwise.agent.deploy.plan import Plan
    from termwise.agent.safety.approval_flow import ApprovalRequest

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILURE = 1
OFFER = "Run it here step by step? [r] run in this session · [c] copy the commands · [Enter] no: "
START_TIMEOUT = 120.0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # Internal: started (detached) after `deploy` in a session; not for people.
    p = sub.add_parser("deploy-here")
    p.add_argument("--session", required=True)
    p.add_argument("--nonce", required=True)
    p.add_argument("--job", required=True, help="JSON file with the plan and approvals")
    p.set_defaults(func=cmd_deploy_here)


def plan_commands(plan: Plan) -> list[str]:
    """Every command of the plan in order, checks included."""
    out: list[str] = []
    for step in plan.steps:
        out.extend(step.commands)
        if step.check:
            out.append(step.check)
    return out


def plan_to_json(plan: Plan) -> dict[str, Any]:
    data = asdict(plan)
    for step in data.get("steps", []):  # a Verdict is a NamedTuple: JSON would make it a list
        step["verdicts"] = [v._asdict() for v in step.get("verdicts", [])]
    return data


def plan_from_json(data: dict[str, Any]) -> Plan:
    from termwise.agent.base.types import Verdict
    from termwise.agent.deploy.plan import Plan, Step

    steps = []
    for raw in data.get("steps", []):
        verdicts = [
            Verdict(v["level"], tuple(v.get("reasons", ())), v.get("explanation", ""))
            for v in raw.get("verdicts", [])
        ]
        steps.append(Step(**{**raw, "verdicts": verdicts}))
    return Plan(**{**data, "steps": steps})


def offer(
    plan: Plan,
    plan_file: Path,
    *,
    paths: Paths,
    out: TextIO | None = None,
    read_line: Any = input,
) -> int:
    """Ask what to do with a finished plan in this session: run it here, copy it, or nothing."""
    out = out or sys.stdout
    session = os.environ.get("TERMWISE_SESSION")
    if not session:
        return EXIT_OK
    try:
        answer = read_line(OFFER).strip().lower()
    except (EOFError, KeyboardInterrupt):
        out.write("\n")
        return EXIT_OK
    if answer.startswith("c"):
        return _copy_all(plan, out)
    if not answer.startswith("r"):
        return EXIT_OK
    approved = _ask_up_front(plan, paths, out, read_line)
    if approved is None:
        out.write("termwise: not run\n")
        return EXIT_FAILURE
    marker = _start_helper(plan, plan_file, approved, session, paths)
    out.write(
        f"The plan runs in this session once the prompt is back (Ctrl+C stops a command).\n"
        f"Log: {_log_file(plan_file)}\n"
    )
    out.write(marker)
    out.flush()
    return EXIT_OK


def _log_file(plan_file: Path) -> Path:
    from termwise.agent.deploy.plan import log_path_for

    return log_path_for(plan_file)


def _copy_all(plan: Plan, out: TextIO) -> int:
    import pyperclip

    commands = plan_commands(plan)
    text = "\n".join(commands)
    try:
        pyperclip.copy(text)
    except pyperclip.PyperclipException as exc:
        out.write(f"termwise: could not copy ({exc}); the commands:\n{text}\n")
        return EXIT_FAILURE
    out.write(f"copied {len(commands)} commands\n")
    return EXIT_OK


def _verdict(command: str, shell: str) -> Verdict:
    from termwise.agent.deploy.planner import default_classify

    return default_classify(command, shell)  # the same verdict the step runner will use


def _ask_up_front(plan: Plan, paths: Paths, out: TextIO, read_line: Any) -> list[str] | None:
    """Commands approved now for the run (policy first, then the user); None if one is refused.

    The questions are the one approval flow's: Enter, EOF or Ctrl+C deny (this time only).
    """
    from termwise.agent.safety.approval_flow import (
        answer_from_text,
        approval_request,
        settle,
        terminal_prompt,
    )
    from termwise.agent.safety.approvals import ApprovalStore
    from termwise.tray.commands.deploy_render import approval_text

    store = ApprovalStore(paths.approvals_file)
    approved: list[str] = []
    for step in plan.steps:
        for command in [*step.commands, *([step.check] if step.check else [])]:
            verdict = _verdict(command, plan.shell)
            decision = store.decide(command, plan.shell, verdict)
            if decision == "allow":
                approved.append(command)
                continue
            if decision == "deny":
                out.write(f"termwise: your approval policy denies `{command}`\n")
                return None
            request = approval_request(command, plan.shell, verdict)
            out.write(f"step {step.number}:\n{approval_text(request)}\n")
            answer = None
            while answer is None:
                try:
                    line: str | None = read_line("  " + terminal_prompt(request))
                except (EOFError, KeyboardInterrupt):
                    line = None
                answer = answer_from_text(request, line)
            if not settle(store, request, answer).runs:
                return None
            approved.append(command)
    return approved


def _start_helper(
    plan: Plan, plan_file: Path, approved: list[str], session: str, paths: Paths
) -> str:
    import uuid

    from termwise.tray.commands.prompt_words import NONCE_OSC
    from termwise.tray.system.selfcmd import self_argv
    from termwise.tray.system.spawn_flags import helper_popen_options

    nonce = uuid.uuid4().hex
    folder = paths.runtime_dir
    folder.mkdir(parents=True, exist_ok=True)
    fd, job = tempfile.mkstemp(prefix="deploy-job-", suffix=".json", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as f:  # mkstemp: readable by this user only
        json.dump(
            {"plan": plan_to_json(plan), "plan_file": str(plan_file), "approved": approved}, f
        )
    argv = [*self_argv(), "deploy-here", "--session", session, "--nonce", nonce, "--job", job]
    subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        **helper_popen_options(),
    )
    return NONCE_OSC.format(nonce=nonce)


def cmd_deploy_here(args: argparse.Namespace) -> int:
    from termwise.agent.base.paths import resolve_paths
    from termwise.tray.system.logs import setup_logging

    paths = resolve_paths()
    setup_logging(paths.log_dir)
    job = Path(args.job)
    try:
        data = json.loads(job.read_text(encoding="utf-8"))
    finally:
        job.unlink(missing_ok=True)
    try:
        outcome = run_here(paths, args.session, args.nonce, data)
    except Exception:  # nobody reads this process's output; the log is all there is
        log.exception("deploy-here failed")
        return EXIT_FAILURE
    log.info("deploy-here: session %s: %s", args.session, outcome)
    return EXIT_OK if outcome == "completed" else EXIT_FAILURE


def run_here(paths: Paths, session: str, nonce: str, data: dict[str, Any]) -> str:
    """Wait for the session's prompt, then walk the plan in it; returns the run's outcome."""
    from termwise.agent.base.config import load_config
    from termwise.agent.deploy.setup import configured_runner
    from termwise.agent.llm.factory import make_client
    from termwise.tray.commands.prompt_words import wait_for_prompt
    from termwise.tray.host.deploy_session import HostSessionPort
    from termwise.tray.ipc.client import HostClient
    from termwise.tray.ipc.protocol import encode_json

    plan = plan_from_json(data["plan"])
    plan_file = Path(data["plan_file"])
    approved = set(data.get("approved", []))
    found = wait_for_prompt(paths, session, nonce, START_TIMEOUT)
    if found is None:
        return "the session's prompt never came back"
    channel, _ = found
    channel.stream.sendall(encode_json({"op": "detach"}))
    channel.close()
    config: Config = load_config(paths.config_file).config
    client = make_client(config)

    def ask(request: ApprovalRequest) -> str:
        # Nobody can be asked any more: only what was approved before the prompt came back.
        return "once" if request.command in approved else "deny"

    with HostClient(paths) as host:
        port = HostSessionPort(host, session, paths)
        if plan.workdir:
            # `deploy ./proj` typed elsewhere: the plan (and the model) assume its folder.
            entered = port.run(enter_folder_command(plan.shell, plan.workdir), START_TIMEOUT)
            if entered is None or entered.exit_code not in (0, None):
                outcome = f"stopped: could not enter {plan.workdir}"
                _tell(host, session, outcome, plan_file)
                return outcome
        runner = configured_runner(
            plan,
            port,
            config=config,
            approvals_file=paths.approvals_file,
            client=client,
            ask=ask,
            plan_file=plan_file,
        )
        outcome = str(runner.run())
        _tell(host, session, outcome, plan_file)
        return outcome


def enter_folder_command(shell: str, folder: str) -> str:
    """The command that makes `folder` the session's current folder, quoted for `shell`."""
    if shell in ("pwsh", "powershell"):
        return "Set-Location -LiteralPath '" + folder.replace("'", "''") + "'"
    if shell == "cmd":
        return f'cd /d "{folder}"'
    return "cd -- " + shlex.quote(folder)


def _tell(host: Any, session: str, outcome: str, plan_file: Path) -> None:
    """The run's outcome line, shown in the session's terminal(s) where the user is looking."""
    try:
        host.notice(session, f"termwise deploy: {outcome}; log: {_log_file(plan_file)}")
    except Exception as exc:  # the session may have ended; the log keeps the outcome
        log.warning("deploy-here: could not show the outcome in session %s: %s", session, exc)
