"""`termwise deploy`: a repository becomes a plan, streamed and saved; --run walks it in a session."""

from __future__ import annotations

import argparse
import os
import queue
import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from termwise.agent.base.config_schema import Config
    from termwise.agent.base.paths import Paths
    from termwise.agent.deploy.plan import Plan
    from termwise.agent.safety.approval_flow import ApprovalRequest
    from termwise.tray.commands.deploy_render import DeployRenderer
    from termwise.tray.ipc.client import HostClient

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3
EXIT_INTERRUPTED = 130
SHELL_CHOICES = ("pwsh", "powershell", "cmd", "bash", "zsh", "wsl")
ASK_POLL = 0.2  # the main thread wakes this often while the run works (Ctrl+C on Windows)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "deploy",
        help="turn a repository into a step-by-step plan (and run it in a session)",
        description="Read a repository (a github.com URL through the GitHub API, any git "
        "URL, a local folder, or a bare project name planned from the model's knowledge), "
        "stream an ordered plan for this machine with a safety verdict per command, and "
        "save it as Markdown. With --run, walk it in a session: approvals, checks and up "
        "to deploy.max_repairs automatic repairs per step. A GitHub token is read from "
        "GITHUB_TOKEN or the keyring (termwise, github).",
    )
    p.add_argument("target", metavar="URL|PATH|NAME", help="what to deploy")
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.add_argument(
        "--shell",
        choices=SHELL_CHOICES,
        metavar="|".join(SHELL_CHOICES),
        help="shell the plan is for (default: the session's, else the configured one)",
    )
    p.add_argument("--run", action="store_true", help="run the plan in a session afterwards")
    p.add_argument("--session", metavar="ID", help="run in this session (default: a new one)")
    p.add_argument(
        "--yes-safe",
        action="store_true",
        help="run commands rated safe without asking (others follow the approval policy)",
    )
    p.add_argument("--refresh-env", action="store_true", help="probe the machine's tools again")
    # Set by the `deploy` word of the shell integration: offer to run the plan right there.
    p.add_argument("--from-prompt", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_deploy)


def _error(message: str, code: int = EXIT_FAILURE) -> Exception:
    from termwise.agent.base.errors import AgentError

    exc = AgentError(message)
    exc.exit_code = code  # type: ignore[attr-defined]
    return exc


def _config(paths: Paths) -> Config:
    from termwise.agent.base.config import load_config

    result = load_config(paths.config_file)
    for problem in result.problems:
        print(f"termwise: config: {problem}", file=sys.stderr)
    return result.config


def cmd_deploy(args: argparse.Namespace) -> int:
    from termwise.agent.base.paths import resolve_paths
    from termwise.tray.commands.deploy_render import DeployRenderer

    paths = resolve_paths()
    config = _config(paths)
    render = DeployRenderer(sys.stdout, sys.stderr, as_json=args.json)
    if args.session and not args.run:
        raise _error("--session chooses where --run runs the plan; add --run", EXIT_USAGE)
    if args.session and args.session == os.environ.get("TERMWISE_SESSION"):
        raise _error(
            "the plan cannot run in the session this command runs in (its commands would be "
            "typed into termwise itself); leave out --session to use a new one",
            EXIT_USAGE,
        )
    host: HostClient | None = None
    shell = args.shell
    if args.session:  # a chosen session must exist already: no host is started for it
        from termwise.tray.ipc.client import HostClient

        host = HostClient(paths)
        try:
            shell = shell or _session_shell(host, args.session)
        except BaseException:
            host.close()
            raise
    try:
        return _deploy(args, paths, config, render, host, shell)
    finally:
        if host is not None:
            host.close()


def _session_shell(host: HostClient, session_id: str) -> str:
    for info in host.sessions():
        if str(info.get("id")) == session_id:
            if not info.get("alive", True):
                raise _error(
                    f"session {session_id} has ended; choose another or leave --session out"
                )
            return str(info.get("shell") or "bash")
    raise _error(f"no session {session_id!r}; see `termwise sessions`")


def _deploy(
    args: argparse.Namespace,
    paths: Paths,
    config: Config,
    render: DeployRenderer,
    host: HostClient | None,
    shell: str | None,
) -> int:
    from termwise.agent.base.cancel import CancelToken
    from termwise.agent.deploy.planner import PlanEvent, PlanFinished, PlanProblem, StepReady
    from termwise.agent.deploy.planning import plan_repository, read_target
    from termwise.agent.deploy.sources import classify_target
    from termwise.agent.llm.factory import make_client
    from termwise.tray.commands.interrupt_watch import follow
    from termwise.tray.host.shells import default_shell

    kind, value = classify_target(args.target)
    snap = read_target(args.target, config)
    render.repository(snap)
    client = make_client(config)
    if client is None:
        raise _error(
            "a model is needed for the plan: add a provider to "
            f"{paths.config_file} (`termwise config show`), set TERMWISE_BASE_URL and "
            "TERMWISE_MODEL, or start Ollama",
            EXIT_UNAVAILABLE,
        )
    shell = shell or default_shell(config.terminal.default_shell)
    render.planning(shell)
    token = CancelToken()
    # A local project is deployed in its own folder (`deploy ./proj` typed elsewhere too).
    workdir = os.path.abspath(value) if kind == "local" else None
    events = plan_repository(
        snap,
        shell,
        config,
        client,
        paths,
        refresh_env=args.refresh_env,
        cancel=token,
        workdir=workdir,
    )
    finished: PlanFinished | None = None

    def show(event: PlanEvent) -> None:
        nonlocal finished
        if isinstance(event, StepReady):
            render.step(event.step)
        elif isinstance(event, PlanProblem):
            render.problem(event.message)
        else:
            finished = event

    if follow(events, token, show):
        render.note("planning interrupted")
        return EXIT_INTERRUPTED
    assert finished is not None
    render.saved(finished.path, len(finished.plan.steps))
    if not finished.plan.steps or finished.path is None:
        return EXIT_FAILURE
    if not args.run:
        if getattr(args, "from_prompt", False) and not args.json and sys.stdin.isatty():
            from termwise.tray.commands.deploy_word import offer

            return offer(finished.plan, finished.path, paths=paths)
        return EXIT_OK
    cwd = workdir or os.getcwd()
    if host is None:
        from termwise.tray.ipc.launch import ensure_host

        host = ensure_host(paths)
        try:
            return _run(
                args, paths, config, render, host, finished.plan, finished.path, cwd, client
            )
        finally:
            host.close()
    return _run(args, paths, config, render, host, finished.plan, finished.path, cwd, client)


def _run(
    args: argparse.Namespace,
    paths: Paths,
    config: Config,
    render: DeployRenderer,
    host: HostClient,
    plan: Plan,
    plan_file: Any,
    cwd: str,
    client: Any,
) -> int:
    from termwise.agent.deploy.setup import configured_runner
    from termwise.tray.host.deploy_session import HostSessionPort

    session_id = args.session or str(host.create(shell=plan.shell, cwd=cwd)["id"])
    render.note(f"running in session {session_id} (attach: termwise attach {session_id})")
    asks: queue.Queue[tuple[ApprovalRequest, queue.Queue[str]]] = queue.Queue()

    def ask(request: ApprovalRequest) -> str:
        # Answered on the main thread, where Ctrl+C lands.
        reply: queue.Queue[str] = queue.Queue()
        asks.put((request, reply))
        return reply.get()

    runner = configured_runner(
        plan,
        HostSessionPort(host, session_id, paths),
        config=config,
        approvals_file=paths.approvals_file,
        client=client,
        ask=ask,
        plan_file=plan_file,
        on_event=render.run_event,
        ask_safe=not args.yes_safe,
    )
    log_file = runner.log_file
    worker = threading.Thread(target=runner.run, name="deploy-run", daemon=True)
    worker.start()
    interrupted = False
    pending: tuple[ApprovalRequest, queue.Queue[str]] | None = None
    while worker.is_alive():
        try:
            if pending is None:
                try:
                    pending = asks.get(timeout=ASK_POLL)
                except queue.Empty:
                    continue
            request, reply = pending
            reply.put("deny" if interrupted else _answer(render, request))
            pending = None
        except KeyboardInterrupt:
            interrupted = True
            render.note("stopping the run (Ctrl+C)…")
            runner.stop()  # also hangs up a repair request in flight
            if pending is not None:  # a question was open: it counts as denied
                pending[1].put("deny")
                pending = None
    worker.join()
    render.finished(runner.outcome, log_file, session_id)
    if interrupted:
        return EXIT_INTERRUPTED
    # A step that did not run (denied, skipped) or failed is not a successful deploy.
    return EXIT_OK if runner.summary.ok else EXIT_FAILURE


def _answer(render: DeployRenderer, request: ApprovalRequest) -> str:
    """Ask on the terminal; Enter, EOF and Esc-like answers are a one-time deny."""
    from termwise.agent.safety.approval_flow import answer_from_text

    while True:
        render.approval_prompt(request)
        line = sys.stdin.readline()
        answer = answer_from_text(request, line if line else None)
        if answer is not None:
            if not line:
                render.note("no answer (end of input): not run this time")
            return answer
