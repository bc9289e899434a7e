"""Commands that only print help or show what they would do: `rm --help`, a cmdlet with
-WhatIf, and switches such as `robocopy /L` or `kubectl --dry-run` (command specs' safe_with)."""

from __future__ import annotations

import re

from termwise.agent.safety.flags import Invocation, taken_as_value
from termwise.agent.safety.rules import CommandSpec

_HELP_WORDS = frozenset({"--help", "--version", "-help", "-version", "-?", "/?"})
_RUNS_SOMETHING = frozenset({"run", "exec", "x", "start", "create", "debug", "attach", "dlx"})


def only_help(args: list[str], has_verbs: bool, extra: frozenset[str] = frozenset()) -> bool:
    """`rm --help`, `terraform destroy --help`: the program prints text and does nothing else.

    Only as the first argument, or after a few verbs of a command that has verbs (not `run`
    or `exec`, whose later words belong to another program: `docker run img --help`).
    """
    words = _HELP_WORDS | extra if extra else _HELP_WORDS
    if not args or args[0] in words:
        return bool(args) and len(args) == 1
    if not has_verbs or args[-1] not in words or len(args) > 4:
        return False
    rest = args[:-1]
    if any(a in _RUNS_SOMETHING for a in rest):
        return False
    return all(a[:1].isalpha() and a.replace("-", "").replace("_", "").isalnum() for a in rest)


# Patterns compiled on first use (re caches them): only PowerShell lines need them.
_WHATIF = r"[-\u2013\u2014]wh(a(t(i(f)?)?)?)?(:\$true)?"
_CMDLET = (
    r"(add|approve|backup|block|clear|close|compress|confirm|connect|convert|copy|deny|disable|"
    r"disconnect|dismount|edit|enable|expand|export|format|grant|import|initialize|install|"
    r"invoke|join|limit|lock|merge|mount|move|new|optimize|protect|publish|push|register|"
    r"remove|rename|repair|reset|resize|restart|restore|resume|revoke|save|send|set|split|start|"
    r"stop|suspend|sync|unblock|uninstall|unlock|unprotect|unpublish|unregister|update|write)"
    r"-[a-z][a-z0-9]*"
)


def cmdlet_preview(name: str, args: list[str]) -> bool:
    """A cmdlet run with -WhatIf only reports what it would do (a native program would
    take -WhatIf as a plain argument and run, so the name must be a cmdlet's Verb-Noun)."""
    if not any(re.fullmatch(_WHATIF, a, re.IGNORECASE) for a in args):  # cheap test first
        return False
    return bool(re.fullmatch(_CMDLET, name, re.IGNORECASE))


def preview_switch(spec: CommandSpec, inv: Invocation, name: str) -> str | None:
    """Why a switch turns the command into a listing or a preview (`robocopy /L`,
    `kubectl delete --dry-run=client`), or None. A command's switch holds for all its
    subcommands; a subcommand's for itself. A switch that is another option's value is
    dropped from `inv.flags`: there is no preview at all."""
    for owner in (spec, inv.sub_spec):
        if owner is None:
            continue
        shown = owner.safe_with & inv.flags
        if shown and not (spec.unsafe_flags | owner.unsafe_flags) & inv.flags:
            typed = inv.raw_flags.get(min(shown), min(shown))
            if taken_as_value(inv.args, typed, spec.value_options | owner.value_options):
                inv.flags -= shown
                continue
            label = name if owner is spec else f"{name} {inv.subcommand}"
            return f"{label} with {typed} only lists or previews"
    return None
