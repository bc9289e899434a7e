"""Commands run one folder too high: the project file they need is in a subfolder."""

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
