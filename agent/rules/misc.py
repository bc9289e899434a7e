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


@rule("gradle_no_task", "No such Gradle task: the nearest one.", priority=6)
def gradle_task(c: Case) -> list[str]:
    m = c.search(r"Task '([^']+)' not found in (?:root )?project")
    if not m:
        return []
    tasks = [
        "build",
        "clean",
        "test",
        "assemble",
        "check",
        "run",
        "bootRun",
        "jar",
        "tasks",
        "dependencies",
        "publish",
        "installDist",
        "assembleDebug",
        "assembleRelease",
        "installDebug",
        "lint",
    ]
    return [c.replace_word(m.group(1), t) for t in fuzzy.closest(m.group(1), tasks, n=2, limit=3)]


@rule("mvn_unknown_phase", "No such Maven phase: the nearest valid one.", priority=6)
def mvn_phase(c: Case) -> list[str]:
    m = c.search(r'Unknown lifecycle phase "([^"]+)"')
    if not m:
        return []
    phases = re.findall(
        r"\b(validate|initialize|generate-sources|process-sources|compile|test-compile|test|package|verify|install|deploy|clean|site|pre-clean|post-clean)\b",
        c.output,
    )
    phases = list(dict.fromkeys(phases)) or [
        "clean",
        "compile",
        "test",
        "package",
        "verify",
        "install",
        "deploy",
    ]
    return [c.replace_word(m.group(1), p) for p in fuzzy.closest(m.group(1), phases, n=2, limit=3)]


@rule("javac_extension", "javac needs the .java file name.", priority=6)
def javac_ext(c: Case) -> list[str]:
    m = c.search(r"Class names, '([^']+)', are only accepted if annotation processing")
    if not m or not c.is_app("javac"):
        return []
    return [c.replace_word(m.group(1), m.group(1) + ".java")]


@rule("man_no_entry", "No manual page: ask the program itself.", priority=12)
def man_entry(c: Case) -> list[str]:
    m = c.search(r"No manual entry for (\S+)")
    if not m:
        return []
    return [f"{m.group(1)} --help", f"tldr {m.group(1)}"]


@rule("pacman_lowercase_op", "pacman operations are upper-case letters.", priority=6)
def pacman_op(c: Case) -> list[str]:
    m = c.search(r"error: invalid option '-([a-z])'")
    if not c.is_app("pacman", "yay", "paru") or not m:
        return []
    return [
        re.sub(
            rf"(\s)-{m.group(1)}(\w*)",
            lambda x: x.group(1) + "-" + m.group(1).upper() + x.group(2),
            c.script,
            count=1,
        )
    ]


@rule("php_builtin_server", "PHP's built-in server flag is -S.", priority=6)
def php_s(c: Case) -> list[str]:
    if not c.is_app("php") or " -s " not in c.script + " ":
        return []
    return [c.script.replace(" -s ", " -S ", 1)]


@rule("sed_unterminated", "The s command needs its closing delimiter.", priority=6)
def sed_unterminated(c: Case) -> list[str]:
    if not c.is_app("sed") or "unterminated `s' command" not in c.output:
        return []
    m = re.search(r"(['\"]?)(s/[^/\s'\"]*/[^/\s'\"]*)(['\"]?)(?=\s|$)", c.script)
    return [c.script.replace(m.group(2), m.group(2) + "/", 1)] if m else []


@rule("ln_hard_link_dir", "Folders cannot be hard-linked: make a symbolic link.", priority=6)
def ln_dir(c: Case) -> list[str]:
    if not c.is_app("ln") or "hard link not allowed for directory" not in c.output:
        return []
    return [re.sub(r"\bln\b", "ln -s", c.script, count=1)]


@rule("apt_get_search", "Searching is done by apt-cache (or apt).", priority=6)
def apt_get_search(c: Case) -> list[str]:
    if not re.match(r"^\s*(sudo\s+)?apt-get\s+search\b", c.script):
        return []
    return [re.sub(r"(sudo\s+)?apt-get\s+search", "apt-cache search", c.script, count=1)]


@rule("do_not_run_as_root", "This tool refuses to run as root: run it without sudo.", priority=5)
def unsudo(c: Case) -> list[str]:
    if not c.script.startswith("sudo "):
        return []
    if not c.has(
        "don't run this as root",
        "do not run this as root",
        "running homebrew as root",
        "you cannot run this as root",
        "please do not run this script with sudo",
        "should not be run as root",
    ):
        return []
    return [re.sub(r"^sudo\s+", "", c.script)]


@rule("docker_image_in_use", "A container still uses the image: remove the container first.", 6)
def image_in_use(c: Case) -> list[str]:
    m = c.search(r"container (\w+) is using its referenced image")
    if not m:
        return []
    return [c.then(f"docker rm -f {m.group(1)}", c.script)]


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


@rule("java_class_name", "java runs a class name, not the .java/.class file.", priority=6)
def java_class(c: Case) -> list[str]:
    m = c.search(r"Could not find or load main class (\S+?)\.(java|class)\b")
    if not m or not c.is_app("java"):
        return []
    return [c.replace_word(f"{m.group(1)}.{m.group(2)}", m.group(1))]


@rule("grep_argument_order", "The pattern comes before the file.", priority=8)
def grep_order(c: Case) -> list[str]:
    words = [a for a in c.args if not a.startswith("-")]
    if not c.is_app("grep") or len(words) != 2:
        return []
    first, second = words
    if f"{second}: No such file or directory" not in c.output:
        return []
    if not (env.base_dir(c.cwd) / first).is_file():
        return []
    return [c.script.replace(f"{first} {second}", f"{second} {first}", 1)]


@rule("mismatched_quotes", "The quotes do not match: use the same kind on both ends.", priority=5)
def quotes(c: Case) -> list[str]:
    if not c.has(
        "unexpected eof while looking for matching", "unmatched", "unterminated quoted string"
    ):
        return []
    if c.script.count("'") % 2 == 0 and c.script.count('"') % 2 == 0:
        return []
    return [c.script.replace("'", '"')]
