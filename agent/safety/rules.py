"""Loads the safety rules from `resources/safety/*.yaml` into compiled, per-family rule sets.

The parsed files come through the data-file cache (agent/base/datafiles.py), and every
pattern compiles on its first use (a command consults few of the ~200): `termwise check`
then neither imports the YAML parser nor compiles regular expressions it will not run.
Freshly parsed files are compiled in full once, so a bad pattern is reported at load and
never cached.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fnmatch import fnmatchcase
from functools import cache, partial
from typing import Any, NamedTuple

from termwise.agent.base.datafiles import resource_yaml
from termwise.agent.base.errors import AgentError
from termwise.agent.base.record import Record
from termwise.agent.safety.lazy import LazyPattern, compile_all
from termwise.agent.safety.model import Family, Level

# Which data files make up each shell family, later files adding to earlier ones.
FAMILY_FILES: dict[str, tuple[str, ...]] = {
    "posix": ("common.yaml", "posix.yaml"),
    "powershell": ("common.yaml", "windows.yaml", "powershell.yaml"),
    "cmd": ("common.yaml", "windows.yaml", "cmd.yaml"),
}
LEVELS = ("safe", "confirm", "dangerous")
STYLES = ("posix", "long1", "windows", "powershell")


class SafetyRulesError(AgentError):
    """A safety rules file is malformed (a packaging bug, so the message names the file)."""


class CommandSpec(Record):
    """What is known about one command: whether it is read-only, and how its flags read."""

    __slots__ = (
        "changing_verbs",
        "flags",
        "help_words",
        "level",
        "max_positionals",
        "message",
        "name",
        "params",
        "readonly_verbs",
        "safe",
        "safe_args",
        "safe_with",
        "safe_without_subcommand",
        "style",
        "subcommands",
        "unsafe_flags",
        "value_options",
    )

    def __init__(
        self,
        name: str,
        *,
        safe: bool = False,
        level: Level | None = None,  # a fixed level for known commands that change things
        message: str = "",
        style: str = "posix",
        flags: dict[str, str] | None = None,  # token → canonical name
        params: tuple[str, ...] = (),  # PowerShell parameter names, lower case, for prefixes
        unsafe_flags: frozenset[str] = frozenset(),
        max_positionals: int | None = None,
        safe_args: frozenset[str] | None = None,  # safe only when every argument is one of these
        help_words: frozenset[str] = frozenset(),  # more words that only print help (LVM's -h)
        # switches that make a changing command only show or list (robocopy /L, brew cleanup -n)
        safe_with: frozenset[str] = frozenset(),
        value_options: frozenset[str] = frozenset(),
        subcommands: dict[str, CommandSpec] | None = None,
        safe_without_subcommand: bool = False,
        # Cloud CLIs with deep command groups (gcloud compute instances list): safe when one
        # of the first plain words is a read-only verb and none is a changing one.
        readonly_verbs: LazyPattern | None = None,
        changing_verbs: LazyPattern | None = None,
    ) -> None:
        self.name = name
        self.safe = safe
        self.level = level
        self.message = message
        self.style = style
        self.flags = {} if flags is None else flags
        self.params = params
        self.unsafe_flags = unsafe_flags
        self.max_positionals = max_positionals
        self.safe_args = safe_args
        self.help_words = help_words
        self.safe_with = safe_with
        self.value_options = value_options
        self.subcommands: dict[str, CommandSpec] = {} if subcommands is None else subcommands
        self.safe_without_subcommand = safe_without_subcommand
        self.readonly_verbs = readonly_verbs
        self.changing_verbs = changing_verbs


class Rule(NamedTuple):
    """A pattern over one command invocation that yields a verdict level."""

    id: str
    level: Level
    message: str
    commands: tuple[str, ...]
    subcommands: tuple[str, ...] = ()
    flags_all: frozenset[str] = frozenset()
    flags_any: frozenset[str] = frozenset()
    global_flags_any: frozenset[str] = frozenset()  # only options before the subcommand
    flags_none: frozenset[str] = frozenset()
    args_any: LazyPattern | None = None
    argv_regex: LazyPattern | None = None
    min_positionals: int = 0  # fires only with at least this many plain arguments
    unless_all_args: LazyPattern | None = None  # silent when every argument matches (temp)
    all_args: LazyPattern | None = None  # fires only when every plain argument matches
    last_arg_any: LazyPattern | None = None  # the last plain argument (a destination)
    # a whole word among the first VERB_WORDS plain arguments: `gh repo delete`, not a
    # "delete" inside a quoted title or query
    verbs_any: LazyPattern | None = None


VERB_WORDS = 4


class PipelineRule(NamedTuple):
    """Data flowing from one kind of command into another (download → interpreter)."""

    id: str
    level: Level
    message: str
    sources: frozenset[str]
    sinks: frozenset[str]


class TextRule(NamedTuple):
    """A regular expression over the raw command text, for shapes the parsers flatten."""

    id: str
    level: Level
    message: str
    regex: LazyPattern
    requires_any: tuple[str, ...] = ()  # cheap lower-case substrings; without one, skip the regex


class RedirectRule(NamedTuple):
    """Output sent to a target matching `targets` with one of `ops`."""

    id: str
    level: Level
    message: str
    ops: frozenset[str]
    targets: LazyPattern


class EnvRule(NamedTuple):
    """A variable assignment whose name changes what a later program does."""

    id: str
    level: Level
    message: str
    names: LazyPattern


class Wrapper(NamedTuple):
    """A command that runs another one (`sudo`, `env`, `xargs` …) and how to skip its options."""

    name: str
    level: Level = "safe"
    message: str = ""
    value_options: frozenset[str] = frozenset()
    info_flags: frozenset[str] = frozenset()  # with one of these it runs nothing (`command -v`)
    command_options: frozenset[str] = frozenset()  # their value is a command line (`su -c`)
    joins: bool = False  # the remaining words are joined into one command line (`watch`, `ssh`)
    skip_assignments: bool = False
    skip_positionals: int = 0


class RuleSet(Record):
    """Everything the engine needs for one shell family."""

    __slots__ = (
        "case_insensitive",
        "command_globs",
        "commands",
        "computed_candidates",
        "env",
        "family",
        "glob_rules",
        "harmless_targets",
        "pipelines",
        "redirects",
        "rules",
        "rules_by_name",
        "texts",
        "trusted_dirs",
        "wrappers",
    )

    def __init__(self, family: Family, case_insensitive: bool) -> None:
        self.family = family
        self.case_insensitive = case_insensitive
        # name → the spec's builder, which builds it on first call and keeps it (a command
        # consults a few of ~600); a command's aliases share one, so they get the same spec
        self.commands: dict[str, Callable[[], CommandSpec]] = {}
        self.command_globs: list[tuple[str, CommandSpec]] = []
        self.rules: list[Rule] = []
        self.rules_by_name: dict[str, list[Rule]] = {}
        self.glob_rules: list[Rule] = []
        self.pipelines: list[PipelineRule] = []
        self.texts: list[TextRule] = []
        self.redirects: list[RedirectRule] = []
        self.env: list[EnvRule] = []
        self.wrappers: dict[str, Wrapper] = {}
        self.harmless_targets: LazyPattern | None = None
        self.trusted_dirs: LazyPattern | None = None  # where a program named by path is real
        # Programs a run-time command word (`$x -rf ~`) is tried as, to see if its arguments
        # destroy.
        self.computed_candidates: tuple[str, ...] = ()

    def build_all(self) -> list[CommandSpec]:
        """Every command spec, built now (a strict load checks them all)."""
        return [build() for build in self.commands.values()]

    def spec_for(self, name: str) -> CommandSpec | None:
        build = self.commands.get(name)
        if build is not None:
            return build()
        for pattern, candidate in self.command_globs:
            if _glob_match(pattern, name):
                return candidate
        return None

    def rules_for(self, name: str) -> list[Rule]:
        found = list(self.rules_by_name.get(name, ()))
        for rule in self.glob_rules:
            if any(_glob_match(p, name) for p in rule.commands):
                found.append(rule)
        return found


def _glob_match(pattern: str, name: str) -> bool:
    return fnmatchcase(name, pattern)


@cache
def load_rules(family: Family) -> RuleSet:
    """The compiled rules of a family (cached: files are read once per process)."""
    names = FAMILY_FILES[family]

    def check(docs: list[Any]) -> None:
        compile_rules(family, list(zip(names, docs, strict=True)), strict=True)

    docs = resource_yaml(f"safety-{family}", [f"safety/{n}" for n in names], check=check)
    return compile_rules(family, list(zip(names, docs, strict=True)), strict=False)


def compile_rules(family: Family, docs: list[tuple[str, Any]], *, strict: bool = True) -> RuleSet:
    """Compile parsed YAML documents (later ones extend or override earlier ones).

    `strict` compiles every pattern now, so a bad one raises here naming its file;
    otherwise (documents that passed once before) each compiles on first use.
    """
    fold = family != "posix"
    ruleset = RuleSet(family=family, case_insensitive=fold)
    sets: dict[str, list[str]] = {}
    parts: dict[str, str] = {}  # regex_parts: named pieces that regexes name as {{name}}
    for filename, data in docs:
        data = {} if data is None else data
        if not isinstance(data, dict):
            raise SafetyRulesError(f"safety rules {filename}: expected a mapping at the top")
        try:
            for key, values in (data.get("path_sets") or {}).items():
                sets.setdefault(key, []).extend(str(v) for v in values)
            parts.update({str(k): str(v) for k, v in (data.get("regex_parts") or {}).items()})
            default_style = data.get("default_style")
            for name, raw in (data.get("commands") or {}).items():
                build = cache(partial(_command, str(name), raw or {}, fold, default_style))
                aliases = (raw or {}).get("aliases", ())
                for alias in [_fold(str(name), fold), *(_fold(a, fold) for a in aliases)]:
                    if "*" in alias:  # "?" and "%" are real PowerShell aliases, not globs
                        ruleset.command_globs.append((alias, build()))
                    else:
                        ruleset.commands[alias] = build  # a later file overrides
            for name, raw in (data.get("wrappers") or {}).items():
                wrapper = _wrapper(str(name), raw or {}, fold)
                ruleset.wrappers[wrapper.name] = wrapper
            for raw in data.get("rules") or ():
                ruleset.rules.append(_rule(raw, sets, fold, parts))
            for raw in data.get("pipeline_rules") or ():
                ruleset.pipelines.append(
                    PipelineRule(
                        id=raw["id"],
                        level=_level(raw["level"]),
                        message=raw["message"],
                        sources=frozenset(_fold(s, fold) for s in raw["from"]),
                        sinks=frozenset(_fold(s, fold) for s in raw["into"]),
                    )
                )
            for raw in data.get("text_rules") or ():
                ruleset.texts.append(
                    TextRule(
                        raw["id"],
                        _level(raw["level"]),
                        raw["message"],
                        LazyPattern(_with_parts(raw["regex"], parts)),
                        tuple(str(w).lower() for w in raw.get("requires_any", ())),
                    )
                )
            for raw in data.get("redirect_rules") or ():
                ruleset.redirects.append(
                    RedirectRule(
                        id=raw["id"],
                        level=_level(raw["level"]),
                        message=raw["message"],
                        ops=frozenset(raw.get("ops", (">", ">|", "&>", ">>", "&>>"))),
                        targets=_globs(raw["targets"], sets, fold),
                    )
                )
            for raw in data.get("env_rules") or ():
                ruleset.env.append(
                    EnvRule(
                        raw["id"],
                        _level(raw["level"]),
                        raw["message"],
                        _globs(raw["names"], {}, False),
                    )
                )
            if data.get("harmless_targets"):
                ruleset.harmless_targets = _globs(data["harmless_targets"], sets, fold)
            if data.get("computed_candidates"):
                ruleset.computed_candidates += tuple(
                    _fold(str(c), fold) for c in data["computed_candidates"]
                )
            if data.get("trusted_dirs"):
                ruleset.trusted_dirs = _globs(data["trusted_dirs"], sets, fold)
            if strict:  # what this file added; earlier files' patterns are compiled already
                compile_all((ruleset, ruleset.build_all()))
        except (KeyError, TypeError, ValueError, re.error) as exc:
            raise SafetyRulesError(f"safety rules {filename}: {type(exc).__name__}: {exc}") from exc
    for rule in ruleset.rules:
        if any(ch in p for p in rule.commands for ch in "*?["):
            ruleset.glob_rules.append(rule)
        else:
            for name in rule.commands:
                ruleset.rules_by_name.setdefault(name, []).append(rule)
    return ruleset


def _fold(text: str, fold: bool) -> str:
    return text.lower() if fold else text


def _level(value: Any) -> Level:
    if value not in LEVELS:
        raise ValueError(f"unknown level {value!r}")
    return value  # type: ignore[no-any-return]


_COMMAND_KEYS = frozenset(
    {
        "safe",
        "level",
        "message",
        "style",
        "flags",
        "params",
        "unsafe_flags",
        "max_positionals",
        "safe_args",
        "help_words",
        "safe_with",
        "value_options",
        "subcommands",
        "safe_without_subcommand",
        "aliases",
        "readonly_verbs",
        "changing_verbs",
    }
)
_RULE_KEYS = frozenset(
    {
        "id",
        "level",
        "message",
        "commands",
        "subcommands",
        "flags_all",
        "flags_any",
        "global_flags_any",
        "flags_none",
        "args_any",
        "argv_regex",
        "min_positionals",
        "unless_all_args",
        "all_args",
        "last_arg_any",
        "verbs_any",
    }
)


def _check_keys(what: str, raw: dict[str, Any], allowed: frozenset[str]) -> None:
    """Unknown keys are typos (or an unquoted comma in a flow mapping): refuse them."""
    unknown = set(raw) - allowed
    if unknown:
        raise ValueError(f"{what}: unknown keys {sorted(map(str, unknown))}")


def _command(name: str, raw: dict[str, Any], fold: bool, default: str | None = None) -> CommandSpec:
    _check_keys(f"command {name}", raw, _COMMAND_KEYS)
    guess = "powershell" if fold and "-" in name else ("windows" if fold else "posix")
    style = raw.get("style", default or guess)
    if style not in STYLES:
        raise ValueError(f"{name}: unknown flag style {style!r}")
    case = style in ("windows", "powershell")  # POSIX-style tools keep case-sensitive flags
    flags = {_fold(str(k), case): str(v) for k, v in (raw.get("flags") or {}).items()}
    spec = CommandSpec(
        name=_fold(name, fold),
        safe=bool(raw.get("safe", False)),
        level=_level(raw["level"]) if "level" in raw else None,
        message=str(raw.get("message", "")),
        style=style,
        flags=flags,
        params=tuple(str(p).lower() for p in raw.get("params", ())),
        unsafe_flags=frozenset(str(f) for f in raw.get("unsafe_flags", ())),
        max_positionals=raw.get("max_positionals"),
        safe_args=frozenset(str(a) for a in raw["safe_args"]) if "safe_args" in raw else None,
        help_words=frozenset(str(a) for a in raw.get("help_words", ())),
        safe_with=frozenset(_fold(str(f), case) for f in raw.get("safe_with", ())),
        value_options=frozenset(_fold(str(v), case) for v in raw.get("value_options", ())),
        safe_without_subcommand=bool(raw.get("safe_without_subcommand", False)),
        readonly_verbs=_globs(raw["readonly_verbs"], {}, False)
        if "readonly_verbs" in raw
        else None,
        changing_verbs=_globs(raw["changing_verbs"], {}, False)
        if "changing_verbs" in raw
        else None,
    )
    for sub, sub_raw in (raw.get("subcommands") or {}).items():
        sub_raw = dict(sub_raw or {})
        sub_raw.setdefault("style", style)
        child = _command(str(sub), sub_raw, fold, style)
        for alias in [child.name, *(_fold(a, fold) for a in sub_raw.get("aliases", ()))]:
            spec.subcommands[alias] = child
    return spec


_WRAPPER_KEYS = frozenset(
    {
        "level",
        "message",
        "value_options",
        "info_flags",
        "command_options",
        "skip_assignments",
        "skip_positionals",
        "joins",
    }
)


def _wrapper(name: str, raw: dict[str, Any], fold: bool) -> Wrapper:
    _check_keys(f"wrapper {name}", raw, _WRAPPER_KEYS)
    return Wrapper(
        name=_fold(name, fold),
        level=_level(raw.get("level", "safe")),
        message=str(raw.get("message", "")),
        value_options=frozenset(str(v) for v in raw.get("value_options", ())),
        info_flags=frozenset(str(v) for v in raw.get("info_flags", ())),
        command_options=frozenset(str(v) for v in raw.get("command_options", ())),
        joins=bool(raw.get("joins", False)),
        skip_assignments=bool(raw.get("skip_assignments", False)),
        skip_positionals=int(raw.get("skip_positionals", 0)),
    )


def _with_parts(pattern: str, parts: dict[str, str]) -> str:
    """`{{name}}` replaced by the regex part of that name (an unknown name is a KeyError)."""
    return _PART.sub(lambda m: parts[m[1]], pattern)


_PART = re.compile(r"\{\{(\w+)\}\}")


def _rule(
    raw: dict[str, Any], sets: dict[str, list[str]], fold: bool, parts: dict[str, str]
) -> Rule:
    _check_keys(f"rule {raw.get('id')}", raw, _RULE_KEYS)
    commands = raw["commands"]
    if isinstance(commands, str):
        commands = [commands]
    subs = raw.get("subcommands", ())
    if isinstance(subs, str):
        subs = [subs]
    return Rule(
        id=raw["id"],
        level=_level(raw["level"]),
        message=raw["message"],
        commands=tuple(_fold(c, fold) for c in commands),
        subcommands=tuple(_fold(s, fold) for s in subs),
        flags_all=frozenset(raw.get("flags_all", ())),
        flags_any=frozenset(raw.get("flags_any", ())),
        global_flags_any=frozenset(raw.get("global_flags_any", ())),
        flags_none=frozenset(raw.get("flags_none", ())),
        args_any=_globs(raw["args_any"], sets, fold) if "args_any" in raw else None,
        argv_regex=(
            LazyPattern(_with_parts(raw["argv_regex"], parts)) if "argv_regex" in raw else None
        ),
        min_positionals=int(raw.get("min_positionals", 0)),
        unless_all_args=(
            _globs(raw["unless_all_args"], sets, fold) if "unless_all_args" in raw else None
        ),
        last_arg_any=_globs(raw["last_arg_any"], sets, fold) if "last_arg_any" in raw else None,
        all_args=_globs(raw["all_args"], sets, fold) if "all_args" in raw else None,
        verbs_any=LazyPattern(raw["verbs_any"], re.IGNORECASE) if "verbs_any" in raw else None,
    )


def _globs(patterns: Any, sets: dict[str, list[str]], fold: bool) -> LazyPattern:
    """Fnmatch patterns (and `@set` references) as one anchored expression, compiled later."""
    if isinstance(patterns, str):
        patterns = [patterns]
    expanded: list[str] = []
    for pattern in patterns:
        if pattern.startswith("@"):
            if pattern[1:] not in sets:
                raise ValueError(f"unknown path set {pattern}")
            expanded.extend(sets[pattern[1:]])
        else:
            expanded.append(pattern)
    return LazyPattern.globs(tuple(_fold(p, fold) for p in expanded))
