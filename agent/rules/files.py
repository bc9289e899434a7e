"""Files and folders: cd to the nearest folder, mkdir -p, copying into missing folders, rm -r."""

from __future__ import annotations

import os
import re
from pathlib import Path

from termwise.agent.rules import env, fuzzy
from termwise.agent.rules.engine import Case, rule

_CD_FAIL = (
    r"cd: no such file or directory: ([^\n]{1,400})$",
    r"cd: ([^\n]{1,400}?): No such file or directory",
    r"cd: The directory ['\"]([^\n]{1,400}?)['\"] does not exist",
    r"cd: can't cd to ([^\n]{1,400})$",
    r"Cannot find path '([^\n]{1,400}?)' because it does not exist",
)


_PS_CD = ("cd", "chdir", "set-location", "sl", "pushd", "push-location")


def _cd_target(c: Case) -> str | None:
    for p in _CD_FAIL:
        m = c.search(p)
        if m:
            if p.startswith("Cannot find path") and c.app.lower() not in _PS_CD:
                continue  # any cmdlet says this (`dir /s`): only a cd is a missing folder
            return m.group(1).strip().strip("'\"")
    if c.cmd and c.is_app("cd", "chdir") and "cannot find the path specified" in c.lower:
        return " ".join(c.args).strip('"') or None
    return None


def nearest_path(typed: str, cwd: str | None) -> str | None:
    """`typed` with each component replaced by the nearest existing name (None if no match)."""
    sep = "\\" if "\\" in typed and "/" not in typed else "/"
    parts = [p for p in re.split(r"[\\/]", typed)]
    absolute = typed.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", typed) is not None
    base = env.base_dir(cwd)
    if not absolute and base is None:
        return None  # a relative path with no known cwd: nothing to compare against
    here = Path(parts[0] + sep) if absolute and parts[0] else Path("/") if absolute else base
    assert here is not None
    fixed: list[str] = [parts[0]] if absolute else []
    for part in parts[1:] if absolute else parts:
        if part in ("", ".", "..", "~"):
            fixed.append(part)
            here = here / part if part else here
            continue
        if (here / part).is_dir():
            fixed.append(part)
            here = here / part
            continue
        names = env.listing(here, dirs_only=True)
        best = fuzzy.closest(part, names, n=1, ignore_case=True)
        if not best:
            low = part.lower()
            best = [n for n in names if n.lower().startswith(low) or low in n.lower()][:1]
        if not best:
            return None
        fixed.append(best[0])
        here = here / best[0]
    out = sep.join(fixed)
    return out if out != typed else None


def _mkdir_cd(c: Case, path: str) -> str:
    if c.powershell:
        return f"New-Item -ItemType Directory -Path {path}; Set-Location {path}"
    if c.cmd:
        return f"mkdir {path} && cd {path}"
    return c.then(f"mkdir -p {path}", f"cd {path}")


@rule("cd_nearest", "No such folder: the nearest existing one.", priority=6)
def cd_nearest(c: Case) -> list[tuple[str, str]]:
    target = _cd_target(c)
    if not target or not c.parts:
        return []
    typed = c.args[0] if c.args else target
    for a in c.args:
        if a.strip("'\"") and not a.startswith("-"):
            typed = a
            break
    out: list[tuple[str, str]] = []
    near = nearest_path(typed, c.cwd)
    if near:
        out.append((c.replace_word(typed, near), f"'{near}' exists."))
    out.append((_mkdir_cd(c, typed), "Create the folder and go into it."))
    return out


@rule("mkdir_parents", "Create the missing parent folders too.", priority=6)
def mkdir_parents(c: Case) -> list[str]:
    if not c.is_app("mkdir") or not c.posix:
        return []
    if not re.search(
        r"cannot create directory .*No such file or directory|mkdir: \S+: No such file or directory",
        c.output,
    ):
        return []
    return [re.sub(r"\bmkdir\b", "mkdir -p", c.script, count=1)]


def _dirname(path: str) -> str:
    """The folder part of a path written with / or \\ (whatever this machine uses)."""
    cut = max(path.rfind("/"), path.rfind("\\"))
    return path[:cut] if cut > 0 else ""


def _dest_dir(c: Case) -> str | None:
    words = [a for a in c.args if not a.startswith("-")]
    if len(words) < 2:
        return None
    dest = words[-1]
    if dest.endswith(("/", "\\")):
        return dest  # as typed: `mkdir -p bar/` is what the user would write
    return _dirname(dest) or None


@rule("copy_into_missing_dir", "The destination folder does not exist: create it first.", 6)
def copy_missing_dir(c: Case) -> list[str]:
    if not c.is_app("cp", "mv", "touch", "Copy-Item", "copy-item", "move-item", "copy", "move"):
        return []
    said = re.search(
        r"cannot (?:create regular file|move|touch|stat) .*(?:No such file or directory|Not a directory)"
        r"|Could not find a part of the path|directory .* does not exist|The system cannot find the path"
        r"|^(?:touch|cp|mv): \S+: No such file or directory",
        c.output,
        re.M,
    )
    # A bare "No such file or directory" counts when the destination is clearly a folder.
    words = [a for a in c.args if not a.startswith("-")]
    bare = "no such file or directory" in c.lower and len(words) >= 2 and words[-1][-1:] in "/\\"
    if not said and not bare:
        return []
    if c.is_app("touch"):
        words = [a for a in c.args if not a.startswith("-")]
        dest = _dirname(words[0]) if words else None
    else:
        dest = _dest_dir(c)
    if not dest:
        return []
    if c.powershell:
        return [f"New-Item -ItemType Directory -Force -Path {dest}; {c.script}"]
    if c.cmd:
        return [f"mkdir {dest} && {c.script}"]
    return [c.then(f"mkdir -p {dest}", c.script)]


@rule("cp_directory", "Copying a folder needs -r.", priority=6)
def cp_dir(c: Case) -> list[str]:
    if not c.is_app("cp", "scp") or not c.posix:
        return []
    if not re.search(
        r"-r not specified; omitting directory|omitting directory|is a directory \(not copied\)"
        r"|not a regular file|^cp: [^\n]*: is a directory",
        c.output,
    ) and not (c.is_app("cp") and not c.output.strip() and len(c.args) == 1):
        return []
    if len(c.args) == 1:  # `cp dir`: no destination yet, keep what `-a` preserves
        return [re.sub(r"\bcp\b", "cp -a", c.script, count=1)]
    out = [re.sub(r"\b(cp|scp)\b", r"\1 -r", c.script, count=1)]
    if c.is_app("cp"):
        out.append(re.sub(r"\bcp\b", "cp -a", c.script, count=1))
    return out


@rule("rm_directory", "Removing a folder needs -r.", priority=6)
def rm_dir(c: Case) -> list[str]:
    if not c.is_app("rm") or not c.posix or not re.search(r"[Ii]s a directory", c.output):
        return []
    return [
        re.sub(r"\brm\b", "rm -r", c.script, count=1),
        re.sub(r"\brm\b", "rm -rf", c.script, count=1),
    ]


@rule("rmdir_not_empty", "The folder is not empty: remove it with its contents.", priority=7)
def rmdir_not_empty(c: Case) -> list[str]:
    if not c.is_app("rmdir") or "directory not empty" not in c.lower:
        return []
    if c.posix:
        return [re.sub(r"\brmdir\b", "rm -r", c.script, count=1)]
    if c.powershell:
        return [f"Remove-Item -Recurse -Force {' '.join(c.args)}"]
    return [re.sub(r"\brmdir\b", "rmdir /s /q", c.script, count=1)]


@rule("cat_directory", "That is a folder: list it instead.", priority=6)
def cat_dir(c: Case) -> list[str]:
    if (
        not c.is_app("cat", "less", "more", "head", "tail", "vim", "nano")
        or "is a directory" not in c.lower
    ):
        return []
    return [re.sub(rf"^{re.escape(c.parts[0])}\b", "ls", c.script, count=1)]


@rule("grep_directory", "Searching a folder needs -r.", priority=6)
def grep_dir(c: Case) -> list[str]:
    if not c.is_app("grep", "egrep", "fgrep") or any(a in ("-r", "-R") for a in c.args):
        return []
    folder = bool(c.args) and (c.args[-1] in (".", "..") or c.args[-1].endswith("/"))
    if not (re.search(r"grep: .+: Is a directory", c.output) or (folder and not c.output.strip())):
        return []
    return [re.sub(r"\b(e|f)?grep\b", lambda m: m.group(0) + " -r", c.script, count=1)]


def _named_missing(c: Case, word: str) -> bool:
    """The error says exactly this word is missing (`ls: cannot access 'srcc': No such …`)."""
    pattern = rf"(?:^|[\s'‘`\"]){re.escape(word)}['’`\"]?: No such file or directory"
    return re.search(pattern, c.output, re.M) is not None


@rule("file_nearest", "No such file: the nearest existing name.", priority=12)
def file_nearest(c: Case) -> list[str]:
    if not re.search(
        r"No such file or directory|cannot find the (?:file|path)|does not exist"
        r"|did not match any files|file or directory not found|Cannot find module",
        c.output,
        re.I,
    ):
        return []
    out: list[str] = []
    for word in c.parts:
        w = word.strip("'\"")
        if not w or w.startswith("-") or (w == c.parts[0] and "/" not in w and "\\" not in w):
            continue
        if w not in c.output:
            continue
        if "/" not in w and "." not in w and "\\" not in w and not _named_missing(c, w):
            continue  # a bare word counts as a path only when the error names it so
        base = env.base_dir(c.cwd)
        if base is None and not os.path.isabs(w):
            continue
        p = Path(w) if os.path.isabs(w) or base is None else base / w
        if p.exists():
            continue
        bare = w.rstrip("/\\")  # `pytest test/`: the name is `test`, the slash stays
        head, tail = bare[: len(bare) - len(p.name)], w[len(bare) :]
        parent, folder = p.parent, head.rstrip("/\\")
        if folder and not parent.is_dir():  # `sr/app.py`: mend the folders first
            mended = nearest_path(folder, c.cwd)
            if mended is None:
                continue
            head = mended + head[len(folder) :]
            parent = Path(mended) if os.path.isabs(mended) or base is None else base / mended
        if (parent / p.name).exists():
            best = [p.name]  # only the folders were wrong
        else:
            best = fuzzy.closest(p.name, env.listing(parent), n=1, ignore_case=True)
        if best:
            out.append(c.replace_word(w, head + best[0] + tail))
        elif base is not None and (w.startswith(("./", ".\\")) or w == c.parts[0]):
            found = env.find_below(base, p.name)
            if found:
                sep = "\\" if c.windows else "/"
                out.append(c.replace_word(w, "." + sep + found.replace("/", sep)))
    return out[:2]


@rule("script_crlf", "The script has Windows line endings: convert them.", priority=5)
def crlf(c: Case) -> list[str]:
    if "^M" not in c.output and "$'\\r'" not in c.output:
        return []
    m = c.search(r"^(?:\S+: )?(\S+?): /\S+\^M: bad interpreter") or c.search(
        r"(\S+?): line \d+: \$'\\r': command not found"
    )
    if not m and c.search(r"env: [‘'`\"]?\w+\^M[’'`\"]?: No such file or directory"):
        script = c.parts[0] if c.parts else ""
        if c.parts and c.parts[0] in ("sudo", "bash", "sh") and len(c.parts) > 1:
            script = c.parts[1]
        return (
            [c.then(f"sed -i 's/\\r$//' {script}", c.script), f"dos2unix {script}"]
            if script
            else []
        )
    if not m:
        return []
    path = m.group(1).removeprefix("bash: ").removeprefix("zsh: ")
    return [c.then(f"sed -i 's/\\r$//' {path}", c.script), f"dos2unix {path}"]
