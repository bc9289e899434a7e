"""Install-time failures of pip and npm: wheels, pins, registries, caches, old Node."""

from __future__ import annotations

import re

from termwise.agent.rules import env
from termwise.agent.rules.engine import Case, rule


@rule("pip_build_wheel_failed", "Building the package failed: upgrade the build tools first.", 9)
def wheel_failed(c: Case) -> list[str]:
    if not c.has(
        "could not build wheels for", "metadata-generation-failed", "failed building wheel for"
    ):
        return []
    pip = "py -m pip" if c.windows else "python3 -m pip"
    return [c.then(f"{pip} install --upgrade pip setuptools wheel", c.script)]


@rule("pip_unpin_version", "That exact version does not exist for this Python: drop the pin.", 9)
def unpin(c: Case) -> list[str]:
    m = c.search(r"No matching distribution found for ([\w.\-\[\]]+)(==|~=|<=|>=)([\w.*]+)")
    if not m:
        return []
    pinned = m.group(1) + m.group(2) + m.group(3)
    return [c.script.replace(pinned, m.group(1), 1)] if pinned in c.script else []


@rule("python_wrong_folder", "The script is in another folder: go there first.", priority=9)
def wrong_folder(c: Case) -> list[str]:
    m = c.search(r"can't open file '([^']+)': \[Errno 2\]")
    if not m:
        return []
    name = re.split(r"[\\\\/]", m.group(1))[-1]
    typed = next((a for a in c.args if a.endswith(name)), name)
    if "." not in name or typed != name:
        return []  # `python scr/app.py` named a folder: that is a typo, not the wrong folder
    base = env.base_dir(c.cwd)
    found = env.find_below(base, name) if base else None
    if not found or "/" not in found:
        return []
    folder = found.rsplit("/", 1)[0]
    return [c.then(f"cd {folder}", c.script)]


@rule("npm_not_in_registry", "No such package on npm: check its name.", priority=8)
def not_in_registry(c: Case) -> list[str]:
    if "registry" not in c.output:
        return []
    m = c.search(r"'?(@?[\w./-]+?)@[^' ]*'? is not in (?:the npm|this) registry") or c.search(
        r"404 Not Found - GET https://registry\.npmjs\.org/(@?[\w.%/-]+)"
    )
    if not m:
        return []
    name = m.group(1).replace("%2f", "/").replace("%2F", "/")
    return [f"npm search {name}"]


@rule("npm_no_matching_version", "No such version: list the versions that exist.", priority=8)
def etarget(c: Case) -> list[str]:
    m = c.search(r"No matching version found for (@?[\w./-]+)@")
    return [f"npm view {m.group(1)} versions"] if m else []


@rule("npm_corrupt_cache", "The npm cache or node_modules is damaged: clean and reinstall.", 8)
def corrupt(c: Case) -> list[str]:
    if not c.is_app("npm", "npx", "yarn", "pnpm"):
        return []
    if c.has("eintegrity", "integrity checksum failed"):
        return [c.then("npm cache clean --force", c.script)]
    if c.has("enotempty", "directory not empty, rename"):
        if c.powershell:
            return ["Remove-Item -Recurse -Force node_modules; npm install"]
        if c.cmd:
            return ["rmdir /s /q node_modules && npm install"]
        return ["rm -rf node_modules && npm install"]
    return []


@rule("node_too_old", "This code needs a newer Node.js.", priority=9)
def node_old(c: Case) -> list[str]:
    if not re.search(
        r"Cannot find module 'node:|SyntaxError: Unexpected token '\?'|Unexpected token '\.'|ERR_UNKNOWN_BUILTIN_MODULE|requires a peer of node",
        c.output,
    ):
        return []
    if c.windows:
        return ["nvm install lts", "winget install -e --id OpenJS.NodeJS.LTS"]
    return [c.then("nvm install --lts", "nvm use --lts")]


@rule("pip_launcher_broken", "pip's launcher points at a Python that moved: reinstall pip.", 5)
def launcher(c: Case) -> list[str]:
    if "Fatal error in launcher: Unable to create process" not in c.output:
        return []
    rest = " ".join(c.args)
    py = "py" if c.windows else "python"
    return [f"{py} -m pip install --upgrade --force-reinstall pip", f"{py} -m pip {rest}".rstrip()]


@rule("ts_missing_types", "TypeScript cannot find the package or its type declarations.", 7)
def ts_types(c: Case) -> list[str]:
    m = c.search(r"Could not find a declaration file for module '([^'./][^']*)'")
    if m:
        return [f"npm install --save-dev @types/{_types_name(m.group(1))}"]
    m = c.search(
        r"TS2307: Cannot find module '([^'./][^']*)' or its corresponding type declarations"
    )
    if m:
        pkg = _package_of(m.group(1))
        return [f"npm install {pkg}", f"npm install --save-dev @types/{_types_name(pkg)}"]
    return []


def _package_of(spec: str) -> str:
    return "/".join(spec.split("/")[:2]) if spec.startswith("@") else spec.split("/")[0]


def _types_name(pkg: str) -> str:
    """@types naming: `@scope/name` becomes `scope__name`."""
    pkg = _package_of(pkg)
    return pkg[1:].replace("/", "__") if pkg.startswith("@") else pkg


@rule("torch_index_url", "PyTorch wheels come from PyTorch's own package index.", 9)
def torch_index(c: Case) -> list[str]:
    m = c.search(r"No matching distribution found for (torch(?:vision|audio)?)\b")
    if not m:
        return []
    return [f"pip install {m.group(1)} --index-url https://download.pytorch.org/whl/cpu"]
