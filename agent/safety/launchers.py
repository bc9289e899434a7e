"""Command lines that other commands keep and run later or elsewhere: `trap 'CMD' EXIT`,
`alias ls='CMD'`, `script -c CMD`; Windows' `doskey`, `schtasks /tr`, `wmic … create`,
`forfiles /c`.
"""

from __future__ import annotations

import re

POSIX = frozenset({"trap", "alias", "script"})


def posix_lines(name: str, args: list[str]) -> list[str]:
    """The command line `trap 'CMD' EXIT`, `alias ls='CMD'` or `script -c 'CMD'` runs
    (now or later), to be judged as lines of their own."""
    lines: list[str] = []
    if name == "trap" and args and args[0] not in ("-", "") and not args[0].startswith("-"):
        lines.append(args[0])
    elif name == "alias":
        lines += [a.split("=", 1)[1] for a in args if "=" in a and not a.startswith("-")]
    elif name == "script":
        for i, arg in enumerate(args):
            if arg.startswith("--command="):
                lines.append(arg.split("=", 1)[1])
            elif arg == "--command" or (arg[:1] == "-" and arg[1:2] != "-" and arg.endswith("c")):
                lines += args[i + 1 : i + 2]  # -c CMD, -qc CMD
            elif arg[:2] == "-c" and len(arg) > 2:
                lines.append(arg[2:])
    return lines


WINDOWS = frozenset({"doskey", "schtasks", "wmic", "forfiles"})


def windows_lines(name: str, args: list[str]) -> list[str]:
    """The cmd line a Windows launcher runs: `doskey ls=CMD`, `schtasks /create … /tr CMD`,
    `wmic process call create CMD`, `forfiles /p DIR /c CMD` (@path: each file under DIR)."""
    lowered = [a.lower() for a in args]
    if name == "doskey":
        at = next((i for i, a in enumerate(args) if "=" in a and not a.startswith("/")), None)
        if at is None:
            return []
        return [" ".join([args[at].split("=", 1)[1], *args[at + 1 :]]).strip()]
    if name == "schtasks" and "/tr" in lowered[:-1]:
        return [args[lowered.index("/tr") + 1]]
    if name == "wmic" and "create" in lowered[:-1] and "call" in lowered:
        return [args[lowered.index("create") + 1]]
    if name == "forfiles" and "/c" in lowered[:-1]:
        folder = args[lowered.index("/p") + 1] if "/p" in lowered[:-1] else "."
        each = folder.rstrip("\\") + "\\*"
        line = args[lowered.index("/c") + 1]
        for var in ("@path", "@file", "@fname", "@relpath"):
            line = re.sub(re.escape(var), lambda _: f'"{each}"', line, flags=re.IGNORECASE)
        return [line]
    return []
