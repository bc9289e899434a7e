"""Commands that miss the project's files: run one folder too high, or naming the app's
module where it is not."""

from __future__ import annotations

import re

from termwise.agent.rules import env
from termwise.agent.rules.engine import Case, rule

# (program names, failure text, project files to look for), checked in order.
_SIGNATURES: tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...] = (
    (
        ("npm", "yarn", "pnpm", "npx", "bun"),
        r"ENOENT[^\n]*package\.json|Could not read package\.json|Couldn't find a package\.json|No package\.json",
        ("package.json",),
    ),
    (
        ("docker", "docker-compose"),
        r"no configuration file provided|Can't find a suitable configuration file|docker-compose\.ya?ml.*not found",
        ("compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"),
    ),
    (("docker",), r"(?i)failed to read dockerfile|Dockerfile: no such file", ("Dockerfile",)),
    (
        ("make",),
        r"No targets specified and no makefile found|No rule to make target",
        ("Makefile", "makefile"),
    ),
    (("cargo",), r"could not find `Cargo\.toml`", ("Cargo.toml",)),
    (("go",), r"go\.mod file not found|cannot find main module", ("go.mod",)),
    (("mvn",), r"there is no POM in this directory", ("pom.xml",)),
    (
        ("gradle",),
        r"not part of a build defined by settings file|Directory '.*' does not contain a Gradle build",
        ("build.gradle", "build.gradle.kts"),
    ),
    (
        ("pip", "pip3", "python", "python3", "py"),
        r"No such file or directory: '(?:requirements\.txt)'",
        ("requirements.txt",),
    ),
    (("python", "python3", "py"), r"can't open file '[^']*manage\.py'", ("manage.py",)),
)


@rule("project_in_subfolder", "The project is in a subfolder: go there first.", priority=6)
def project_in_subfolder(c: Case) -> list[str]:
    base = env.base_dir(c.cwd)
    if base is None:
        return []
    for apps, pattern, files in _SIGNATURES:
        if c.app not in apps or not re.search(pattern, c.output):
            continue
        for name in files:
            found = env.find_below(base, name)
            if found and "/" in found:
                folder = found.rsplit("/", 1)[0]
                if c.windows:
                    folder = folder.replace("/", "\\")
                    if c.cmd:
                        return [f"cd {folder} && {c.script}"]
                return [c.then(f"cd {folder}", c.script)]
        return []
    return []


# Where an ASGI/WSGI app usually lives, most common first.
_APP_MODULES = ("main", "app", "server", "api", "asgi", "wsgi")
_APP_FOLDERS = ("", "src", "app", "backend", "api")


@rule("asgi_app_module", "The app's module is elsewhere: name it by its import path.", priority=4)
def asgi_module(c: Case) -> list[str]:
    """`uvicorn app:app` where the app is `src/main.py` → `uvicorn src.main:app`."""
    m = c.search(r'Could not import module "([\w.]+)"') or c.search(r"No module named '([\w.]+)'")
    spec = next((a for a in c.args if re.fullmatch(r"[\w.]+:[\w.()]+", a)), None)
    if not c.is_app("uvicorn", "gunicorn", "hypercorn") or not m or spec is None:
        return []
    base = env.base_dir(c.cwd)
    if base is None:
        return []
    attr = spec.split(":", 1)[1]
    found = []
    for folder in _APP_FOLDERS:
        for module in _APP_MODULES:
            if (base / folder / f"{module}.py").is_file():
                dotted = f"{folder}.{module}" if folder else module
                if f"{dotted}:" != spec[: len(dotted) + 1]:
                    found.append(c.replace_arg(spec, f"{dotted}:{attr}"))
    return found[:2]
