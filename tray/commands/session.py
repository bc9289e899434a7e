"""Session commands: serve, shell, attach, sessions, context, send (stdlib-only imports here)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from termwise.agent.base.paths import Paths
    from termwise.agent.base.types import SessionContext
    from termwise.tray.ipc.client import ContextReply, HostClient

SHELL_CHOICES = ("pwsh", "powershell", "cmd", "bash", "zsh", "wsl")
BLOCK_KEYS = ("command", "exit_code", "cwd", "output", "started", "ended")
CLIENT_ENV_KEYS = ("TERM", "COLORTERM", "LANG", "LC_ALL", "LC_CTYPE", "TERM_PROGRAM")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="run the session host headless (servers, tests)",
        description="Run the session host without the tray; SIGTERM or Ctrl+C ends it "
        "and the shells it owns.",
    )
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "shell",
        help="start a shell session and attach this terminal to it",
        description="Create a session and attach this terminal (starting a host if none "
        "runs). Ctrl+] then d detaches; the shell keeps running.",
    )
    # Validated by the host, so an unknown name lists what this machine has.
    p.add_argument("--shell", metavar="|".join(SHELL_CHOICES), help="which shell to run")
    p.add_argument("--cwd", metavar="DIR", help="start folder (default: the current one)")
    p.set_defaults(func=cmd_shell)

    p = sub.add_parser(
        "attach",
        help="attach this terminal to a running session",
        description="Attach this terminal to a session. Ctrl+] then d detaches; Ctrl+] "
        "twice sends Ctrl+]. Exits with the shell's exit code when the shell ends.",
    )
    p.add_argument("session", nargs="?", metavar="ID", help="session id (default: the active one)")
    p.set_defaults(func=cmd_attach)

    p = sub.add_parser("sessions", help="list sessions")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_sessions)

    p = sub.add_parser(
        "context",
        help="print a session's latest command blocks",
        description="Print the latest commands of a session with exit code, folder, times "
        "and clean output. The session defaults to $TERMWISE_SESSION, then the active one.",
    )
    p.add_argument("--session", metavar="ID", help="session id")
    p.add_argument("--blocks", type=int, default=5, metavar="N", help="how many blocks (5)")
    p.add_argument("--json", action="store_true", help="print a JSON list, oldest first")
    p.add_argument(
        "--as-sent", action="store_true", help="print exactly what would be sent to a model"
    )
    p.set_defaults(func=cmd_context)

    p = sub.add_parser(
        "send",
        help="type a command into a session, replacing what is pending on its prompt",
        description="Type a command at a session's prompt, replacing any half-typed text. "
        "With --enter it runs only once the shell has reported that its line is exactly the "
        "command (else exit 1 with the reason). --raw writes the text as it is, adding to "
        "the line (--raw --enter '' just presses Enter).",
    )
    p.add_argument("--session", metavar="ID", help="session id (default: the active one)")
    p.add_argument(
        "--enter", action="store_true", help="run it (only if the line is exactly the command)"
    )
    p.add_argument("--raw", action="store_true", help="write the text as it is, no clearing")
    p.add_argument("text", help="the command to type")
    p.set_defaults(func=cmd_send)


def _paths() -> Paths:
    from termwise.agent.base.paths import resolve_paths

    return resolve_paths()


def _client(paths: Paths) -> HostClient:
    from termwise.tray.ipc.client import HostClient

    return HostClient(paths)


# serve ---------------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    from termwise.agent.base.config import load_config
    from termwise.tray.errors import TrayError
    from termwise.tray.host.host import SessionHost
    from termwise.tray.host.ledger import keep_ledger
    from termwise.tray.ipc.server import IpcServer
    from termwise.tray.ipc.transport import AddressInUse
    from termwise.tray.system.logs import setup_logging

    log = logging.getLogger("termwise.serve")
    paths = _paths().ensure()
    log_file = setup_logging(paths.log_dir, json_lines=bool(getattr(args, "json_logging", False)))
    loaded = load_config(paths.config_file, repair=True)
    for problem in loaded.problems:
        print(f"termwise: config: {problem}", file=sys.stderr)
    host = SessionHost(loaded.config, paths)
    server = IpcServer(host, paths)
    ledger = keep_ledger(host, paths.runtime_dir)
    server.notice = ledger.lost_notice
    try:
        address = server.start()
    except AddressInUse as exc:
        raise TrayError(f"{exc}; reach it with `termwise shell` or `termwise sessions`") from None
    print(
        f"termwise: host listening on {address} (pid {os.getpid()}); log: {log_file}",
        file=sys.stderr,
        flush=True,
    )
    log.info("host listening on %s (pid %d)", address, os.getpid())
    from termwise.tray.system.bytecode import compile_in_background

    compile_in_background()  # so each later `termwise check` starts from bytecode
    # Start-up (imports, parsing) freed more than an idle host will use again: hand those
    # pages back now, not only when a first session ends (about 0.6 MiB of the idle host).
    from termwise.tray.host import memory

    memory.give_back()
    if ledger.lost_notice:
        print(f"termwise: {ledger.lost_notice}", file=sys.stderr, flush=True)
    try:
        signum = _wait_for_stop_signal()
        log.info("host stopping (signal %d)", signum)
    finally:
        server.stop()
        host.shutdown()
        ledger.close()
        log.info("host stopped")
    return 0


def _wait_for_stop_signal() -> int:
    """Block (without periodic wake-ups on POSIX) until SIGTERM/SIGINT; returns its number."""
    import signal
    import threading

    received: list[int] = []
    stop = threading.Event()

    def handler(signum: int, frame: object) -> None:
        received.append(signum)
        stop.set()

    names = ["SIGTERM", "SIGINT", "SIGHUP", "SIGBREAK"]
    for name in names:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), handler)
    if sys.platform == "win32":
        while not stop.wait(1.0):  # Windows cannot interrupt a blocking wait with a signal
            pass
        return received[0]
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    signal.set_wakeup_fd(write_fd)
    try:
        while not stop.is_set():
            os.read(read_fd, 64)
    finally:
        signal.set_wakeup_fd(-1)
        os.close(read_fd)
        os.close(write_fd)
    return received[0]


# shell / attach ----------------------------------------------------------------------------
def cmd_shell(args: argparse.Namespace) -> int:
    from termwise.tray.commands.attach import run_attach, terminal_size
    from termwise.tray.ipc.launch import ensure_host

    paths = _paths()
    client = ensure_host(paths)
    size = terminal_size(1, 0)
    env = {k: os.environ[k] for k in CLIENT_ENV_KEYS if k in os.environ}
    try:
        info = client.create(
            shell=args.shell,
            cwd=args.cwd or os.getcwd(),
            rows=size[0] if size else None,
            cols=size[1] if size else None,
            env=env,
        )
    finally:
        client.close()
    return run_attach(paths, str(info["id"]))


def cmd_attach(args: argparse.Namespace) -> int:
    from termwise.tray.commands.attach import run_attach

    return run_attach(_paths(), args.session)


# sessions / context / send -------------------------------------------------------------------
def cmd_sessions(args: argparse.Namespace) -> int:
    with _client(_paths()) as client:
        reply = client.sessions_reply()
    sessions = list(reply["sessions"])
    if reply.get("notice"):
        print(f"termwise: {reply['notice']}", file=sys.stderr)
    if args.json:
        print(json.dumps(sessions, indent=2, ensure_ascii=False))
        return 0
    if not sessions:
        print("no sessions; start one with `termwise shell`")
        return 0
    rows = [("ID", "SHELL", "PID", "STATE", "CLIENTS", "CWD", "LAST COMMAND")]
    for s in sessions:
        state = "running" if s["alive"] else f"exited {s['exit_code']}"
        rows.append(
            (
                f"{s['id']}{'*' if s.get('active') else ''}",
                str(s["shell"]),
                str(s["pid"]),
                state,
                str(s.get("clients", 0)),
                str(s.get("cwd") or ""),
                str(s.get("last_command") or ""),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1])
    print("(* = active)")
    return 0


def _default_session(explicit: str | None) -> str | None:
    return explicit or os.environ.get("TERMWISE_SESSION") or None


def cmd_context(args: argparse.Namespace) -> int:
    paths = _paths()
    with _client(paths) as client:
        reply = client.context(_default_session(args.session), blocks=max(1, args.blocks))
    if args.as_sent:
        from termwise.agent.base.config import load_config
        from termwise.agent.suggest.context import as_sent

        config = load_config(paths.config_file).config
        print(as_sent(_session_context(reply), config))
    elif args.json:
        blocks = [{k: b.get(k) for k in BLOCK_KEYS} for b in reply]
        print(json.dumps(blocks, indent=2, ensure_ascii=False))
    else:
        print(render_context(reply), end="")
    return 0


def _session_context(reply: ContextReply) -> SessionContext:
    from termwise.agent.suggest.flows import block_from_json, session_context

    info = reply.session
    return session_context(
        [block_from_json(b) for b in reply],
        shell=str(info.get("shell", "bash")),
        cwd=info.get("cwd"),
        session_id=info.get("id"),
        os_name=reply.os_name,
        has_marks=reply.has_marks,
        screen_text=reply.screen_text,
    )


def render_context(reply: ContextReply) -> str:
    """Blocks as a person reads them: command, output, then exit code, folder and times."""
    info = reply.session
    lines = [f"# session {info.get('id')} ({info.get('shell')}) in {info.get('cwd')}"]
    if not reply and not reply.has_marks:
        lines.append("# no command marks from this shell; its last screen:")
        lines.append(reply.screen_text.rstrip("\n"))
    for b in reply:
        lines.append(f"$ {b['command']}")
        if b["output"]:
            lines.append(b["output"])
        when = _clock(b["started"])
        if b.get("ended") is not None:
            when += f" → {_clock(b['ended'])} ({b['ended'] - b['started']:.2f} s)"
        lines.append(f"[exit {b['exit_code']} · {b['cwd']} · {when}]")
    return "\n".join(lines) + "\n"


def _clock(stamp: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(stamp))


def cmd_send(args: argparse.Namespace) -> int:
    with _client(_paths()) as client:
        session = _default_session(args.session)
        if args.raw:
            client.send(session, args.text, enter=args.enter)
        elif args.enter:
            outcome = client.run_command(session, args.text)
            if not outcome.ran:
                print(f"termwise: not run: {outcome.reason}", file=sys.stderr)
                return 1
        else:
            client.type_command(session, args.text)
    return 0
