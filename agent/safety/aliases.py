"""Names an inline script gave to the calls the rules know, read back to their own names.

`import os as o; o.system(…)` and `from shutil import rmtree as r; r(…)` are `os.system(…)`
and `shutil.rmtree(…)`; `const {execSync: run} = require("child_process"); run(…)` is
`execSync(…)`. Only uses followed by `.` or `(` are renamed, so the text stays code.
"""

from __future__ import annotations

import re

MAX_NAMES = 40  # a one-liner imports a handful; a hostile script cannot grow the pattern
_NAME = r"[A-Za-z_]\w{0,60}"
_DOTTED = rf"{_NAME}(?:\.{_NAME}){{0,4}}"
_PY_IMPORT = re.compile(
    rf"\bimport\s+({_DOTTED}(?:\s+as\s+{_NAME})?(?:\s*,\s*{_DOTTED}(?:\s+as\s+{_NAME})?){{0,30}})"
)
_PY_FROM = re.compile(
    rf"\bfrom\s+({_DOTTED})\s+import\s+\(?\s*({_NAME}(?:\s+as\s+{_NAME})?"
    rf"(?:\s*,\s*{_NAME}(?:\s+as\s+{_NAME})?){{0,30}})"
)
_JS_DESTRUCTURE = re.compile(
    r"\{([^{}]{1,400})\}\s*=\s*(?:await\s+)?(?:require|import)\s*\(\s*['\"`]"
    r"(?:node:)?(?:child_process|fs|fs/promises|fs-extra|rimraf)['\"`]\s*\)"
)
_JS_IMPORT = re.compile(
    r"\bimport\s*\{([^{}]{1,400})\}\s*from\s*['\"`](?:node:)?"
    r"(?:child_process|fs|fs/promises|fs-extra|rimraf)['\"`]"
)
_AS = re.compile(rf"^\s*({_DOTTED})\s+as\s+({_NAME})\s*$")
_COLON = re.compile(rf"^\s*({_NAME})\s*:\s*({_NAME})\s*$")


_PY_DUNDER = re.compile(
    r"""\b(?:__import__|importlib\.import_module)\s*\(\s*['"]([\w.]{1,60})['"]\s*\)"""
)
_RB_INCLUDE = re.compile(r"\binclude\s+FileUtils\b")
_RB_FILEUTILS = re.compile(
    r"(?<![\w.:$@])(rm_rf|rm_r|rm_f|rm|remove_dir|remove_entry|remove_entry_secure|rmtree|"
    r"mv|move|cp|cp_r|copy|copy_entry|rmdir)\b(?=\s*[(\s'\"])"
)


def python(code: str) -> str:
    """The script with its import aliases and from-imports spelled as module calls
    (and `__import__("os").system` as `os.system`)."""
    code = _PY_DUNDER.sub(lambda m: m.group(1), code)
    names = _listed(_PY_IMPORT, _AS, code)
    for match in _PY_FROM.finditer(code):
        module = match.group(1)
        for part in match.group(2).split(","):
            found = _AS.match(part)
            name, local = (
                (found.group(1), found.group(2)) if found else (part.strip(), part.strip())
            )
            names[local] = f"{module}.{name}"
    return _renamed(code, names)


def js(code: str) -> str:
    """The script with destructured or imported names of child_process and fs given back."""
    return _renamed(code, _listed(_JS_DESTRUCTURE, _COLON, code) | _listed(_JS_IMPORT, _AS, code))


def _listed(statement: re.Pattern[str], pair: re.Pattern[str], code: str) -> dict[str, str]:
    """Local name → real name for each `real as local` (or `real: local`) pair listed in
    the first group of every `statement` match."""
    names: dict[str, str] = {}
    for match in statement.finditer(code):
        for part in match.group(1).split(","):
            found = pair.match(part)
            if found:
                names[found.group(2)] = found.group(1)
    return names


def ruby(code: str) -> str:
    """After `include FileUtils`, `rm_rf x` is `FileUtils.rm_rf x`."""
    if not _RB_INCLUDE.search(code):
        return code
    return _RB_FILEUTILS.sub(lambda m: "FileUtils." + m.group(1), code)


def _renamed(code: str, names: dict[str, str]) -> str:
    names = {k: v for k, v in names.items() if k != v and k.isidentifier()}
    if not names:
        return code
    chosen = sorted(names, key=len, reverse=True)[:MAX_NAMES]
    uses = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, chosen)) + r")\b(?=\s*[.(])")
    return uses.sub(lambda m: names[m.group(1)], code)


READERS = {"python": python, "js": js, "ruby": ruby}
