"""Facts about this machine the rules use: PATH programs, the OS package manager, listings.

Everything is read lazily on first use (never at import) and the slow facts are cached.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache
from pathlib import Path

from termwise.agent.base.types import RULE_VARIABLES

_WIN_EXTS = (".exe", ".cmd", ".bat", ".ps1", ".com")
# Another process's RULE_VARIABLES, while this thread runs the rules for it.
_their_env: ContextVar[Mapping[str, str] | None] = ContextVar("rules_env", default=None)


@contextmanager
def environment(variables: Mapping[str, str]) -> Iterator[None]:
    """Run the rules, on this thread, as if RULE_VARIABLES were `variables` (absent ones
    unset)."""
    token = _their_env.set({k: v for k, v in variables.items() if k in RULE_VARIABLES})
    try:
        yield
    finally:
        _their_env.reset(token)


@contextmanager
def shell_path(path: str | None) -> Iterator[None]:
    """Run the rules with a session shell's own PATH (a venv or an export changed it),
    unless the caller already chose an environment, which wins."""
    if path is None or _their_env.get() is not None:
        yield
        return
    ours = {k: os.environ[k] for k in RULE_VARIABLES if k in os.environ}
    with environment({**ours, "PATH": path}):
        yield


def getenv(name: str) -> str:
    theirs = _their_env.get()
    return (theirs if theirs is not None else os.environ).get(name, "")


# Indexes derived from `path_programs()`, rebuilt whenever that tuple is a new one (a test
# or a PATH change clears its cache): (the tuple they came from, by first, by second, set).
_derived: list[object] = [None, {}, {}, frozenset()]


def _index() -> list[object]:
    progs = path_programs()
    if _derived[0] is not progs:
        first: dict[str, list[str]] = {}
        second: dict[str, list[str]] = {}
        for p in progs:
            low = p[:2].lower()
            first.setdefault(low[:1], []).append(p)
            if len(low) > 1:
                second.setdefault(low[1], []).append(p)
        _derived[:] = [progs, first, second, frozenset(progs)]
    return _derived


def programs_by_letter() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """PATH programs indexed by their first and by their second letter (lower case)."""
    d = _index()
    return d[1], d[2]  # type: ignore[return-value]


def path_program_set() -> frozenset[str]:
    """`path_programs()` as a set, for membership tests."""
    return _index()[3]  # type: ignore[return-value]


def path_programs() -> tuple[str, ...]:
    """Names of the executables on PATH (without Windows extensions), sorted.

    Read again whenever PATH or a folder on it changed (installing a program changes its
    folder's time), so a long-lived process such as the host never offers stale names.
    """
    path = getenv("PATH")
    return _programs_in(path, _folder_times(path))


def _folder_times(path: str) -> tuple[int, ...]:
    times = []
    for folder in path.split(os.pathsep):
        try:
            times.append(os.stat(folder or ".").st_mtime_ns)
        except OSError:
            times.append(-1)
    return tuple(times)


@lru_cache(maxsize=4)  # the host reads for callers whose PATH differs from its own
def _programs_in(path: str, times: tuple[int, ...]) -> tuple[str, ...]:
    names: set[str] = set()
    for folder in path.split(os.pathsep):
        try:
            entries = os.scandir(folder or ".")
        except OSError:
            continue
        with entries:
            for e in entries:
                name = e.name
                if sys.platform == "win32":
                    low = name.lower()
                    if low.endswith(_WIN_EXTS):
                        names.add(name.rsplit(".", 1)[0])
                elif os.access(e.path, os.X_OK) and not e.is_dir():
                    names.add(name)
    return tuple(sorted(names))


def parse_os_release(text: str) -> dict[str, str]:
    """Key/value pairs of an os-release file."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s*([A-Z_]+)=(.*)", line)
        if m:
            out[m.group(1)] = m.group(2).strip().strip("\"'")
    return out


_MANAGER_BY_ID = {
    "debian": "apt",
    "ubuntu": "apt",
    "linuxmint": "apt",
    "pop": "apt",
    "raspbian": "apt",
    "kali": "apt",
    "fedora": "dnf",
    "rhel": "dnf",
    "centos": "dnf",
    "rocky": "dnf",
    "almalinux": "dnf",
    "amzn": "dnf",
    "arch": "pacman",
    "manjaro": "pacman",
    "endeavouros": "pacman",
    "opensuse": "zypper",
    "suse": "zypper",
    "alpine": "apk",
}


def manager_for(os_release: dict[str, str]) -> str:
    """The package manager for an os-release description (apt when unsure)."""
    ids = [os_release.get("ID", ""), *os_release.get("ID_LIKE", "").split()]
    for i in ids:
        for key, mgr in _MANAGER_BY_ID.items():
            if i == key or i.startswith(key + "-"):
                return mgr
    return "apt"


def system_manager() -> str:
    """This machine's package manager: winget, brew, apt, dnf, pacman, zypper or apk.

    `TERMWISE_PKG_MANAGER` overrides the detection (for unusual systems).
    """
    forced = getenv("TERMWISE_PKG_MANAGER").strip().lower()
    return forced or _detected_manager()


@cache
def _detected_manager() -> str:
    if sys.platform == "win32":
        return "winget"
    if sys.platform == "darwin":
        return "brew"
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        try:
            return manager_for(parse_os_release(Path(path).read_text(encoding="utf-8")))
        except OSError:
            continue
    return "apt"


def base_dir(cwd: str | None) -> Path | None:
    """The folder relative paths are resolved against: the session's, never this process's."""
    return Path(cwd) if cwd else None


def listing(folder: Path, dirs_only: bool = False) -> list[str]:
    """Names in `folder` (empty when it cannot be read)."""
    try:
        with os.scandir(folder) as it:
            return sorted(e.name for e in it if not dirs_only or e.is_dir())
    except OSError:
        return []


def package_scripts(cwd: str | None) -> list[str]:
    """Script names from package.json in `cwd` (empty without one)."""
    if not cwd:
        return []
    try:
        data = json.loads((Path(cwd) / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return list(scripts) if isinstance(scripts, dict) else []


def make_targets(cwd: str | None) -> list[str]:
    """Targets defined in the Makefile in `cwd` (empty without one)."""
    if not cwd:
        return []
    for name in ("GNUmakefile", "makefile", "Makefile"):
        try:
            text = (Path(cwd) / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = re.findall(r"^([A-Za-z0-9][\w./-]*)\s*:(?!=)", text, re.MULTILINE)
        return list(dict.fromkeys(found))
    return []


_SKIP_DIRS = {
    ".git",
    "node_modules",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    "target",
    "dist",
    "build",
}


def find_below(root: Path, name: str, depth: int = 2, budget: int = 3000) -> str | None:
    """The relative path of the first file called `name` up to `depth` folders below `root`."""
    queue: list[tuple[Path, int]] = [(root, 0)]
    seen = 0
    while queue:
        folder, level = queue.pop(0)
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        for e in entries:
            seen += 1
            if seen > budget:
                return None
            if level > 0 and e.name == name and e.is_file():
                return str(Path(e.path).relative_to(root)).replace(os.sep, "/")
            if level < depth and e.is_dir(follow_symlinks=False) and e.name not in _SKIP_DIRS:
                queue.append((Path(e.path), level + 1))
    return None


def _git_dirs(cwd: str | None) -> tuple[Path, Path] | None:
    """The repository's git folder and the folder its refs live in (differs in a worktree)."""
    if not cwd:
        return None
    folder = Path(cwd)
    for here in (folder, *folder.parents):
        dot = here / ".git"
        if dot.is_dir():
            return dot, dot
        if dot.is_file():  # a worktree or submodule: "gitdir: <path>"
            try:
                line = dot.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            try:
                git = (here / line[7:].strip()).resolve()
            except (OSError, ValueError):  # a NUL or a loop in what the file says
                return None
            try:
                text = (git / "commondir").read_text(encoding="utf-8", errors="replace")
                common = (git / text.strip()).resolve()
            except (OSError, ValueError):
                common = git
            return git, common
    return None


def git_head(cwd: str | None) -> str | None:
    """The branch checked out (None when detached, unknown, or outside a repository)."""
    dirs = _git_dirs(cwd)
    if dirs is None:
        return None
    try:
        head = (dirs[0] / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return head[len("ref: refs/heads/") :] if head.startswith("ref: refs/heads/") else None


def git_branches(cwd: str | None, budget: int = 2000, remotes: bool = True) -> list[str]:
    """Local branch names, then remote ones without their remote (`origin/x` → `x`), read
    from the refs files: no `git` process, and empty outside a repository."""
    dirs = _git_dirs(cwd)
    if dirs is None:
        return []
    common = dirs[1]
    local: list[str] = []
    remote: list[str] = []
    for prefix, into in (("refs/heads/", local), ("refs/remotes/", remote)):
        root = common / prefix
        for dirpath, _dirs, files in os.walk(root):
            into += (Path(dirpath, name).relative_to(root).as_posix() for name in files)
            if len(local) + len(remote) > budget:
                break  # a huge refs tree: what was read so far is enough for a guess
    try:
        packed = (common / "packed-refs").read_text(encoding="utf-8", errors="replace")
    except OSError:
        packed = ""
    for m in re.finditer(r"^[0-9a-f]{40,64} refs/(heads|remotes)/(\S+)$", packed, re.M):
        (local if m.group(1) == "heads" else remote).append(m.group(2))
    if not remotes:
        return list(dict.fromkeys(local))
    remote = [r.split("/", 1)[1] for r in remote if "/" in r and not r.endswith("/HEAD")]
    return list(dict.fromkeys(local + remote))
