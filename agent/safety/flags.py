"""Reads an argument list against a command spec: canonical flags, subcommand, plain arguments."""

from __future__ import annotations

from termwise.agent.base.record import Record
from termwise.agent.safety.rules import CommandSpec

# Parameters every PowerShell cmdlet has, so a short prefix can be ambiguous with them.
COMMON_PARAMS = (
    "verbose",
    "debug",
    "erroraction",
    "warningaction",
    "informationaction",
    "progressaction",
    "errorvariable",
    "warningvariable",
    "informationvariable",
    "outvariable",
    "outbuffer",
    "pipelinevariable",
    "whatif",
    "confirm",
)
_FALSE_VALUES = ("$false", "0", "false")
_OFF_VALUES = ("0", "false", "no", "off", "none")


class Invocation(Record):
    """One command's arguments as the rules see them."""

    __slots__ = (
        "args",
        "flags",
        "global_flags",
        "name",
        "nested",
        "positionals",
        "raw_flags",
        "sub_args",
        "sub_spec",
        "subcommand",
        "values",
    )

    def __init__(self, name: str, args: list[str]) -> None:
        self.name = name
        self.args = args
        self.flags: set[str] = set()
        self.values: list[str] = []  # positionals and option values
        self.positionals: list[str] = []
        self.subcommand: str | None = None
        self.sub_spec: CommandSpec | None = None
        self.nested: str | None = None  # a second-level subcommand (git stash *list*)
        self.sub_args: list[str] = []  # the words after the subcommand
        self.raw_flags: dict[str, str] = {}  # canonical name → as typed
        self.global_flags: set[str] = set()  # those before the subcommand

    def add_flag(self, canonical: str, raw: str) -> None:
        self.flags.add(canonical)
        self.raw_flags.setdefault(canonical, raw)


def read_invocation(name: str, spec: CommandSpec | None, args: list[str]) -> Invocation:
    """Canonicalise flags per the spec's style; find the subcommand if the spec has any."""
    inv = Invocation(name=name, args=args)
    if spec is None:
        inv.values = [a for a in args if not a.startswith("-")]
        inv.positionals = list(inv.values)
        # --dry-run=true is --dry-run; --dry-run=false is none at all
        inv.flags = {
            a.partition("=")[0]
            for a in args
            if a.startswith("-") and a.partition("=")[2].lower() not in _OFF_VALUES
        }
        return inv
    rest = _read(spec, args, inv, stop_at_positional=bool(spec.subcommands))
    inv.global_flags = set(inv.flags)
    if spec.subcommands and rest:
        inv.subcommand = rest[0]
        inv.sub_args = rest[1:]
        inv.sub_spec = spec.subcommands.get(rest[0].lower() if spec.style != "posix" else rest[0])
        tail = rest[1:]
        sub = inv.sub_spec
        if sub is not None and sub.subcommands:  # a second level: git stash list
            tail = _read(sub, tail, inv, stop_at_positional=True)
            nested = sub.subcommands.get(tail[0]) if tail else None
            if nested is not None:
                inv.sub_spec, inv.nested, tail = nested, tail[0], tail[1:]
        _read(inv.sub_spec or spec, tail, inv, stop_at_positional=False)
    return inv


def _read(
    spec: CommandSpec, args: list[str], inv: Invocation, stop_at_positional: bool
) -> list[str]:
    """Consume `args`; return what is left when stopping at the first positional."""
    style = spec.style
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--" and style == "posix":
            inv.values.extend(args[i + 1 :])
            inv.positionals.extend(args[i + 1 :])
            return []
        consumed_next = False
        if style == "powershell" and _is_ps_param(token):
            consumed_next = _ps_param(spec, token, inv)
        elif style == "windows" and len(token) > 1 and token[0] in "/-":
            for part in _windows_switches(token):
                inv.add_flag(spec.flags.get(part, part), token)
        elif style in ("posix", "long1") and token.startswith("-") and len(token) > 1:
            consumed_next = _posix_flag(
                spec, token, inv, args[i + 1] if i + 1 < len(args) else None
            )
        else:
            if stop_at_positional:
                return args[i:]
            inv.values.append(token)
            inv.positionals.append(token)
        if consumed_next and i + 1 < len(args):
            inv.values.append(args[i + 1])
            i += 1
        i += 1
    return []


def _posix_flag(spec: CommandSpec, token: str, inv: Invocation, following: str | None) -> bool:
    """Record a POSIX-style flag; True when it takes the next word as its value."""
    if token.startswith("--") or spec.style == "long1":
        name, eq, value = token.partition("=")
        full = _long_names(spec, name)
        switched_off = (
            eq
            and value.lower() in _OFF_VALUES
            and ("dry" in name or not any(option in spec.value_options for option in full))
        )
        for option in full if not switched_off else ():  # --dry-run=false is no dry run
            inv.add_flag(spec.flags.get(option, option), name)
        if eq:
            inv.values.append(value)
            return False
        return any(option in spec.value_options for option in full)
    if token in spec.flags:  # a spec may name a whole cluster, e.g. find's -ok
        inv.add_flag(spec.flags[token], token)
    if token[1:].isdigit():
        inv.add_flag(token, token)
        return False
    for j, letter in enumerate(token[1:], start=1):
        short = "-" + letter
        inv.add_flag(spec.flags.get(short, short), short)
        if short in spec.value_options:
            if j + 1 < len(token):
                inv.values.append(token[j + 1 :])
                return False
            return following is not None
    return False


def _long_names(spec: CommandSpec, name: str) -> list[str]:
    """getopt takes any unambiguous start of a long option (`--out` is `--output`); count all."""
    if name in spec.flags or name in spec.value_options or spec.style != "posix" or len(name) < 4:
        return [name]
    known = {*spec.flags, *spec.value_options}
    return sorted(o for o in known if o.startswith(name) and o.startswith("--")) or [name]


def _is_ps_param(token: str) -> bool:
    return len(token) > 1 and token[0] in "-\u2013\u2014\u2015" and token[1].isalpha()


def _ps_param(spec: CommandSpec, token: str, inv: Invocation) -> bool:
    """Resolve a (possibly abbreviated) PowerShell parameter; `-Recurse:$false` turns it off."""
    name, colon, value = token[1:].partition(":")
    name = name.lower()
    if colon and value.strip().lower() in _FALSE_VALUES:
        return False
    known = spec.params or tuple(k.lstrip("-") for k in spec.flags)
    if name in known or name in COMMON_PARAMS:
        matches = [name]
    else:
        matches = [p for p in (*known, *COMMON_PARAMS) if p.startswith(name)] or [name]
    # An ambiguous prefix is an error in PowerShell; count every candidate to stay on the safe side.
    for match in matches:
        inv.add_flag(spec.flags.get(match, spec.flags.get("-" + match, match)), token)
    if colon:  # -Path:C:\x names its argument as -Path C:\x does (that one reads as positional)
        inv.values.append(value)
        inv.positionals.append(value)
    return False


def _windows_switches(token: str) -> list[str]:
    """`/S/Q` → [/s, /q]; `/v:on` → [/v]; `-y` → [/y]; `/w:C:\\x` → [/w]."""
    head, _, _ = token.partition(":")
    parts = [p for p in head.replace("-", "/", 1).split("/") if p]
    return ["/" + p.split(":", 1)[0].lower() for p in parts]


def taken_as_value(args: list[str], typed: str, takes_value: frozenset[str]) -> bool:
    """`kubectl delete ns x --cache-dir --dry-run`: every `typed` switch follows an option
    that takes a value, and so is that value, not a switch."""
    seen = False
    for i, word in enumerate(args):
        if word != typed and not word.startswith(typed + "="):
            continue
        seen = True
        if (args[i - 1] if i else "") not in takes_value:
            return False  # this one stands on its own
    return seen
