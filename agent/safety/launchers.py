"""Command lines that other commands keep and run later or elsewhere: `trap 'CMD' EXIT`,
`alias ls='CMD'`, `script -c CMD`, `make --eval 'all:; CMD'`, a crontab table; Windows' `doskey`, `schtasks /tr`,
`wmic … create`, `forfiles /c`; `docker exec … CMD` and `kubectl exec … -- CMD` in a
container; tmux panes.
"""

from __future__ import annotations

import re

from termwise.agent.safety.model import Family

POSIX = frozenset({"trap", "alias", "script"})
# Options whose value is a command line the program runs: the shell escapes of tar, zip
# and rsync (tar --checkpoint-action=exec='rm -rf ~' runs it at the first checkpoint).
LINE_OPTIONS = {
    "tar": ("--checkpoint-action=exec", "--to-command", "--use-compress-program", "-I",
            "--rsh-command", "--info-script", "--new-volume-script"),
    "zip": ("-TT", "--unzip-command"),
    "rsync": ("-e", "--rsh"),
    "man": ("-P", "--pager"),
}  # fmt: skip
# Editors, debuggers and pagers whose startup commands can run a shell line: vim -c '!CMD'
# (or +'!CMD', --cmd), gdb -ex '!CMD' / -ex 'shell CMD', less +'!CMD'.
STARTUP_OPTIONS = {
    "less": (),
    "vim": ("-c", "--cmd"), "vi": ("-c", "--cmd"), "nvim": ("-c", "--cmd"),
    "ex": ("-c", "--cmd"), "view": ("-c", "--cmd"), "vimdiff": ("-c", "--cmd"),
    "gdb": ("-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--init-eval-command"),
}  # fmt: skip
# ssh's options that run a line on this machine: -o ProxyCommand=CMD, -o 'LocalCommand CMD'.
SSH_CLIENTS = frozenset({"ssh", "scp", "sftp"})
_SSH_LOCAL = frozenset({"proxycommand", "localcommand"})
_SSH_SETTING = re.compile(r"\s*(\w+)(?:\s*=\s*|\s+)(.*)", re.S)  # Key=value, Key value
_SHELL_ESCAPE = re.compile(
    r"""^[:\s]*(?:silent!?\s*)?(?:!|shell\s)\s*(.*)$|(?:call\s+)?system\s*\(\s*(['"])(.*?)\2""",
    re.S,
)
# make --eval TEXT (-E TEXT) reads TEXT as a makefile: its recipes (after a rule's `;` or a
# tab) run as shell lines, and $(shell CMD) runs while it is read.
MAKES = frozenset({"make", "gmake"})
_MAKE_RULE = re.compile(r"^[^:=#\t][^:=#;]*::?(?!=)[^;]*;(.*)$", re.S)
_MAKE_SHELL = re.compile(r"\$[({]shell\s((?:[^()]|\([^()]*\))*)[)}]")
_COMPRESSORS = frozenset({"gzip", "bzip2", "xz", "zstd", "lz4", "lzip", "lzma", "lzop", "pigz",
                          "pbzip2", "pixz", "plzip", "brotli", "unzstd"})  # fmt: skip


def kept_lines(name: str, args: list[str], family: Family) -> tuple[Family, list[str]]:
    """The lines `name args` keeps to run later, and the shell they are run by."""
    if name in POSIX and family == "posix":
        return "posix", posix_lines(name, args)
    if name in LINE_OPTIONS and family == "posix":
        lines = option_lines(LINE_OPTIONS[name], args)
        return "posix", [line for line in lines if not _usual(line)]
    if name in SSH_CLIENTS and family == "posix":
        return "posix", ssh_lines(args)
    if name in MAKES and family == "posix":
        return "posix", make_lines(args)
    if name in STARTUP_OPTIONS and family == "posix":
        args = [*args, *(f"-c{a[1:]}" for a in args if a.startswith("+") and len(a) > 1)]
        return "posix", startup_lines(STARTUP_OPTIONS[name] + ("-c",), args)
    if name in WINDOWS and family != "posix":
        return "cmd", windows_lines(name, args)
    return family, []


def posix_lines(name: str, args: list[str]) -> list[str]:
    """The command line `trap 'CMD' EXIT`, `alias ls='CMD'` or `script -c 'CMD'` runs
    (now or later), to be judged as lines of their own."""
    lines: list[str] = []
    if name == "trap" and args and args[0] not in ("-", "") and not args[0].startswith("-"):
        lines.append(args[0])
    elif name == "alias":
        lines += [a.split("=", 1)[1] for a in args if "=" in a and not a.startswith("-")]
    elif name == "script":
        for i, arg in enumerate(args):
            if arg.startswith("--command="):
                lines.append(arg.split("=", 1)[1])
            elif arg == "--command" or (arg[:1] == "-" and arg[1:2] != "-" and arg.endswith("c")):
                lines += args[i + 1 : i + 2]  # -c CMD, -qc CMD
            elif arg[:2] == "-c" and len(arg) > 2:
                lines.append(arg[2:])
    return lines


def option_lines(options: tuple[str, ...], args: list[str]) -> list[str]:
    """The values of `options` in `args`: `-e CMD`, `--rsh=CMD`, `-ICMD` (short options glued)."""
    lines: list[str] = []
    for i, arg in enumerate(args):
        for option in options:
            if arg == option and i + 1 < len(args):
                lines.append(args[i + 1])
            elif arg.startswith(option + "=") or (
                len(option) == 2 and arg.startswith(option) and len(arg) > 2
            ):
                lines.append(arg[len(option) + (arg[len(option)] == "=") :])
    return lines


def ssh_lines(args: list[str]) -> list[str]:
    """The local command lines of ssh's `-o` settings (`Key=value` or `Key value`)."""
    lines = []
    for setting in option_lines(("-o",), args):
        match = _SSH_SETTING.match(setting)
        if match and match.group(1).lower() in _SSH_LOCAL:
            value = match.group(2).strip()
            if value and value.lower() != "none":
                lines.append(value)
    return lines


def make_lines(args: list[str]) -> list[str]:
    """The shell lines of makefile text given with `--eval` / `-E`: recipes and $(shell …)."""
    lines = []
    for text in option_lines(("--eval", "-E"), args):
        for raw in text.replace("\\\n", " ").split("\n"):
            lines += [found.strip() for found in _MAKE_SHELL.findall(raw) if found.strip()]
            if raw.startswith("\t"):
                recipe = raw[1:]
            else:
                match = _MAKE_RULE.match(raw)
                recipe = match.group(1) if match else ""
            recipe = recipe.strip().lstrip("@+-").strip()  # @ silences, - ignores errors
            if recipe:
                lines.append(recipe.replace("$$", "$"))
    return lines


def startup_lines(options: tuple[str, ...], args: list[str]) -> list[str]:
    """Shell lines in an editor's or debugger's startup commands: `!CMD`, `shell CMD`,
    `system("CMD")`."""
    lines = []
    for command in option_lines(options, args):
        match = _SHELL_ESCAPE.search(command)
        if match:
            line = match.group(1) if match.group(1) is not None else match.group(3)
            if line and line.strip():
                lines.append(line.strip())
    return lines


def _usual(line: str) -> bool:
    """A compressor for tar, or a plain ssh for rsync: the options' everyday values."""
    words = line.split()
    program = words[0].rsplit("/", 1)[-1] if words else ""
    if program == "ssh":  # ProxyCommand / LocalCommand run a line on this machine
        return "command" not in line.lower()
    return program in _COMPRESSORS or not program


def cron_lines(table: str) -> list[str]:
    """The commands of a crontab table (what `crontab -` installs from its input): each line
    after its schedule (five fields, or `@reboot`, `@daily` …), up to an unescaped `%` (the
    rest is the command's input). Comments and `NAME=value` lines are skipped."""
    lines: list[str] = []
    for raw in table.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or _CRON_SETTING.match(line):
            continue
        parts = line.split(None, 1)[1:] if line.startswith("@") else line.split(None, 5)[5:]
        command = _CRON_INPUT.split(parts[0], maxsplit=1)[0].strip() if parts else ""
        if command:
            lines.append(command.replace("\\%", "%"))
    return lines


_CRON_SETTING = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*=")
_CRON_INPUT = re.compile(r"(?<!\\)%")


WINDOWS = frozenset({"doskey", "schtasks", "wmic", "forfiles"})


def windows_lines(name: str, args: list[str]) -> list[str]:
    """The cmd line a Windows launcher runs: `doskey ls=CMD`, `schtasks /create … /tr CMD`,
    `wmic process call create CMD`, `forfiles /p DIR /c CMD` (@path: each file under DIR)."""
    lowered = [a.lower() for a in args]
    if name == "doskey":
        at = next((i for i, a in enumerate(args) if "=" in a and not a.startswith("/")), None)
        if at is None:
            return []
        return [" ".join([args[at].split("=", 1)[1], *args[at + 1 :]]).strip()]
    if name == "schtasks" and "/tr" in lowered[:-1]:
        return [args[lowered.index("/tr") + 1]]
    if name == "wmic" and "create" in lowered[:-1] and "call" in lowered:
        return [args[lowered.index("create") + 1]]
    if name == "forfiles" and "/c" in lowered[:-1]:
        folder = args[lowered.index("/p") + 1] if "/p" in lowered[:-1] else "."
        each = folder.rstrip("\\") + "\\*"
        line = args[lowered.index("/c") + 1]
        for var in ("@path", "@file", "@fname", "@relpath"):
            line = re.sub(re.escape(var), lambda _: f'"{each}"', line, flags=re.IGNORECASE)
        return [line]
    return []


_CONTAINER_CLIS = frozenset({"docker", "podman", "nerdctl", "docker-compose", "podman-compose"})
_CLUSTER_CLIS = frozenset({"kubectl", "oc", "k"})
# exec options that take a value (the rest are switches such as -it)
_EXEC_VALUED = frozenset(
    {
        "-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys",
        "-c", "--container", "-n", "--namespace", "--context", "-f", "--filename",
        "--pod-running-timeout", "--kubeconfig", "--cluster", "-s", "--server", "--index",
    }
)  # fmt: skip


def container_command(name: str, args: list[str]) -> list[str]:
    """The command `docker exec [opts] CONTAINER CMD…` (or `compose exec`, `kubectl exec POD
    -- CMD…`) runs inside the container; [] when there is none."""
    rest = args
    if name in _CONTAINER_CLIS and rest[:1] == ["compose"]:
        rest = rest[1:]
    if name not in _CONTAINER_CLIS | _CLUSTER_CLIS or rest[:1] != ["exec"]:
        return []
    rest = rest[1:]
    if name in _CLUSTER_CLIS and "--" in rest:
        return rest[rest.index("--") + 1 :]
    i = 0
    while i < len(rest) and rest[i].startswith("-"):
        i += 2 if rest[i] in _EXEC_VALUED else 1
    return rest[i + 1 :]  # after the container (or pod) name


_TMUX_RUNS = frozenset(
    {"new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane",
     "respawnp", "respawn-window", "respawnw", "run-shell", "run", "send-keys", "send"}
)  # fmt: skip
_TMUX_VALUED = frozenset("cefFlnstxyNT")  # option letters that take the next word


def tmux_line(name: str, args: list[str]) -> str:
    """The shell line `tmux new-session … 'CMD'` (or `send-keys 'CMD' Enter`) runs."""
    if name != "tmux":
        return ""
    i = 0
    while i < len(args) and args[i].startswith("-"):  # tmux's own options: -L sock, -f conf
        i += 2 if args[i] in ("-L", "-S", "-f", "-T") else 1
    if i >= len(args) or args[i] not in _TMUX_RUNS:
        return ""
    sub, rest = args[i], args[i + 1 :]
    j = 0
    while j < len(rest) and rest[j].startswith("-") and rest[j] != "--":
        j += 2 if rest[j][-1] in _TMUX_VALUED and len(rest[j]) > 1 else 1
    words = rest[j + 1 :] if rest[j : j + 1] == ["--"] else rest[j:]
    if sub in ("send-keys", "send"):
        if not any(w in ("Enter", "C-m", "KPEnter") for w in words):
            return ""  # typed but not entered
        words = [w for w in words if w not in ("Enter", "C-m", "KPEnter")]
    return " ".join(words)
