"""Translate Unix command lines typed in PowerShell or cmd into those shells' own commands."""

from __future__ import annotations

import re

from termwise.agent.rules import data
from termwise.agent.rules.shell import quote, split

_HANDLED = {"ls", "rm", "cp", "grep", "head", "tail", "wc", "export", "kill", "find", "mkdir"}


def known(app: str) -> bool:
    """True when `app` is a Unix command this module can translate."""
    return app in _HANDLED or app in data.windows_equivalents()


def _flags(args: list[str]) -> tuple[set[str], list[str]]:
    """Short flag letters (and long names) apart from the other words."""
    flags: set[str] = set()
    rest: list[str] = []
    for a in args:
        if a.startswith("--") and len(a) > 2:
            flags.add(a[2:])
        elif a.startswith("-") and len(a) > 1 and not a[1:].isdigit():
            flags.update(a[1:])
        else:
            rest.append(a)
    return flags, rest


def _win_path(p: str) -> str:
    return p.replace("/", "\\") if not p.startswith(("http:", "https:")) else p


def _words(words: list[str], shell: str) -> str:
    fam = "cmd" if shell == "cmd" else "powershell"
    out = [quote(_win_path(w) if fam == "cmd" else w, shell) for w in words]
    return " ".join(out)


def _count(flags: set[str], args: list[str], default: str = "10") -> tuple[str, list[str]]:
    """The line count of head/tail (`-n 5`, `-5`, `-n5`) and the remaining words."""
    rest: list[str] = []
    n = default
    it = iter(args)
    for a in it:
        if a == "-n":
            n = next(it, default)
        elif re.fullmatch(r"-n\d+", a):
            n = a[2:]
        elif re.fullmatch(r"-\d+", a):
            n = a[1:]
        elif a.startswith("-"):
            continue
        else:
            rest.append(a)
    return n, rest


def _one(parts: list[str], shell: str, piped: bool) -> str | None:
    """One simple command translated, or None when there is no good equivalent."""
    if not parts:
        return None
    app, args = parts[0], parts[1:]
    ps = shell != "cmd"
    flags, rest = _flags(args)
    w = _words(rest, shell)
    if app == "ls":
        if ps:
            opts = (" -Force" if "a" in flags or "A" in flags else "") + (
                " -Recurse" if "R" in flags else ""
            )
            return f"Get-ChildItem{opts} {w}".rstrip()
        opts = (" /a" if "a" in flags else "") + (" /s" if "R" in flags else "")
        return f"dir{opts} {w}".rstrip()
    if app == "rm":
        recursive = bool(flags & {"r", "R", "recursive"})
        if ps:
            opts = (" -Recurse" if recursive else "") + (
                " -Force" if flags & {"f", "force"} else ""
            )
            return f"Remove-Item{opts} {w}"
        return f"rmdir /s /q {w}" if recursive else f"del /f /q {w}" if "f" in flags else f"del {w}"
    if app == "cp":
        recursive = bool(flags & {"r", "R", "a", "recursive"})
        if ps:
            return f"Copy-Item{' -Recurse' if recursive else ''} {w}"
        return f"xcopy /E /I {w}" if recursive else f"copy {w}"
    if app == "mkdir":
        if ps:
            return f"New-Item -ItemType Directory -Force -Path {w}"
        return f"mkdir {w}"
    if app == "grep":
        if not rest:
            return None
        pattern, files = rest[0], rest[1:]
        if ps:
            if "r" in flags or "R" in flags:
                where = _words(files, shell) if files else "."
                return f"Get-ChildItem -Recurse -File {where} | Select-String -Pattern {quote(pattern, shell)}"
            path = f" -Path {_words(files, shell)}" if files and not piped else ""
            return f"Select-String -Pattern {quote(pattern, shell)}{path}"
        opts = "".join(f" /{x}" for x, y in (("i", "i"), ("n", "n"), ("s", "r")) if y in flags)
        target = _words(files, shell) if files else ("*" if "r" in flags and not piped else "")
        return f"findstr{opts} {quote(pattern, shell)} {target}".rstrip()
    if app in ("head", "tail"):
        n, files = _count(flags, args)
        follow = app == "tail" and "f" in flags
        if ps:
            if piped or not files:
                return f"Select-Object -{'First' if app == 'head' else 'Last'} {n}"
            opt = "-Wait" if follow else f"-TotalCount {n}" if app == "head" else f"-Tail {n}"
            return f"Get-Content {_words(files, shell)} {opt}"
        opt = "-Wait" if follow else f"-TotalCount {n}" if app == "head" else f"-Tail {n}"
        return f'powershell -Command "Get-Content {_words(files, "pwsh")} {opt}"'
    if app == "wc":
        if ps:
            return "Measure-Object -Line" if piped or not rest else f"(Get-Content {w}).Count"
        return f'find /c /v "" {w}'
    if app == "export":
        sets = [a.split("=", 1) for a in args if "=" in a]
        if not sets:
            return None
        values = [(k, _env_value(k, v.strip("\"'"), ps)) for k, v in sets]
        if ps:
            return "; ".join(f'$env:{k} = "{v}"' for k, v in values)
        # Quoted whole: cmd would keep the space before `&&` in the value.
        return " && ".join(f'set "{k}={v}"' for k, v in values)
    if app == "kill":
        rest = [r for r in rest if not r.startswith("-")]
        if not rest:
            return None
        if ps:
            return f"Stop-Process -Id {', '.join(rest)} -Force"
        return "taskkill " + " ".join(f"/PID {p}" for p in rest) + " /F"
    if app == "find":
        m = re.search(r"-i?name\s+['\"]?([^'\"\s]+)", " ".join(args))
        root = rest[0] if rest and not rest[0].startswith("-") else "."
        pat = m.group(1) if m else "*"
        if ps:
            return f"Get-ChildItem -Path {root} -Recurse -Filter {quote(pat, shell)}"
        return f"dir /s /b {_win_path(root)}\\{pat}"
    table = data.windows_equivalents().get(app)
    if not table or (app == "source" and "activate" in " ".join(args)):
        return None  # a venv's activate script has its own Windows rule
    template = table["cmd" if shell == "cmd" else "powershell"]
    a1 = rest[0] if rest else ""
    a2 = rest[1] if len(rest) > 1 else ""
    basename = re.split(r"[/\\?]", a1.rstrip("/"))[-1] if a1 else ""
    port = re.search(r":(\d+)", " ".join(args))
    verb_word = (rest[1] if app == "service" and len(rest) > 1 else a1).lower()
    verb = {"start": "Start", "stop": "Stop", "restart": "Restart", "status": "Get"}.get(
        verb_word, ""
    )
    if "{verb}" in template and not verb:
        return None
    if app == "service":
        a1 = rest[0] if rest else ""
    fields = {
        "port": port.group(1) if port else "",
        "verb": verb,
        "netverb": {"Start": "start", "Stop": "stop", "Restart": "stop", "Get": "start"}.get(
            verb, ""
        ),
        "args": _words(args, shell),
        "a1": _words([a1], shell) if a1 else "",
        "a2": _words([a2], shell) if a2 else "",
        "basename": basename,
    }
    if ("{a1}" in template and not a1) or ("{a2}" in template and not a2):
        return None
    if "{port}" in template and not fields["port"]:
        return None
    return " ".join(template.format(**fields).split())


def translate(script: str, shell: str) -> str | None:
    """A Unix pipeline rewritten for PowerShell (`powershell`/`pwsh`) or `cmd`."""
    segments = [s.strip() for s in re.split(r"\s\|\s", script)]
    out: list[str] = []
    changed = False
    for i, seg in enumerate(segments):
        parts = split(
            seg, "cmd" if shell == "cmd" else "powershell"
        )  # typed there: \ is a path separator
        first = parts[0] if parts else ""
        if first in _HANDLED or first in data.windows_equivalents():
            t = _one(parts, shell, piped=i > 0)
            if t is None:
                return None
            changed = changed or t != seg
            out.append(t)
        else:
            out.append(seg)
    return " | ".join(out) if changed else None


def _env_value(name: str, value: str, ps: bool) -> str:
    """A POSIX variable's value in Windows terms: `$X` read as PowerShell's `$env:X` or
    cmd's `%X%`, and a search path (`…PATH`) separated by `;`, keeping drive letters."""
    if name.upper().endswith("PATH"):
        entries: list[str] = []
        for piece in value.split(":"):
            if entries and re.fullmatch(r"[A-Za-z]", entries[-1]) and piece[:1] in ("\\", "/"):
                entries[-1] += ":" + piece  # `C:\tools`: a drive, not a separator
            else:
                entries.append(piece)
        value = ";".join(entries)

    def ref(m: re.Match[str]) -> str:
        var = m.group(1) or m.group(2)
        if var == "HOME":
            return "$HOME" if ps else "%USERPROFILE%"
        return f"$env:{var}" if ps else f"%{var}%"

    return re.sub(r"\$\{(\w+)\}|\$([A-Za-z_]\w*)", ref, value)
