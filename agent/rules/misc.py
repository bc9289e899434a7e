"""Build tools, SSH, terraform and other common failures that fit no bigger group."""

from __future__ import annotations

import re

from termwise.agent.rules import env, fuzzy
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.not_found import missing_command, typed_word


@rule("make_no_target", "No such make target: the nearest one in the Makefile.", priority=6)
def make_target(c: Case) -> list[str]:
    m = c.search(r"No rule to make target [`'‘]([^'’`]+)[’']")
    if not c.is_app("make") or not m:
        return []
    target = m.group(1)
    if target not in c.args:
        return []  # a missing prerequisite file, not a typo on the command line
    targets = env.make_targets(c.cwd) or ["all", "build", "install", "clean", "test", "run", "help"]
    return [c.replace_word(target, t) for t in fuzzy.closest(target, targets, n=2, limit=3)]


@rule("make_no_makefile", "There is no Makefile here.", priority=9)
def no_makefile(c: Case) -> list[tuple[str, str]]:
    if not c.is_app("make") or "No targets specified and no makefile found" not in c.output:
        return []
    return [
        (
            c.then("cmake -S . -B build", "cmake --build build"),
            "A CMake project: configure it, then build.",
        ),
        (c.then("./configure", "make"), "An autotools project: configure first."),
    ]


@rule("build_wrapper", "Use the project's build wrapper instead of a global install.", priority=7)
def wrapper(c: Case) -> list[tuple[str, str]]:
    name = missing_command(c)
    if name not in ("mvn", "gradle"):
        return []
    word = typed_word(c, name) or name
    w = "mvnw" if name == "mvn" else "gradlew"
    if c.powershell:
        exe = f".\\{w}.cmd" if name == "mvn" else f".\\{w}.bat"
    elif c.cmd:
        exe = f"{w}.cmd" if name == "mvn" else f"{w}.bat"
    else:
        exe = f"./{w}"
    return [
        (
            c.replace_word(word, exe),
            f"Run the project's {w} wrapper (it downloads the right {name}).",
        )
    ]


@rule("mvn_no_goal", "Maven needs a goal (a lifecycle phase).", priority=8)
def mvn_goal(c: Case) -> list[str]:
    if not c.is_app("mvn", "mvnw") or "No goals have been specified for this build" not in c.output:
        return []
    return [f"{c.script} clean install", f"{c.script} package"]


@rule("ssh_host_key_changed", "The host's key changed: forget the old one (if you expected it).", 5)
def host_key(c: Case) -> list[str]:
    if (
        "REMOTE HOST IDENTIFICATION HAS CHANGED" not in c.output
        and "Host key verification failed" not in c.output
    ):
        return []
    m = c.search(r"^\s*(ssh-keygen -f .+ -R .+?)\s*$")
    if m:
        return [m.group(1)]
    host = c.search(r"(?:Host key for|for) \[?([\w.-]+)\]?(?::\d+)? has changed")
    if host:
        return [f"ssh-keygen -R {host.group(1)}"]
    words = [a for a in c.args if not a.startswith("-")]
    return [f"ssh-keygen -R {words[0].split('@')[-1]}"] if words else []


@rule("ssh_connection_refused", "Nothing answers on that SSH port: check the server and port.", 10)
def ssh_refused(c: Case) -> list[tuple[str, str]]:
    m = c.search(
        r"ssh: connect to host (\S+) port (\d+): (Connection refused|Connection timed out|No route to host)"
    )
    if not m:
        return []
    host, port = m.group(1), m.group(2)
    return [
        (f"nc -zv {host} {port}", "Check whether the port is open at all."),
        ("sudo systemctl start ssh", "If this is your server: start its SSH service."),
        (
            c.replace_word(c.parts[0], f"{c.parts[0]} -p 2222") if c.parts else "",
            "The server may listen on another port.",
        ),
    ]


@rule("ssh_key_permissions", "SSH refuses keys others can read: make it private.", priority=5)
def key_perms(c: Case) -> list[str]:
    m = c.search(r"Permissions \d+ for '([^']+)' are too open")
    if not m:
        return []
    if c.windows:
        return [f'icacls "{m.group(1)}" /inheritance:r /grant:r "$($env:USERNAME):R"']
    return [c.then(f"chmod 600 {m.group(1)}", c.script)]


@rule("terraform_init", "Terraform needs `terraform init` first.", priority=5)
def terraform_init(c: Case) -> list[str]:
    if not c.is_app("terraform"):
        return []
    if not re.search(
        r"terraform init|Could not satisfy plugin requirements|Required plugins are not installed|Inconsistent dependency lock file|Backend initialization required",
        c.output,
    ):
        return []
    if "-upgrade" in c.output and "terraform init -upgrade" in c.output:
        return [c.then("terraform init -upgrade", c.script)]
    return [c.then("terraform init", c.script)]


@rule("cargo_new_project", "There is no Cargo.toml here.", priority=8)
def cargo_manifest(c: Case) -> list[str]:
    if not c.is_app("cargo") or "could not find `Cargo.toml`" not in c.output:
        return []
    return ["cargo init"]


@rule("go_mod_missing", "There is no go.mod: start a module.", priority=8)
def go_mod(c: Case) -> list[str]:
    if not c.is_app("go") or (
        "go.mod file not found" not in c.output and "cannot find main module" not in c.output
    ):
        return []
    return [c.then("go mod init example.com/app", c.script), c.then("go mod tidy", c.script)]


@rule("go_missing_module", "Fetch the missing Go modules.", priority=8)
def go_missing(c: Case) -> list[str]:
    if not c.is_app("go") or not re.search(
        r"no required module provides package|missing go\.sum entry", c.output
    ):
        return []
    return [c.then("go mod tidy", c.script)]


@rule("rust_linker_missing", "Rust needs a C linker.", priority=8)
def linker(c: Case) -> list[str]:
    if "linker `cc` not found" not in c.output and "linker `link.exe` not found" not in c.output:
        return []
    if c.windows or "link.exe" in c.output:
        return ["winget install -e --id Microsoft.VisualStudio.2022.BuildTools"]
    return ["sudo apt install build-essential"]


@rule("java_version_mismatch", "The class was built for a newer Java than the one running it.", 9)
def java_version(c: Case) -> list[str]:
    if "UnsupportedClassVersionError" not in c.output and "class file version" not in c.output:
        return []
    if c.windows:
        return ["winget install -e --id Microsoft.OpenJDK.21"]
    return ["sudo apt install openjdk-21-jdk"]


@rule("cmake_missing_source", "cmake needs the folder with CMakeLists.txt.", priority=9)
def cmake_source(c: Case) -> list[str]:
    if not c.is_app("cmake") or "does not appear to contain CMakeLists.txt" not in c.output:
        return []
    return ["cmake -S .. -B .", "cmake -S . -B build"]


@rule("tar_no_mode", "tar needs to know what to do: extract or create.", priority=9)
def tar_mode(c: Case) -> list[str]:
    if not c.is_app("tar") or "You must specify one of the" not in c.output:
        return []
    files = [a for a in c.args if not a.startswith("-")]
    if files and re.search(r"\.(tar(\.\w+)?|tgz|tbz2|txz)$", files[0]):
        return [f"tar -xf {files[0]}"]
    return [f"tar -czf archive.tar.gz {' '.join(files)}"] if files else []


@rule("unzip_tar_gz", "That file is a tar archive, not a zip.", priority=8)
def unzip_tar(c: Case) -> list[str]:
    if not c.is_app("unzip") or "End-of-central-directory signature not found" not in c.output:
        return []
    files = [a for a in c.args if re.search(r"\.(tar\.gz|tgz|tar)$", a)]
    return [f"tar -xf {files[0]}"] if files else []
