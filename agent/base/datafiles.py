"""Parsed YAML data files, kept as JSON in the user's cache folder, so a command does not
load and run the YAML parser at every start (the safety rules, the rules tier's data and a
clean config.yaml are read this way).

One entry per name: `<cache_dir>/yaml/<name>.json`, holding a key and the parsed data. The
key records each source file's path, size, modification and change times (ns) and inode,
the Python version, the PyYAML install and this module's format number; any difference is
a miss: the files are parsed again and the entry rewritten (atomically, so a reader sees
an old entry or a new one). Only data that survives a JSON round trip unchanged is cached
(YAML dates or integer keys would not), so a hit gives exactly what the parser gives. A
missing, unreadable or corrupt entry is a miss, and a cache folder that cannot be written
costs only the parse.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

FORMAT = 1  # bump when the entry layout or the way files are parsed changes
FOLDER = "yaml"

Check = Callable[[list[Any]], object]


class CacheEntry:
    """One cached value for a set of source files, keyed on their state when it was made.

    The key is taken when the entry is made, before the caller reads the files, so a file
    changed while its data is being built is seen at the next start, never hidden.
    """

    def __init__(self, name: str, paths: Sequence[Path], cache_dir: Path | None = None) -> None:
        try:
            self.key: dict[str, Any] | None = _key(paths)
        except OSError:
            self.key = None  # a file that cannot be stat'ed: its reader raises the error
        self.path = _entry_path(name, cache_dir) if self.key is not None else None

    def read(self) -> Any | None:
        """The cached value, or None on a miss (absent, stale, unreadable or corrupt)."""
        if self.path is None:
            return None
        try:
            stored = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(stored, dict) or stored.get("key") != self.key:
            return None
        return stored.get("data")

    def write(self, data: Any) -> bool:
        """Store `data` if JSON keeps it exactly (atomically; failures only cost a parse)."""
        if self.path is None:
            return False
        try:
            text = json.dumps({"key": self.key, "data": data}, ensure_ascii=False,
                              separators=(",", ":"))  # fmt: skip
        except (TypeError, ValueError):
            return False  # not JSON data (a YAML date …): parse it every time
        if json.loads(text)["data"] != data:
            return False  # JSON would change it (integer keys become strings)
        from termwise.agent.base.fileio import atomic_write

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(self.path, text, durable=False)
        except OSError:
            return False  # a read-only or full cache folder: the next start parses again
        return True


def load_yaml_files(
    name: str,
    paths: Sequence[Path],
    *,
    check: Check | None = None,
    cache_dir: Path | None = None,
) -> list[Any]:
    """The parsed documents of `paths`, from the cache when none of the files changed.

    `check` runs on freshly parsed documents before they are cached; when it raises, the
    error propagates and nothing is cached, so a hit never skips a check that would fail.
    """
    entry = CacheEntry(name, paths, cache_dir)
    cached = entry.read()
    if isinstance(cached, list) and len(cached) == len(paths):
        return cached
    docs = [parse_yaml(path.read_text(encoding="utf-8")) for path in paths]
    if check is not None:
        check(docs)
    entry.write(docs)
    return docs


def resource_yaml(
    name: str,
    files: Sequence[str],
    *,
    check: Check | None = None,
    cache_dir: Path | None = None,
) -> list[Any]:
    """The parsed documents of data files inside `termwise.resources` ("safety/posix.yaml")."""
    folder = resources_folder()
    if folder is not None and all((folder / f).is_file() for f in files):
        return load_yaml_files(name, [folder / f for f in files], check=check, cache_dir=cache_dir)
    # Not plain files (a zip import): read them through importlib, uncached.
    from importlib import resources

    root = resources.files("termwise.resources")
    docs = [parse_yaml(root.joinpath(*f.split("/")).read_text("utf-8")) for f in files]
    if check is not None:
        check(docs)
    return docs


def resources_folder() -> Path | None:
    """The folder of `termwise.resources` when it is plain files (an install, a frozen app).

    Found without importlib.resources, which brings zipfile and ~1 MiB into every process
    that reads one shipped file (the host reads the shell scripts).
    """
    from importlib.util import find_spec

    spec = find_spec("termwise.resources")
    origin = spec.origin if spec is not None else None
    if not origin or not os.path.isfile(origin):
        return None
    return Path(origin).parent


def parse_yaml(text: str) -> Any:
    """YAML text → plain data, with PyYAML's C loader where it is built (5-10x faster)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


def default_cache_dir() -> Path:
    from termwise.agent.base.paths import resolve_paths

    return resolve_paths().cache_dir


def _key(paths: Sequence[Path]) -> dict[str, Any]:
    files = []
    for path in paths:
        st = os.stat(path)
        # The change time and inode too: a copy that keeps the old mtime (`cp -p`, an
        # unpacked archive) at the same size still changes one of them.
        files.append([str(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino])
    return {"format": FORMAT, "python": sys.version, "yaml": _yaml_stamp(), "files": files}


def _yaml_stamp() -> str:
    """Where PyYAML is installed and when, without importing it (an upgrade rewrites it)."""
    from importlib.util import find_spec

    try:
        spec = find_spec("yaml")
    except (ImportError, ValueError):
        return ""
    origin = spec.origin if spec is not None else None
    if not origin:
        return ""
    try:
        st = os.stat(origin)
    except OSError:
        return origin
    return f"{origin}:{st.st_size}:{st.st_mtime_ns}"


def _entry_path(name: str, cache_dir: Path | None) -> Path:
    # One entry per name, whatever the files' paths: an install moved or frozen into a new
    # folder replaces its entry (the key tells them apart) instead of adding one per path.
    folder = (cache_dir if cache_dir is not None else default_cache_dir()) / FOLDER
    return folder / f"{name}.json"
