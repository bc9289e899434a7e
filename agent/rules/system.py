"""The operating system: services without systemd, disks, file watchers, limits, macOS tools."""

from __future__ import annotations

import re

from termwise.agent.rules.engine import Case, rule


@rule("no_systemd", "This system (WSL, a container) has no systemd: use `service`.", priority=5)
def no_systemd(c: Case) -> list[str]:
    if not c.has(
        "system has not been booted with systemd", "failed to connect to bus: host is down"
    ):
        return []
    args = [a for a in c.args if not a.startswith("-")]
    if c.is_app("systemctl") and len(args) >= 2:
        return [f"sudo service {args[1]} {args[0]}"]
    return ["sudo service --status-all"]


@rule("systemd_job_failed", "The service failed to start: read why.", priority=6)
def job_failed(c: Case) -> list[str]:
    if (
        "failed because the control process exited" not in c.output
        and "failed because" not in c.output
    ):
        return []
    return re.findall(r'"((?:systemctl status|journalctl -xeu?) [^"]+)"', c.output)[:2]


@rule("unit_not_found", "No such service: list the units that exist.", priority=8)
def unit_not_found(c: Case) -> list[str]:
    m = c.search(r"Unit ([\w@.-]+?)(?:\.service)? (?:not found|could not be found)")
    if not m or not c.is_app("systemctl", "service", "journalctl"):
        return []
    name = m.group(1).split(".")[0]
    return [f"systemctl list-unit-files | grep -i {name[:4]}"]


@rule("disk_full", "The disk is full: see what uses the space.", priority=8)
def disk_full(c: Case) -> list[tuple[str, str]]:
    if "no space left on device" not in c.lower:
        return []
    if c.windows:
        return [("Get-PSDrive -PSProvider FileSystem", "See the free space per drive.")]
    out = [("df -h", "See which filesystem is full.")]
    if "docker" in c.lower or c.is_app("docker"):
        out.insert(
            0,
            (
                "docker system prune",
                "Remove stopped containers, unused networks and dangling images.",
            ),
        )
    out.append(("du -sh ./* | sort -h | tail", "Find the biggest folders here."))
    return out


@rule("inotify_watchers", "Raise the limit on file watchers.", priority=5)
def inotify(c: Case) -> list[str]:
    if not c.posix or "ENOSPC" not in c.output or "watch" not in c.lower:
        return []
    return [
        "echo fs.inotify.max_user_watches=524288 | sudo tee -a /etc/sysctl.conf && sudo sysctl -p"
    ]


@rule("too_many_open_files", "Raise the open-files limit for this shell.", priority=8)
def open_files(c: Case) -> list[str]:
    if "too many open files" not in c.lower or not c.posix:
        return []
    return [c.then("ulimit -n 4096", c.script)]


@rule("heap_out_of_memory", "Give Node more memory.", priority=6)
def heap(c: Case) -> list[str]:
    if "JavaScript heap out of memory" not in c.output:
        return []
    if c.powershell:
        return [f'$env:NODE_OPTIONS = "--max-old-space-size=4096"; {c.script}']
    if c.cmd:
        return [f"set NODE_OPTIONS=--max-old-space-size=4096 && {c.script}"]
    return [f"NODE_OPTIONS=--max-old-space-size=4096 {c.script}"]


@rule("xcode_tools", "macOS developer tools are missing: install them.", priority=4)
def xcode(c: Case) -> list[str]:
    if (
        "xcrun: error: invalid active developer path" not in c.output
        and "xcode-select --install" not in c.output
    ):
        return []
    return ["xcode-select --install"]


@rule("target_busy", "Something still uses the mount: find it, or unmount lazily.", priority=7)
def busy(c: Case) -> list[str]:
    if "target is busy" not in c.output:
        return []
    m = c.search(r"umount: ([^\s:]+): target is busy")
    if not m:
        return []
    return [f"sudo lsof +f -- {m.group(1)}", f"sudo umount -l {m.group(1)}"]


@rule("exists_already", "It exists already.", priority=9)
def exists(c: Case) -> list[str]:
    if c.is_app("ln") and "File exists" in c.output:
        return [re.sub(r"\bln\s+-s\b", "ln -sf", c.script, count=1)]
    if c.is_app("mkdir") and "File exists" in c.output and c.posix and "-p" not in c.args:
        return [re.sub(r"\bmkdir\b", "mkdir -p", c.script, count=1)]
    return []


@rule("kube_no_cluster", "kubectl has no cluster to talk to.", priority=7)
def kube(c: Case) -> list[tuple[str, str]]:
    if not c.search(
        r"The connection to the server localhost:8080 was refused"
        r"|couldn't get current server API group list"
        r"|failed to download openapi: Get \"https?://(?:localhost|127\.0\.0\.1):8080/"
    ):
        return []
    return [
        ("kubectl config get-contexts", "See which clusters kubectl knows."),
        ("minikube start", "Start a local cluster."),
    ]


@rule("stale_command_hash", "bash remembers an old location of this program: forget it.", 6)
def stale_hash(c: Case) -> list[str]:
    m = c.search(r"^-?(?:bash|sh): (/[\w./-]+): No such file or directory")
    if not m or not c.posix or not c.parts:
        return []
    first = c.parts[0]
    if "/" in first or not m.group(1).endswith("/" + first):
        return []
    return [c.then("hash -r", c.script)]


@rule("bad_interpreter_python", "The script's #! line names a Python that is not installed.", 6)
def bad_interpreter(c: Case) -> list[str]:
    if "bad interpreter" not in c.output:
        return []
    m = c.search(r"([^\s:]+): /usr/bin/(?:env )?(python[\d.]*)\S*: bad interpreter")
    if not m or "^M" in c.output:
        return []
    return [f"python3 {c.script}", "sudo apt install python-is-python3"]


@rule("shared_library_missing", "A shared library is missing: find the package that has it.", 9)
def shared_lib(c: Case) -> list[str]:
    m = c.search(r"error while loading shared libraries: ([\w.+-]+\.so[\w.]*)")
    if not m or not c.posix:
        return []
    return [f"apt-file search {m.group(1)}", "sudo ldconfig"]


@rule("exec_format_error", "The program is built for another CPU or OS.", priority=10)
def exec_format(c: Case) -> list[str]:
    if "Exec format error" not in c.output:
        return []
    m = c.search(r"([^\s:]+(?:: [^\s:]+)?): cannot execute binary file: Exec format error")
    if not m:
        return []
    return [f"file {m.group(1).removeprefix('bash: ')}", "uname -m"]


@rule("read_only_filesystem", "The filesystem is mounted read-only.", priority=9)
def read_only(c: Case) -> list[str]:
    if "read-only file system" not in c.lower or not c.posix:
        return []
    return ["mount | grep ' ro,'", "sudo mount -o remount,rw /"]


@rule("wsl_not_enabled", "WSL is not set up: install or update it.", priority=5)
def wsl(c: Case) -> list[tuple[str, str]]:
    if c.has(
        "0x8007019e",
        "windows subsystem for linux optional component is not enabled",
        "wsl 2 installation is incomplete",
        "wsl2 is not supported with your current machine configuration",
    ):
        return [
            ("wsl --install", "Install WSL and its components (as administrator), then restart."),
            ("wsl --update", "Update the WSL kernel."),
        ]
    if c.has("0x80370102", "virtual machine platform"):
        return [
            (
                "dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart",
                "Enable the Virtual Machine Platform (and virtualisation in the BIOS).",
            )
        ]
    return []
