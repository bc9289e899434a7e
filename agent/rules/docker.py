"""Docker: daemon not running, socket permissions, unknown commands, compose, name clashes."""

from __future__ import annotations

import re

from termwise.agent.rules import data, env, fuzzy
from termwise.agent.rules.engine import Case, rule


@rule("docker_daemon_down", "The Docker daemon is not running: start it.", priority=5)
def daemon_down(c: Case) -> list[tuple[str, str]]:
    if not c.has(
        "cannot connect to the docker daemon",
        "couldn't connect to docker daemon",
        "is the docker daemon running",
        "docker daemon is not running",
        "open //./pipe/docker",
        "error during connect",
    ):
        return []
    if "permission denied" in c.lower:
        return []
    if c.powershell:
        start = 'Start-Process "$env:ProgramFiles\\Docker\\Docker\\Docker Desktop.exe"'
        return [(start, "Start Docker Desktop, wait for it to be ready, then retry.")]
    if c.cmd:
        return [
            (
                'start "" "%ProgramFiles%\\Docker\\Docker\\Docker Desktop.exe"',
                "Start Docker Desktop, wait for it to be ready, then retry.",
            )
        ]
    if "/users/" in c.lower or "docker.raw.sock" in c.lower or ".docker/run" in c.lower:
        return [("open -a Docker", "Start Docker Desktop, then retry.")]
    return [
        (c.then("sudo systemctl start docker", c.script), "Start the Docker service, then retry."),
        (
            c.then("sudo service docker start", c.script),
            "Start Docker where systemd is not running (WSL, containers).",
        ),
        ("open -a Docker", "On macOS: start Docker Desktop."),
    ]


@rule("docker_socket_permission", "Your user may not use the Docker socket.", priority=5)
def socket_permission(c: Case) -> list[tuple[str, str]]:
    if (
        "docker" not in c.lower
        or "permission denied" not in c.lower
        or "docker.sock" not in c.lower
    ):
        return []
    return [
        (c.sudo(), "Run it as root."),
        ("sudo usermod -aG docker $USER", "Join the docker group (log in again for it to apply)."),
        (
            c.then("sudo usermod -aG docker $USER", "newgrp docker"),
            "Join the docker group (once), so no sudo is needed.",
        ),
    ]


@rule("docker_unknown_command", "The nearest docker command.", priority=6)
def unknown_command(c: Case) -> list[str]:
    if not c.is_app("docker"):
        return []
    m = c.search(r"docker: '([^']+)' is not a docker command") or c.search(
        r"unknown command: docker (\S+)"
    )
    if not m:
        return []
    wrong = m.group(1)
    if wrong == "compose":
        return [re.sub(r"\bdocker compose\b", "docker-compose", c.script, count=1)]
    printed = re.findall(r"Did you mean (?:this|one of these)\?\s*\n\s+(\S+)", c.output)
    best = printed or fuzzy.closest(wrong, data.subcommands("docker"), n=2)
    return [c.replace_word(wrong, b) for b in best]


@rule("docker_compose_v2", "Compose v2 is a docker subcommand: `docker compose`.", priority=8)
def compose_v2(c: Case) -> list[str]:
    from termwise.agent.rules.not_found import missing_command

    if missing_command(c) != "docker-compose":
        return []
    return [re.sub(r"\bdocker-compose\b", "docker compose", c.script, count=1)]


@rule("docker_name_in_use", "A container already has that name: remove it first.", priority=6)
def name_in_use(c: Case) -> list[str]:
    m = c.search(r'The container name "/([^"]+)" is already in use')
    if not m:
        return []
    return [c.then(f"docker rm -f {m.group(1)}", c.script), f"docker start {m.group(1)}"]


@rule("docker_login", "The image is private or misspelled: log in, or check its name.", 9)
def pull_denied(c: Case) -> list[str]:
    if (
        "pull access denied" not in c.lower
        and "push access denied" not in c.lower
        and "may require 'docker login'" not in c.lower
        and "requested access to the resource is denied" not in c.lower
    ):
        return []
    out = []
    # An image named `host[:port]/path` lives on that registry, not on Docker Hub.
    denied = c.search(r"(?:pull|push) access denied for ([^\s,]+)")
    refs = [denied.group(1)] if denied else []
    if not any("build" == a for a in c.args):  # a build's -t names the output, not the source
        refs += c.args
    for a in refs:
        m = re.match(r"^([\w.-]+(?:\.[\w-]+|:\d+))/[\w./-]+(?::[\w.-]+)?$", a)
        if m and m.group(1) != "docker.io":
            out.append(c.then(f"docker login {m.group(1)}", c.script))
            break
    return [*out, c.then("docker login", c.script)]


@rule("docker_no_dockerfile", "There is no Dockerfile here.", priority=9)
def no_dockerfile(c: Case) -> list[str]:
    if not c.is_app("docker") or not re.search(
        r"(?:open|failed to read) .*Dockerfile.*no such file", c.output, re.I | re.S
    ):
        return []
    base = env.base_dir(c.cwd)
    other = r"(?i)dockerfile[.-][\w.-]+|[\w.-]+\.dockerfile"  # Dockerfile.dev, app.dockerfile
    found = [n for n in (env.listing(base) if base else []) if re.fullmatch(other, n)]
    if found:
        return [re.sub(r"^(\S+ build)\b", rf"\1 -f {f}", c.script, count=1) for f in found[:3]]
    return ["ls" if c.posix else "dir", re.sub(r"\s\.$", " -f path/to/Dockerfile .", c.script)]


@rule("docker_rm_running", "The container is running: stop it first, or force the removal.", 6)
def rm_running(c: Case) -> list[str]:
    if not c.is_app("docker", "podman") or not re.search(
        r"cannot remove a? ?running container|container is running: stop the container"
        r"|containers cannot be removed without force",
        c.lower,
    ):
        return []
    if "rm" not in c.args:
        return []
    names = [a for a in c.args[c.args.index("rm") + 1 :] if not a.startswith("-")]
    if not names:
        return []
    rm = c.replace_word("rm", "rm -f")
    stop = f"{c.app} stop {' '.join(names)}"
    return [rm, c.then(stop, c.script)]


@rule("docker_image_in_use", "A container still uses the image: remove the container first.", 6)
def image_in_use(c: Case) -> list[str]:
    m = c.search(r"container (\w+) is using its referenced image")
    if m:
        return [c.then(f"docker rm -f {m.group(1)}", c.script)]
    m = c.search(r"image\s+is being used by (?:running|stopped) container ([0-9a-f]{6,64})")
    if not m:
        return []
    app = c.app if c.app in ("docker", "podman") else "docker"
    return [c.then(f"{app} container rm -f {m.group(1)}", c.script)]


@rule("docker_tag_lowercase", "Image names must be lower-case.", priority=5)
def tag_lowercase(c: Case) -> list[str]:
    if not c.is_app("docker") or "repository name must be lowercase" not in c.output:
        return []
    m = re.search(r"(?:-t|--tag)[ =](\S+)", c.script) or re.search(
        r"\b([A-Za-z0-9._/-]*[A-Z][\w./:-]*)", " ".join(c.args)
    )
    return [c.script.replace(m.group(1), m.group(1).lower(), 1)] if m else []


@rule("docker_not_a_tty", "There is no terminal here: drop -t.", priority=6)
def not_tty(c: Case) -> list[str]:
    if "the input device is not a TTY" not in c.output:
        return []
    out = [re.sub(r"\s-it\b|\s-ti\b", " -i", c.script, count=1)]
    if "winpty" in c.output:
        out.insert(0, f"winpty {c.script}")
    return out


@rule("docker_platform", "The image has no build for this CPU: ask for amd64.", priority=7)
def platform(c: Case) -> list[str]:
    if "no matching manifest for" not in c.output or not c.is_app("docker"):
        return []
    return [re.sub(r"\b(run|pull|build)\b", r"\1 --platform linux/amd64", c.script, count=1)]
