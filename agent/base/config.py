"""Loading, validating and writing `config.yaml` against the schema in `config_schema`.

A broken file never stops Termwise: problems are reported with file and line, bad keys
are skipped and the rest stays in force; an unreadable file is kept aside as
`config.yaml.bad-<timestamp>` (by the tray, the host or a write), never lost.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import time
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from termwise.agent.base import config_schema
from termwise.agent.base.config_schema import Config
from termwise.agent.base.datafiles import CacheEntry
from termwise.agent.base.errors import ConfigError
from termwise.agent.base.fileio import atomic_write, free_aside_path

if TYPE_CHECKING:
    import yaml

# PyYAML is imported where a file is parsed or written, not here: a config that parsed
# cleanly before comes from the cache (see _read), and the host and the command-line
# clients then never load the YAML parser (about 1.5 MiB of the idle host).

log = logging.getLogger(__name__)

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class LoadResult:
    """The config in force plus what went wrong reading it (empty when all was well)."""

    config: Config
    path: Path
    problems: list[str] = field(default_factory=list)
    kept_aside: Path | None = None
    created: bool = False


def expand_env(text: str, env: typing.Mapping[str, str]) -> str:
    """Replace `${NAME}` with the variable's value; unknown names are left as written."""
    return _ENV_REF.sub(lambda m: env.get(m.group(1), m.group(0)), text)


def _where(path: Path, node: yaml.Node) -> str:
    return f"{path}:{node.start_mark.line + 1}"


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp))


class _Builder:
    """Turns a composed YAML node tree into schema dataclasses, collecting problems."""

    def __init__(self, path: Path, env: typing.Mapping[str, str]) -> None:
        self.path = path
        self.env = env
        self.problems: list[str] = []
        self.env_refs = False  # some value names ${NAME}: the result depends on the environment

    def problem(self, node: yaml.Node, text: str) -> None:
        self.problems.append(f"{_where(self.path, node)}: {text}")

    def build(self, cls: type, node: yaml.Node | None, dotted: str, obj: Any = None) -> Any:
        import yaml

        # Start from the parent's default for this field (tasks.safety has temperature 0,
        # not TaskConfig's 0.7), so a partial section keeps its own defaults.
        obj = cls() if obj is None else obj
        if node is None:
            return obj
        if not isinstance(node, yaml.MappingNode):
            self.problem(node, f"`{dotted or 'config'}` should be a mapping of keys")
            return obj
        hints = typing.get_type_hints(cls)
        names = {f.name for f in dataclasses.fields(cls)}
        for key_node, value_node in node.value:
            key = key_node.value
            full = f"{dotted}.{key}" if dotted else str(key)
            if key not in names:
                known = ", ".join(sorted(names))
                self.problem(key_node, f"unknown key `{full}` (known here: {known})")
                continue
            if dataclasses.is_dataclass(hints[key]):
                setattr(obj, key, self.build(hints[key], value_node, full, getattr(obj, key)))
                continue
            ok, value = self.value(hints[key], value_node, full)
            if ok:
                setattr(obj, key, value)
        return obj

    def value(self, tp: Any, node: yaml.Node, dotted: str) -> tuple[bool, Any]:
        import yaml

        if dataclasses.is_dataclass(tp):
            return True, self.build(tp, node, dotted)  # type: ignore[arg-type]
        origin = typing.get_origin(tp)
        if origin is list:
            (item_tp,) = typing.get_args(tp)
            if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
                return True, []
            if not isinstance(node, yaml.SequenceNode):
                self.problem(node, f"`{dotted}` should be a list")
                return False, None
            items = []
            for i, item in enumerate(node.value):
                ok, v = self.value(item_tp, item, f"{dotted}[{i}]")
                if ok:
                    items.append(v)
            return True, items
        if origin in (typing.Union, types.UnionType):
            tp = next(a for a in typing.get_args(tp) if a is not type(None))
        if not isinstance(node, yaml.ScalarNode):
            self.problem(node, f"`{dotted}` should be a single {_type_name(tp)} value")
            return False, None
        raw = yaml.safe_load(yaml.serialize(node))
        if raw is None and tp is str:
            return True, ""
        if tp is float and isinstance(raw, int) and not isinstance(raw, bool):
            raw = float(raw)
        if tp is str and isinstance(raw, (int, float)) and not isinstance(raw, bool):
            raw = str(raw)
        if not isinstance(raw, tp) or (tp is int and isinstance(raw, bool)):
            self.problem(
                node, f"`{dotted}` should be {_type_name(tp)}, not {type(raw).__name__} {raw!r}"
            )
            return False, None
        if isinstance(raw, str):
            self.env_refs = self.env_refs or "${" in raw
            raw = expand_env(raw, self.env)
        return True, raw


def parse_config(
    text: str, path: Path, env: typing.Mapping[str, str] | None = None
) -> tuple[Config, list[str]]:
    """Parse config text; returns the config (defaults where invalid) and the problems."""
    config, problems, _usable = _parse(text, path, env)
    return config, problems


def _parse(
    text: str, path: Path, env: typing.Mapping[str, str] | None
) -> tuple[Config, list[str], bool]:
    """(config, problems, usable): not usable when the file as a whole cannot be read."""
    config, problems, usable, _env_refs = _parse_full(text, path, env)
    return config, problems, usable


def _parse_full(
    text: str, path: Path, env: typing.Mapping[str, str] | None
) -> tuple[Config, list[str], bool, bool]:
    """`_parse`, and whether a value named ${NAME} (so the result depends on the environment)."""
    import yaml

    env = os.environ if env is None else env
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        reason = getattr(exc, "problem", None) or str(exc)
        return Config(), [f"{path}{line}: not valid YAML ({reason})"], False, False
    except RecursionError:
        return Config(), [f"{path}: nested too deeply to read"], False, False
    if root is not None and not isinstance(root, yaml.MappingNode):
        return (
            Config(),
            [f"{_where(path, root)}: the config should be a mapping of keys"],
            False,
            False,
        )
    builder = _Builder(path, env)
    config = builder.build(Config, root, "")
    return config, builder.problems, True, builder.env_refs


def _keep_aside(path: Path, clock: typing.Callable[[], float] = time.time) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(clock()))
    target = free_aside_path(path, "bad", stamp)
    os.replace(path, target)
    if os.name == "posix":  # it may hold settings the user would not share
        os.chmod(target, 0o600)
    return target


def _read(path: Path, env: typing.Mapping[str, str] | None) -> tuple[Config, list[str], bool]:
    entry = _cache_entry(path)
    cached = entry.read() if entry is not None else None
    if cached is not None:
        config = _from_cache(cached)
        if config is not None:
            return config, [], True
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return Config(), [f"{path}: not UTF-8 text (a bad byte at offset {exc.start})"], False
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc.strerror or exc})") from exc
    config, problems, usable, env_refs = _parse_full(text, path, env)
    # Cached: files without problems (their warnings must show at every start) and without
    # ${NAME} values (they take the environment of each start).
    if entry is not None and usable and not problems and not env_refs:
        plain = to_plain(config)
        if _from_cache(plain) == config:
            entry.write(plain)
    return config, problems, usable


def _cache_entry(path: Path) -> CacheEntry | None:
    """The cache entry of a config file, keyed on the file and on this loader's own code."""
    code = [Path(__file__), Path(config_schema.__file__)]
    if not all(p.is_file() for p in code):
        return None  # frozen without sources: no stamp for the loader's version
    return CacheEntry("config", [path, *code])


def _from_cache(plain: Any) -> Config | None:
    try:
        config = from_plain(Config, plain)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # an entry from another schema or a damaged one: read the file
    return config if isinstance(config, Config) else None


def from_plain(cls: type, plain: Any) -> Any:
    """The dataclass `cls` rebuilt from `to_plain` output (every field present)."""
    if not isinstance(plain, dict):
        raise TypeError(f"{cls.__name__}: expected a mapping")
    hints = typing.get_type_hints(cls)
    return cls(
        **{f.name: _plain_value(hints[f.name], plain[f.name]) for f in dataclasses.fields(cls)}
    )


def _plain_value(tp: Any, value: Any) -> Any:
    if dataclasses.is_dataclass(tp):
        return from_plain(tp, value)  # type: ignore[arg-type]
    if typing.get_origin(tp) is list:
        (item_tp,) = typing.get_args(tp)
        return [_plain_value(item_tp, v) for v in value]
    return value


def load_config(
    path: Path, env: typing.Mapping[str, str] | None = None, *, repair: bool = False
) -> LoadResult:
    """Load the config, creating it from the commented default when missing.

    Unknown keys and bad values are reported (file:line) and skipped; every valid
    setting stays in force and the file is left as the user wrote it. A file that
    cannot be read at all (not UTF-8, not YAML, not a mapping) gives the defaults; with
    `repair` (the tray and the host at start, and before a write) it is also kept aside
    as `config.yaml.bad-<timestamp>` and replaced by a fresh default, so the user's text
    is never lost. Read-only commands never move the file.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_config(Config(), path)
        return LoadResult(Config(), path, created=True)
    config, problems, usable = _read(path, env)
    for p in problems:
        log.warning("config problem: %s", p)
    result = LoadResult(config, path, problems)
    if not usable and repair:
        result.kept_aside = _keep_aside(path)
        atomic_write(path, render_config(Config()))
        log.warning("config kept aside as %s; using defaults", result.kept_aside)
    return result


def to_plain(obj: Any) -> Any:
    """A config dataclass as plain YAML-ready values."""
    if dataclasses.is_dataclass(obj):
        return {f.name: to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, list):
        return [to_plain(v) for v in obj]
    return obj


def _scalar(value: Any) -> str:
    import yaml

    return (
        yaml.safe_dump(value, default_flow_style=True, allow_unicode=True)
        .strip()
        .removesuffix("\n...")
        .removesuffix("...")
        .strip()
    )


def _render(obj: Any, indent: int, out: list[str]) -> None:
    import yaml

    pad = "  " * indent
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        text = f.metadata.get("doc", "")
        if text:
            out.append(f"{pad}# {text}")
        if dataclasses.is_dataclass(value):
            out.append(f"{pad}{f.name}:")
            _render(value, indent + 1, out)
        elif isinstance(value, list) and value and dataclasses.is_dataclass(value[0]):
            out.append(f"{pad}{f.name}:")
            for item in value:
                block = yaml.safe_dump(to_plain(item), sort_keys=False, allow_unicode=True)
                lines = block.rstrip("\n").splitlines()
                out.append(f"{pad}  - {lines[0]}")
                out.extend(f"{pad}    {line}" for line in lines[1:])
        else:
            out.append(f"{pad}{f.name}: {_scalar(value)}")
        if indent == 0:
            out.append("")


def render_config(config: Config) -> str:
    """The config as commented YAML: each key preceded by its description."""
    out = [
        "# Termwise configuration. Edit freely; a broken file is kept aside and reported.",
        "# ${NAME} is replaced by the environment variable NAME. API keys never go here:",
        "# use `termwise config set-key PROVIDER` (stored in the system keyring).",
        "",
    ]
    _render(config, 0, out)
    return "\n".join(out).rstrip("\n") + "\n"


def write_config(config: Config, path: Path) -> Path | None:
    """Write atomically (temporary file + rename) so a crash never leaves half a file.

    A file there that cannot be read is kept aside first (returned), never overwritten.
    """
    kept = None
    if path.exists():
        try:
            usable = _read(path, {})[2]
        except ConfigError:
            usable = False
        if not usable:
            kept = _keep_aside(path)
            log.warning("unreadable config kept aside as %s before writing", kept)
    atomic_write(path, render_config(config))
    return kept
