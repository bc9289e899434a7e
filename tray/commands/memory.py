"""`termwise mem …` (search, add, show, purge, path) and `termwise chat`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3


def register(sub: Any) -> None:
    mem = sub.add_parser("mem", help="the Markdown memory of you: search, add, show, purge")
    mem_sub = mem.add_subparsers(dest="mem_command", metavar="ACTION", required=True)

    search = mem_sub.add_parser("search", help="find memories (best first)")
    search.add_argument("query")
    search.add_argument("-n", type=int, default=3, help="how many (default 3)")
    search.add_argument("--json", action="store_true", help="one JSON object per line")
    search.set_defaults(func=cmd_search)

    add = mem_sub.add_parser("add", help="remember something (replaces the same key)")
    add.add_argument("--key", required=True, help="e.g. pref:editor")
    add.add_argument("--type", required=True, choices=("profile", "fact"))
    add.add_argument("--content", required=True)
    add.add_argument("--tags", default="", help="comma-separated")
    add.set_defaults(func=cmd_add)

    show = mem_sub.add_parser("show", help="print one memory, or all of them")
    show.add_argument("key", nargs="?")
    show.set_defaults(func=cmd_show)

    purge = mem_sub.add_parser("purge", help="forget one key, or everything")
    which = purge.add_mutually_exclusive_group(required=True)
    which.add_argument("--key")
    which.add_argument("--all", action="store_true")
    purge.add_argument("--yes", action="store_true", help="confirm --all")
    purge.set_defaults(func=cmd_purge)

    path = mem_sub.add_parser("path", help="print the memory folder")
    path.set_defaults(func=cmd_path)

    chat = sub.add_parser("chat", help="talk with the model in this terminal (with skills)")
    chat.add_argument("--verbose", action="store_true", help="show prompts and tool calls")
    chat.set_defaults(func=cmd_chat)


def _store() -> Any:
    from termwise.agent.base.paths import resolve_paths
    from termwise.memory.store import MemoryStore

    return MemoryStore(resolve_paths().memory_dir)


def _report_problems(store: Any) -> None:
    for problem in store.problems:
        print(f"termwise: memory damaged: {problem}", file=sys.stderr)


def cmd_search(args: argparse.Namespace) -> int:
    store = _store()
    hits = store.search(args.query, max(1, args.n))
    _report_problems(store)
    for hit in hits:
        entry = hit.entry
        if args.json:
            record = {
                "key": entry.key,
                "type": entry.type,
                "content": entry.content,
                "tags": list(entry.tags),
                "updated_at": entry.updated_at,
                "score": hit.score,
                "file": hit.file,
                "line": hit.line,
            }
            print(json.dumps(record, ensure_ascii=False))
        else:
            print(f"{entry.key}  ({entry.type}, {entry.updated_at}, score {hit.score})")
            print(f"  {hit.file}:{hit.line}")
            print("  " + entry.content.replace("\n", "\n  "))
    if not hits and not args.json:
        print("no memories match", file=sys.stderr)
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from termwise.agent.base.config import load_config
    from termwise.agent.base.paths import resolve_paths
    from termwise.agent.chat.memory_link import make_redactor
    from termwise.memory.errors import MemoryStoreError

    config = load_config(resolve_paths().config_file).config
    if make_redactor(config)(args.content)[1]:
        raise MemoryStoreError("not remembered: the content looks like it holds a secret")
    store = _store()
    tags = [t.strip() for t in args.tags.split(",") if t.strip()]
    entry = store.upsert(args.key, args.type, args.content, tags)
    _report_problems(store)
    print(f"remembered {entry.key} ({entry.type})")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from termwise.memory.errors import MemoryStoreError
    from termwise.memory.format import entry_text

    store = _store()
    if args.key:
        entry = store.get(args.key)
        _report_problems(store)
        if entry is None:
            raise MemoryStoreError(f"no memory under key {args.key!r} (see `termwise mem show`)")
        print(entry_text(entry))
        return 0
    located = store.located()
    _report_problems(store)
    current = None
    for rel, loc in located:
        if rel != current:
            print(f"# {store.path_of(rel)}")
            current = rel
        print(entry_text(loc.entry) + "\n")
    if not located:
        print(f"no memories yet (folder: {store.root})", file=sys.stderr)
    return 0


def cmd_purge(args: argparse.Namespace) -> int:
    from termwise.memory.errors import MemoryStoreError

    store = _store()
    if args.all:
        if not args.yes:
            print("termwise: `mem purge --all` forgets every memory; add --yes", file=sys.stderr)
            return EXIT_USAGE
        print(f"forgot {store.purge()} memories")
        return 0
    if not store.delete(args.key):
        raise MemoryStoreError(f"no memory under key {args.key!r}")
    print(f"forgot {args.key}")
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from termwise.agent.base.paths import resolve_paths

    print(resolve_paths().memory_dir)
    return 0


def cmd_chat(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from termwise.agent.base.config import load_config
    from termwise.agent.base.paths import resolve_paths
    from termwise.agent.chat.memory_link import MemoryLink
    from termwise.agent.llm.factory import make_client
    from termwise.memory.store import MemoryStore
    from termwise.tray.commands.chat_repl import ChatRepl, build_session

    try:
        import readline  # noqa: F401  (line editing and history for input())
    except ImportError:
        pass
    paths = resolve_paths()
    loaded = load_config(paths.config_file)
    for problem in loaded.problems:
        print(f"termwise: config: {problem}", file=sys.stderr)
    config = loaded.config
    client = make_client(config)
    if client is None:
        print(
            "termwise: chat needs a model: add a provider with `termwise config`, or set "
            "TERMWISE_BASE_URL and TERMWISE_MODEL",
            file=sys.stderr,
        )
        return EXIT_UNAVAILABLE
    link = MemoryLink(MemoryStore(paths.memory_dir), client, config)
    holder: list[ChatRepl] = []
    session = build_session(
        client,
        config,
        link,
        cwd=Path.cwd(),
        confirm=lambda question: holder[0].confirm(question),
        env=dict(os.environ),
    )
    repl = ChatRepl(session, verbose=args.verbose)
    holder.append(repl)
    try:
        return repl.run()
    finally:
        link.close(timeout=5)
