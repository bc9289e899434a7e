"""File skills: file_search, file_read, list_dir — only inside `skills.allowed_folders`."""

from __future__ import annotations

import fnmatch
import os
import stat
from pathlib import Path
from typing import Any

from termwise.agent.chat.skills.base import Skill, SkillContext, SkillError, arg_str, params

MAX_SEARCH_RESULTS = 100
MAX_SEARCH_DIRS = 20_000  # stop walking huge trees; the answer says it stopped
MAX_LIST_ENTRIES = 200


def allowed_roots(ctx: SkillContext) -> list[Path]:
    roots = []
    for folder in ctx.config.skills.allowed_folders:
        if folder.strip():
            roots.append(Path(os.path.expandvars(folder)).expanduser().resolve())
    return roots


def inside_allowed(raw: str, ctx: SkillContext) -> Path:
    """The resolved path, or SkillError when it (or a link in it) leaves the allowed folders."""
    roots = allowed_roots(ctx)
    if not roots:
        raise SkillError("file skills are off: skills.allowed_folders is empty in the config")
    path = Path(os.path.expandvars(raw)).expanduser()
    if not path.is_absolute():
        path = ctx.cwd / path
    resolved = path.resolve()  # follows symlinks, so a link cannot lead outside
    if not any(resolved == root or root in resolved.parents for root in roots):
        shown = ", ".join(str(r) for r in roots)
        raise SkillError(
            f"refused: {resolved} is outside the folders skills may use ({shown}); "
            "add it to skills.allowed_folders in the config to allow it"
        )
    return resolved


def _default_folder(ctx: SkillContext) -> str:
    roots = allowed_roots(ctx)
    cwd = ctx.cwd.resolve()
    if any(cwd == r or r in cwd.parents for r in roots):
        return str(cwd)
    return str(roots[0]) if roots else str(cwd)


def file_search(args: dict[str, Any], ctx: SkillContext) -> str:
    pattern = arg_str(args, "pattern")
    top = inside_allowed(arg_str(args, "path", _default_folder(ctx)), ctx)
    if not top.is_dir():
        raise SkillError(f"{top} is not a folder")
    glob = pattern if any(c in pattern for c in "*?[") else f"*{pattern}*"
    found: list[str] = []
    walked = 0
    for folder, dirs, files in os.walk(top):
        walked += 1
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files + dirs):
            if fnmatch.fnmatch(name.lower(), glob.lower()):
                found.append(os.path.join(folder, name))
                if len(found) >= MAX_SEARCH_RESULTS:
                    return "\n".join(found) + f"\n… (stopped at {MAX_SEARCH_RESULTS} results)"
        if walked >= MAX_SEARCH_DIRS:
            return "\n".join(found) + f"\n… (stopped after {MAX_SEARCH_DIRS} folders)"
    return "\n".join(found) if found else f"no names matching {pattern!r} under {top}"


def file_read(args: dict[str, Any], ctx: SkillContext) -> str:
    path = inside_allowed(arg_str(args, "path"), ctx)
    if not path.is_file():
        raise SkillError(f"{path} is not a file" if path.exists() else f"{path} does not exist")
    limit = ctx.config.skills.max_file_bytes
    size = path.stat().st_size
    try:
        with path.open("rb") as handle:
            data = handle.read(limit)
    except OSError as exc:
        raise SkillError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if b"\0" in data[:8192]:
        raise SkillError(f"{path} looks like a binary file; file_read returns text only")
    text = data.decode("utf-8", errors="replace")
    if size > limit:
        text += f"\n… (cut: the file has {size} bytes, file_read returns the first {limit})"
    return text


def list_dir(args: dict[str, Any], ctx: SkillContext) -> str:
    path = inside_allowed(arg_str(args, "path", _default_folder(ctx)), ctx)
    if not path.is_dir():
        raise SkillError(f"{path} is not a folder")
    lines = []
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name.lower())
    except OSError as exc:
        raise SkillError(f"cannot list {path}: {exc.strerror or exc}") from exc
    for entry in entries[:MAX_LIST_ENTRIES]:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            lines.append(f"{entry.name}/")
        else:
            lines.append(f"{entry.name}  ({st.st_size} bytes)")
    if len(entries) > MAX_LIST_ENTRIES:
        lines.append(f"… ({len(entries) - MAX_LIST_ENTRIES} more)")
    return f"{path}:\n" + ("\n".join(lines) if lines else "(empty)")


FILE_SKILLS = (
    Skill(
        "file_search",
        "Find files and folders whose names match a pattern (glob or plain text) under a folder.",
        params(
            ("pattern",),
            pattern=("string", "name pattern, e.g. *.py or readme"),
            path=("string", "folder to search (default: the current folder)"),
        ),
        file_search,
    ),
    Skill(
        "file_read",
        "Read a text file (only the first part of large files).",
        params(("path",), path=("string", "file to read")),
        file_read,
    ),
    Skill(
        "list_dir",
        "List the entries of a folder with their sizes.",
        params(path=("string", "folder to list (default: the current folder)")),
        list_dir,
    ),
)
