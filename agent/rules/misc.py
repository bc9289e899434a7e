"""SSH, terraform, archives, man pages and other common failures that fit no bigger group."""

from __future__ import annotations

import re

from termwise.agent.rules import env
from termwise.agent.rules.engine import Case, rule


@rule("ssh_host_key_changed", "The host's key changed: forget the old one (if you expected it).", 5)
def host_key(c: Case) -> list[str]:
    if (
        "REMOTE HOST IDENTIFICATION HAS CHANGED" not in c.output
        and "Host key verification failed" not in c.output
    ):
        return []
    m = c.search(r"^[ \t]*(ssh-keygen -f .+ -R .+?)\s*$")
    if m:
        return [m.group(1)]
    host = c.search(r"(?:Host key for|for) \[?([\w.-]+)\]?(?::\d+)? has changed")
    if host:
        out = [f"ssh-keygen -R {host.group(1)}"]
        typed = [a.split("@")[-1] for a in c.args if not a.startswith("-") and "@" in a]
        if typed and typed[0].split(":")[0] != host.group(1):
            out.append(f"ssh-keygen -R {typed[0].split(':')[0]}")  # its name, besides its IP
        return out
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
    changed = False

    def close(m: re.Match[str]) -> str:
        nonlocal changed
        flag, quote, expr = m.group(1) or "", m.group(2), m.group(3)
        if len(expr) < 2 or expr[0] != "s" or expr[1].isalnum() or expr[1].isspace():
            return m.group(0)
        delim = expr[1]
        if len(re.split(rf"(?<!\\){re.escape(delim)}", expr[2:])) != 2:
            return m.group(0)  # already closed (or not an s command)
        changed = True
        return f"{flag}{quote}{expr}{delim}{quote}"

    # Each expression word: `s/a/b`, `-es/a/b`, `'s/\/a/b'` (no spaces inside).
    fixed = re.sub(r"(?<!\S)(-e)?(['\"]?)(s[^\s'\"]+)\2(?!\S)", close, c.script)
    return [fixed] if changed else []


@rule("ln_hard_link_dir", "Folders cannot be hard-linked: make a symbolic link.", priority=6)
def ln_dir(c: Case) -> list[str]:
    if not c.is_app("ln") or "hard link not allowed for directory" not in c.output:
        return []
    return [re.sub(r"\bln\b", "ln -s", c.script, count=1)]


@rule("apt_get_search", "Searching is done by apt-cache (or apt).", priority=6)
def apt_get_search(c: Case) -> list[str]:
    if not re.match(r"^[ \t]*(sudo\s+)?apt-get\s+search\b", c.script):
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
        "must not be run as root",
        "you cannot perform this operation as root",
        "running makepkg as root is not allowed",
        "avoid running yay as root",
    ):
        return []
    return [re.sub(r"^sudo\s+", "", c.script)]


@rule("grep_argument_order", "The pattern comes before the file.", priority=8)
def grep_order(c: Case) -> list[str]:
    words = [a for a in c.args if not a.startswith("-")]
    if not c.is_app("grep") or len(words) != 2:
        return []
    first, second = words
    if f"{second}: No such file or directory" not in c.output:
        return []
    base = env.base_dir(c.cwd)
    if base is None or not (base / first).is_file():
        return []
    return [c.script.replace(f"{first} {second}", f"{second} {first}", 1)]


@rule("mismatched_quotes", "The quotes do not match: use the same kind on both ends.", priority=5)
def quotes(c: Case) -> list[str]:
    said = c.has(
        "unexpected eof while looking for matching",
        "unmatched '",
        'unmatched "',
        "unterminated quoted string",
    )
    if c.script.count("'") % 2 == 0 and c.script.count('"') % 2 == 0:
        return []
    # `'My message"`: one of each kind, opening and closing the same words.
    pair = re.search(r"""(['"])([^'"]*)(?!\1)(['"])""", c.script)
    if not said and not (pair and c.output.strip() == "" and c.posix):
        return []
    if pair and pair.group(1) != pair.group(3):
        return [c.script[: pair.start()] + f'"{pair.group(2)}"' + c.script[pair.end() :]]
    return [c.script.replace("'", '"')]


@rule(
    "ssh_agent_not_running",
    "No SSH agent is running in this shell: start one, then add the key.",
    5,
)
def ssh_agent(c: Case) -> list[str]:
    said = (
        "Could not open a connection to your authentication agent" in c.output
        or "Error connecting to agent" in c.output
    )
    if not said or not c.parts:
        return []
    if c.windows:  # OpenSSH for Windows runs the agent as a service
        return [
            "Get-Service ssh-agent | Set-Service -StartupType Manual; Start-Service ssh-agent",
        ]
    return [c.then('eval "$(ssh-agent -s)"', c.script)]


@rule("tmux_no_session", "There is no tmux session to attach to: start one.", priority=6)
def tmux_no_session(c: Case) -> list[str]:
    if not c.is_app("tmux"):
        return []
    named = c.search(r"can't find session:? ['\"]?([\w.-]+)")
    if named:
        return [f"tmux new -s {named.group(1)}", "tmux ls"]
    if re.search(r"^(?:no sessions|no server running on .*)$", c.output, re.M):
        return ["tmux new"]
    return []
