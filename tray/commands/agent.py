"""Agent commands: ask, fix, check, redact, config (stdlib-only imports at module level)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from termwise.agent.base.config_schema import Config
    from termwise.agent.base.paths import Paths
    from termwise.agent.base.types import SessionContext, Suggestion

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3
EXIT_CONFIRM = 10  # `termwise check`: the command needs a confirmation
EXIT_DANGEROUS = 11  # `termwise check`: the command is dangerous
SHELLS = ("bash", "zsh", "pwsh", "powershell", "cmd", "sh", "fish", "wsl")
# The grammar when neither --shell nor a session names one: the platform's own shell.
DEFAULT_SHELL = "powershell" if sys.platform == "win32" else "bash"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "ask",
        help="ask for commands (with the session's recent blocks as context)",
        description="Stream suggested commands for a question, each with a safety verdict.",
    )
    p.add_argument(
        "question",
        nargs="*",
        help="what you want to do or know (several words are joined); none: fix the last "
        "failed command",
    )
    p.add_argument(
        "--session", metavar="ID", help="session for context (default: $TERMWISE_SESSION)"
    )
    p.add_argument("--json", action="store_true", help="print events as JSON lines")
    p.add_argument("--offline", action="store_true", help="do not call a model")
    _picker_options(p)
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser(
        "fix",
        help="suggest fixes for the last failed command of a session",
        description="Fix the last failed command: instant rules, then the model. With "
        "--jsonl, read {script, output, exit_code, shell} lines on stdin and answer each "
        "with the rules tier only.",
    )
    p.add_argument("--session", metavar="ID", help="session (default: $TERMWISE_SESSION)")
    p.add_argument("--offline", action="store_true", help="rules only, no model")
    p.add_argument("--json", action="store_true", help="print events as JSON lines")
    p.add_argument("--jsonl", action="store_true", help="batch mode over stdin (rules only)")
    _picker_options(p)
    p.set_defaults(func=cmd_fix)

    p = sub.add_parser(
        "check",
        help="safety verdict for a command",
        description="Classify a command as safe, confirm or dangerous (rules only). Exit "
        f"code {EXIT_OK} safe, {EXIT_CONFIRM} confirm, {EXIT_DANGEROUS} dangerous. With "
        "--jsonl, read {command, shell} lines on stdin.",
    )
    p.add_argument(
        "--shell",
        default=DEFAULT_SHELL,
        metavar="|".join(SHELLS),
        help=f"shell syntax (default: {DEFAULT_SHELL})",
    )
    p.add_argument("--jsonl", action="store_true", help="batch mode over stdin")
    p.add_argument(
        "--json", action="store_true", help='print {"verdict", "reasons"} for the one command'
    )
    p.add_argument("words", nargs=argparse.REMAINDER, help="-- COMMAND …")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser(
        "redact",
        help="replace secrets in text the way Termwise does before calling a model",
        description="Read text on stdin and print it redacted. With --jsonl, read {text} "
        "lines and write {text, found} lines.",
    )
    p.add_argument("--jsonl", action="store_true", help="JSON lines in and out")
    p.set_defaults(func=cmd_redact)

    p = sub.add_parser("config", help="model settings and API keys")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    k = csub.add_parser("set-key", help="store a provider's API key in the system keyring")
    k.add_argument("provider", help="provider name from the config, or a preset name")
    k.set_defaults(func=cmd_config_set_key)
    s = csub.add_parser("show", help="providers, task routing and key status (keys masked)")
    s.add_argument("--json", action="store_true", help="as JSON")
    s.set_defaults(func=cmd_config_show)
    t = csub.add_parser("path", help="print the config file path")
    t.set_defaults(func=cmd_config_path)


def _picker_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--plain", action="store_true", help="print the list and exit, even in a terminal"
    )
    # Set by the `??` word of the shell integration (its own block is not context).
    p.add_argument("--from-prompt", action="store_true", help=argparse.SUPPRESS)


# -- shared helpers ---------------------------------------------------------------------------


def _paths() -> Paths:
    from termwise.agent.base.paths import resolve_paths

    return resolve_paths()


def _config(paths: Paths) -> Config:
    from termwise.agent.base.config import load_config

    result = load_config(paths.config_file)
    for problem in result.problems:
        print(f"termwise: config: {problem}", file=sys.stderr)
    if result.kept_aside is not None:
        print(f"termwise: the broken config was kept as {result.kept_aside}", file=sys.stderr)
    return result.config


def _unavailable(message: str) -> Exception:
    from termwise.agent.base.errors import Unavailable

    return Unavailable(message)


def _session_context(
    paths: Paths, session: str | None, *, rules: bool = False
) -> tuple[SessionContext, list[Suggestion] | None]:
    """The session's recent blocks from the host, and with `rules` the host's rules tier
    for a fix of them (None if it sent none); raises HostUnavailable when none runs."""
    from termwise.agent.suggest.wire import (
        CONTEXT_BLOCKS,
        block_from_json,
        rules_from_json,
        session_context,
    )
    from termwise.tray.ipc.client import HostClient

    with HostClient(paths) as client:
        reply = client.context(session, blocks=CONTEXT_BLOCKS, rules=rules)
    info = reply.session
    return session_context(
        [block_from_json(b) for b in reply],
        shell=str(info.get("shell") or DEFAULT_SHELL),
        cwd=info.get("cwd"),
        session_id=info.get("id"),
        os_name=reply.os_name,
        has_marks=reply.has_marks,
        screen_text=reply.screen_text,
    ), rules_from_json(reply.rules) if rules else None


def _memory(paths: Paths, config: Config) -> Callable[[str, int], list[str]] | None:
    from termwise.agent.suggest.context import memory_lookup

    return memory_lookup(config, paths.memory_dir)


def _default_session(explicit: str | None) -> str | None:
    return explicit or os.environ.get("TERMWISE_SESSION") or None


# -- ask / fix --------------------------------------------------------------------------------


def cmd_ask(args: argparse.Namespace) -> int:
    words = [args.question] if isinstance(args.question, str) else list(args.question)
    question = " ".join(w for w in words if w.strip()).strip()
    if not question:  # `??` alone: fix the last failed command
        return _turn(args, "", need_context=True)
    return _turn(args, question, need_context=False)


def cmd_fix(args: argparse.Namespace) -> int:
    if args.jsonl:
        return _fix_jsonl(sys.stdin, sys.stdout)
    return _turn(args, "", need_context=True)


def _turn(args: argparse.Namespace, question: str, *, need_context: bool) -> int:
    from termwise.agent.base.cancel import CancelToken
    from termwise.agent.base.types import SessionContext
    from termwise.agent.suggest.turn import SuggestTurn
    from termwise.tray.commands.ask_render import TurnRenderer
    from termwise.tray.errors import HostUnavailable, TrayError

    paths = _paths()
    config = _config(paths)
    render = TurnRenderer(sys.stdout, sys.stderr, as_json=args.json, offline=args.offline)
    session = _default_session(args.session)
    host_rules = None
    try:
        # A fix also asks the host for its rules tier: loading the rules here would be
        # most of this command's start-up.
        ctx, host_rules = _session_context(paths, session, rules=not question)
    except HostUnavailable as exc:
        if need_context:
            raise _unavailable(f"nothing to fix without a session: {exc}") from None
        render.note("no Termwise host is running; answering without session context")
        ctx = SessionContext(shell=_guess_shell())
    except TrayError as exc:
        if need_context or session:
            raise
        render.note(f"answering without session context ({exc})")
        ctx = SessionContext(shell=_guess_shell())
    if ctx.blocks:
        from termwise.tray.commands.prompt_words import without_word_blocks

        ctx = without_word_blocks(ctx)
    if not ctx.blocks and ctx.screen_text.strip():
        # cmd under Wine, or any shell whose integration did not load: no command marks.
        render.note("no command marks from this shell; using its last screen instead")
    if need_context and not ctx.blocks and not ctx.screen_text.strip():
        from termwise.agent.base.errors import AgentError

        raise AgentError("no finished command in that session yet; run something first")
    client = None
    if not args.offline:
        from termwise.agent.llm.factory import make_client

        client = make_client(config)
        if client is None and question:
            raise _unavailable(
                "no model configured: add a provider to "
                f"{paths.config_file} (`termwise config show`), set TERMWISE_BASE_URL and "
                "TERMWISE_MODEL, or start Ollama"
            )
    elif question:
        raise _unavailable("--offline answers only `termwise fix`; a question needs a model")
    # Memories only go into a model's prompt: without a model, the store is not opened.
    turn = SuggestTurn(client, config, _memory(paths, config) if client is not None else None)
    if host_rules is not None:
        turn.use_rules(ctx, host_rules)
    if _interactive(args):
        from termwise.tray.commands.ask_picker import run_picker

        return run_picker(turn, question, ctx, paths=paths, offline=args.offline)
    from termwise.tray.commands.interrupt_watch import follow

    token = CancelToken()
    if follow(turn.run(question, ctx, token), token, render.event):
        return 130
    return render.exit_code()


def _interactive(args: argparse.Namespace) -> bool:
    """The picker runs when a person is at a terminal and no machine-readable form was asked."""
    if args.json or getattr(args, "plain", False):
        return False
    return sys.stdin.isatty() and sys.stdout.isatty()


def _guess_shell() -> str:
    if sys.platform == "win32":
        return "powershell"
    name = os.path.basename(os.environ.get("SHELL", "bash"))
    return name if name in SHELLS else "bash"


def _jsonl(stream: Any) -> Iterator[tuple[dict[str, Any] | None, str]]:
    """Each non-empty line as a JSON object, or (None, why it is not one)."""
    for line in stream:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            yield None, f"not a JSON line: {exc}"
            continue
        if not isinstance(obj, dict):
            yield None, "expected a JSON object"
            continue
        yield obj, ""


def _emit(out: Any, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def _fix_jsonl(inp: Any, out: Any) -> int:
    from termwise.agent.rules import suggest_fixes

    for obj, problem in _jsonl(inp):
        if obj is None:
            _emit(out, {"error": problem})
            continue
        script, output, code = obj.get("script"), obj.get("output", ""), obj.get("exit_code")
        shell = obj.get("shell") or DEFAULT_SHELL
        if not isinstance(script, str) or not isinstance(output, str) or not isinstance(shell, str):
            _emit(out, {"error": 'need a string "script" (and string "output", "shell")'})
            continue
        if code is not None and not isinstance(code, int):
            _emit(out, {"error": '"exit_code" must be an integer or null'})
            continue
        try:
            cwd = obj.get("cwd") if isinstance(obj.get("cwd"), str) else None
            found = suggest_fixes(script, output, code, shell, cwd=cwd)
        except Exception as exc:  # one bad case must not end the batch
            _emit(out, {"error": f"rules failed: {type(exc).__name__}: {exc}"})
            continue
        _emit(
            out,
            {
                "suggestions": [
                    {"command": s.command, "explanation": s.explanation, "source": s.source}
                    for s in found
                ]
            },
        )
    return EXIT_OK


# -- check ------------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    from termwise.agent.safety import classify

    words = list(args.words)
    if words and words[0] == "--":
        words = words[1:]
    if args.jsonl and (words or args.json):
        # Batch mode reads stdin only: a command here would be silently ignored.
        return _usage_error(
            "check --jsonl reads {command, shell} lines on stdin; give no "
            "command and no --json with it (for one command: --json -- COMMAND)"
        )
    if args.jsonl:
        for obj, problem in _jsonl(sys.stdin):
            command = obj.get("command") if obj is not None else None
            shell = (obj or {}).get("shell") or args.shell
            if obj is None or not isinstance(command, str) or not isinstance(shell, str):
                _emit(sys.stdout, {"error": problem or 'need a string "command"'})
                continue
            v = classify(command, shell)
            _emit(sys.stdout, {"verdict": v.level, "reasons": list(v.reasons)})
        return EXIT_OK
    if not words:
        return _usage_error("check needs a command: termwise check [--shell S] [--json] -- COMMAND")
    command = words[0] if len(words) == 1 else _join(words, args.shell)
    v = classify(command, args.shell)
    code = {"safe": EXIT_OK, "confirm": EXIT_CONFIRM}.get(v.level, EXIT_DANGEROUS)
    if args.json:
        _emit(sys.stdout, {"verdict": v.level, "reasons": list(v.reasons)})
        return code
    print(f"{v.level}: {command}")
    for reason in v.reasons:
        print(f"  - {reason}")
    return code


def _usage_error(message: str) -> int:
    print(f"termwise: {message}", file=sys.stderr)
    return EXIT_USAGE


def _join(words: list[str], shell: str) -> str:
    if shell in ("cmd", "pwsh", "powershell"):
        import subprocess  # not at the top: `check` starts faster without it

        return subprocess.list2cmdline(words)
    if any(not w or " " in w for w in words):
        import shlex

        return shlex.join(words)
    return " ".join(words)


# -- redact -----------------------------------------------------------------------------------


def cmd_redact(args: argparse.Namespace) -> int:
    from termwise.agent.privacy.redact import redact

    config = _config(_paths())
    patterns = list(config.privacy.patterns)
    if not args.jsonl:
        result = redact(sys.stdin.read(), patterns)
        sys.stdout.write(result.text)
        if result.found:
            print(f"termwise: redacted: {', '.join(result.found)}", file=sys.stderr)
        return EXIT_OK
    for obj, problem in _jsonl(sys.stdin):
        text = obj.get("text") if obj is not None else None
        if not isinstance(text, str):
            _emit(sys.stdout, {"error": problem or 'need a string "text"'})
            continue
        result = redact(text, patterns)
        _emit(sys.stdout, {"text": result.text, "found": result.found})
    return EXIT_OK


# -- config -----------------------------------------------------------------------------------


def cmd_config_path(args: argparse.Namespace) -> int:
    print(_paths().config_file)
    return EXIT_OK


def cmd_config_set_key(args: argparse.Namespace) -> int:
    import getpass

    from termwise.agent.base.errors import AgentError
    from termwise.agent.llm.keys import set_key
    from termwise.agent.llm.providers import PRESETS, provider_from_config

    config = _config(_paths())
    known = {}
    for i, pc in enumerate(config.providers):
        try:
            p = provider_from_config(pc, i)
        except AgentError:
            continue
        known[p.name] = p.key_env
    for name, preset in PRESETS.items():
        known.setdefault(name, preset.key_env)
    # Not model providers, but secrets kept the same way: the deploy reader's GitHub
    # token and the email skill's SMTP password.
    known.setdefault("github", "GITHUB_TOKEN")
    known.setdefault("smtp", "")
    if args.provider not in known:
        raise AgentError(f"unknown provider {args.provider!r}; known: {', '.join(sorted(known))}")
    if sys.stdin.isatty():
        key = getpass.getpass(f"API key for {args.provider} (input hidden): ")
    else:
        key = sys.stdin.readline()
    key = key.strip()
    if not key:
        raise AgentError("no key given; nothing stored")
    set_key(args.provider, key, known[args.provider])
    print(f"stored the key for {args.provider} in the system keyring (service termwise)")
    return EXIT_OK


def cmd_config_show(args: argparse.Namespace) -> int:
    from termwise.agent.base.errors import AgentError
    from termwise.agent.llm.base import TASKS
    from termwise.agent.llm.keys import get_key, mask
    from termwise.agent.llm.providers import provider_from_config
    from termwise.agent.llm.routing import ENV_BASE_URL, resolve_route

    paths = _paths()
    config = _config(paths)
    env = os.environ
    providers: list[dict[str, Any]] = []
    for i, pc in enumerate(config.providers):
        try:
            p = provider_from_config(pc, i)
        except AgentError as exc:
            providers.append({"name": pc.name, "error": str(exc)})
            continue
        key, source = get_key(p.name, p.key_env, env)
        providers.append(
            {
                "name": p.name,
                "preset": p.preset,
                "base_url": p.base_url,
                "default_model": p.default_model,
                "key": mask(key) if key else ("not needed" if not p.needs_key else "not set"),
                "key_source": source,
            }
        )
    tasks: dict[str, dict[str, Any]] = {}
    for task in TASKS:
        try:
            r = resolve_route(config, task, env)
        except AgentError as exc:
            tasks[task] = {"error": str(exc)}
            continue
        tasks[task] = {
            "provider": r.provider.name,
            "base_url": r.provider.base_url,
            "model": r.model,
            "temperature": r.temperature,
            "key": mask(r.api_key),
        }
    data = {
        "config_file": str(paths.config_file),
        "env_override": bool(env.get(ENV_BASE_URL)),
        "providers": providers,
        "tasks": tasks,
    }
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(f"config: {paths.config_file}")
    if data["env_override"]:
        print(f"{ENV_BASE_URL} is set: it overrides the model of every task")
    print(
        "providers:"
        if providers
        else "providers: none (offline; a local Ollama is used if it runs)"
    )
    for p in providers:
        if "error" in p:
            print(f"  {p['name'] or '?'}: {p['error']}")
            continue
        src = f" ({p['key_source']})" if p["key_source"] else ""
        print(
            f"  {p['name']} [{p['preset']}] {p['base_url']} model={p['default_model'] or '-'} "
            f"key={p['key']}{src}"
        )
    print("tasks:")
    for task, t in tasks.items():
        if "error" in t:
            print(f"  {task}: {t['error']}")
        else:
            print(
                f"  {task}: {t['provider']} / {t['model']} (temperature {t['temperature']:g}, "
                f"key {t['key']})"
            )
    return EXIT_OK
