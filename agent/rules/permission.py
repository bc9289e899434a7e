"""Permission denied: run with rights (sudo / an elevated shell), make scripts executable."""

from __future__ import annotations

import re

from termwise.agent.rules import data
from termwise.agent.rules import shell as sh
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.shell import strip_sudo

# Messages that mention permissions but are solved some other way (their own rules).
_NOT_SUDO = (
    "permission denied (publickey",
    "pull access denied",
    "requested access to the resource is denied",
    "running scripts is disabled",
    "npm err! 403",
    "git@",
    "permission denied (password",
    "permission denied, please try again",
)


# Clients of remote services: "access denied" there is about accounts, never local rights.
_REMOTE_CLIENTS = {
    "aws",
    "az",
    "gcloud",
    "gsutil",
    "gh",
    "glab",
    "kubectl",
    "helm",
    "terraform",
    "curl",
    "wget",
    "ssh",
    "scp",
    "sftp",
    "psql",
    "ftp",
    "heroku",
    "vercel",
    "netlify",
    "firebase",
}


def needs_rights(c: Case) -> bool:
    low = c.lower
    if not low or c.app in _REMOTE_CLIENTS or any(x in low for x in _NOT_SUDO):
        return False
    return any(m in low for m in data.permission_messages())


def _script_target(c: Case) -> str | None:
    """The script file the user tried to execute directly (`./run.sh`, `bin/tool`)."""
    first = c.parts[0] if c.parts else ""
    if first in ("sudo", "doas") and len(c.parts) > 1:
        first = c.parts[1]
    if "/" in first and not first.startswith("/usr") and not first.startswith("/bin"):
        return first
    return None


@rule(
    "perm_chmod_script",
    "The script is not executable: mark it so, or run it with its interpreter.",
    5,
)
def chmod_script(c: Case) -> list[tuple[str, str]]:
    silent = not c.output.strip() and c.exit_code in (None, 126)
    if not c.posix or ("permission denied" not in c.lower and not silent):
        return []
    target = _script_target(c)
    if not target or (target.rsplit("/", 1)[-1] not in c.output and not silent):
        return []
    mode_target = target[2:] if target.startswith("./") else target
    out = [(c.then(f"chmod +x {mode_target}", c.script), "Make the file executable, then run it.")]
    if target.endswith(".py"):
        out.append((f"python3 {c.script}", "Run it with python3."))
        out.append((f"python {c.script}", "Run it with python (where that is Python 3)."))
    elif target.endswith(".sh") or "." not in target.rsplit("/", 1)[-1]:
        out.append((f"bash {c.script}", "Run it with bash."))
    return out


@rule("perm_redirect_tee", "The shell opens the redirect target before sudo runs: use sudo tee.", 6)
def redirect_tee(c: Case) -> list[str]:
    if not c.posix or "permission denied" not in c.lower:
        return []
    m = re.match(r"^(.*?)\s*(>>?)\s*(\S+)\s*$", c.script)
    if not m or not m.group(1) or "|" in m.group(3):
        return []
    tee = "sudo tee -a" if m.group(2) == ">>" else "sudo tee"
    # The other classic: a root shell opens the file (the whole line runs as root).
    return [f"{strip_sudo(m.group(1))} | {tee} {m.group(3)}", c.sudo(strip_sudo(c.script))]


@rule("perm_pip_user", "Install into your user site instead of the system's.", priority=10)
def pip_user(c: Case) -> list[str]:
    if not re.search(r"\bpip3?\b", c.script) or " install" not in c.script:
        return []
    if "--user" in c.script or not c.has(
        "[errno 13] permission denied", "[winerror 5] access is denied"
    ):
        return []
    return [re.sub(r"\binstall\b", "install --user", strip_sudo(c.script), count=1)]


@rule("perm_editor", "The file belongs to root: edit it with sudoedit.", priority=6)
def editor_rights(c: Case) -> list[tuple[str, str]]:
    """vim's E212, nano's "Error writing … Permission denied" on a system file."""
    if not c.posix or not c.is_app("vim", "vi", "nvim", "nano", "emacs", "micro"):
        return []
    if not re.search(r"E212|E505|Error writing .*Permission denied|Permission denied", c.output):
        return []
    files = [a for a in c.args if not a.startswith(("-", "+"))]
    if not files or c.script.startswith(("sudo ", "doas ")):
        return []
    return [
        (f"sudoedit {' '.join(files)}", "Edit a copy as yourself; sudo writes it back as root."),
        (c.sudo(), "Run the editor itself as root (your editor settings may not apply)."),
    ]


@rule("perm_sudo", "It needs administrator rights: run it with sudo.", priority=15)
def with_sudo(c: Case) -> list[str]:
    if not c.posix or not needs_rights(c) or c.script.startswith(("sudo ", "doas ")):
        return []
    if _script_target(c) and "permission denied" in c.lower and c.parts[0] in c.output:
        return []  # a non-executable script: chmod, not sudo
    if re.search(r"[^<>]>{1,2}\s*\S", c.script) and "permission denied" in c.lower:
        return []  # the redirect fails before sudo runs: perm_redirect_tee handles it
    return [c.sudo()]


@rule("perm_elevate", "It needs administrator rights: run it from an elevated shell.", priority=15)
def elevate(c: Case) -> list[tuple[str, str]]:
    if not c.windows or not needs_rights(c):
        return []
    out = [(c.sudo(), "Open an elevated (Run as administrator) shell running this command.")]
    out.append(
        (
            f"gsudo {c.script}",
            "Elevate just this command with gsudo (winget install gerardog.gsudo).",
        )
    )
    return out


@rule(
    "perm_npm_global_prefix", "Give npm a global folder you own, so -g needs no sudo.", priority=16
)
def npm_prefix(c: Case) -> list[tuple[str, str]]:
    if not c.posix or not c.is_app("npm") or "eacces" not in c.lower:
        return []
    if " -g" not in c.script and "--global" not in c.script:
        return []
    setup = c.then("mkdir -p ~/.npm-global", "npm config set prefix ~/.npm-global", c.script)
    return [(setup, "Install global packages under ~/.npm-global (add ~/.npm-global/bin to PATH).")]


@rule("sudo_keep_path", "sudo resets PATH: pass yours along.", priority=7)
def sudo_path(c: Case) -> list[str]:
    m = c.search(r"^sudo: ([^\s:]+): command not found")
    if not m or not c.script.startswith("sudo "):
        return []
    # After sudo's own options (`-u app`, `-E`), before the command they apply to.
    opts = re.match(r"^sudo((?:\s+(?:-[ughpCDRTU]\s+\S+|--\S+=\S+|-\S+))*)\s+", c.script)
    if not opts:
        return []
    return ["sudo" + opts.group(1) + ' env "PATH=$PATH" ' + c.script[opts.end() :]]


# Tools that exist only in a Linux system: on Windows they mean WSL, not an admin shell.
_LINUX_ONLY = frozenset(
    "apt apt-get aptitude dpkg dnf yum zypper pacman apk snap systemctl service journalctl "
    "useradd usermod groupadd passwd chown ufw iptables modprobe update-alternatives".split()
)


def sudo_for_linux(c: Case) -> bool:
    """`sudo apt …` typed in a Windows shell: a Linux habit (WSL), not a missing sudo."""
    if not c.windows or not c.parts or c.parts[0] != "sudo":
        return False
    return sh.program_name(sh.split(strip_sudo(c.script), c.family)) in _LINUX_ONLY


@rule("sudo_missing", "There is no sudo here: run the command directly.", priority=6)
def sudo_missing(c: Case) -> list[tuple[str, str]]:
    from termwise.agent.rules.not_found import missing_command

    if missing_command(c) != "sudo" or not c.parts or c.parts[0] != "sudo":
        return []
    rest = strip_sudo(c.script)
    if sudo_for_linux(c):
        return [
            (f"wsl sudo {rest}", "A Linux command: run it in WSL's Linux, where sudo is."),
        ]
    if c.windows:
        return [
            (c.sudo(rest), "Windows has no sudo by default: open an elevated shell for it."),
            (f"gsudo {rest}", "gsudo is a sudo for Windows (winget install gerardog.gsudo)."),
        ]
    return [
        (rest, "Without sudo installed you are probably root already (a container)."),
        (c.then("apt-get update", "apt-get install -y sudo"), "Install sudo (as root)."),
    ]
