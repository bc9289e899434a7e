"""PowerShell and cmd: execution policy, Unix habits (ls -la, rm -rf, export, &&), curl alias."""

from __future__ import annotations

import re

from termwise.agent.rules import shell as sh
from termwise.agent.rules import translate
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.not_found import missing_command

_PARAM_ERR = "a parameter cannot be found that matches parameter name"


@rule("ps_execution_policy", "Scripts are blocked by the execution policy: allow local ones.", 3)
def execution_policy(c: Case) -> list[tuple[str, str]]:
    if (
        "running scripts is disabled on this system" not in c.lower
        and "is not digitally signed" not in c.lower
    ):
        return []
    out = [
        (
            "Set-ExecutionPolicy -Scope CurrentUser RemoteSigned",
            "Allow local scripts (and signed downloaded ones) for your user.",
        ),
        (
            c.then("Set-ExecutionPolicy -Scope Process -ExecutionPolicy Bypass", c.script)
            if c.powershell
            else "Set-ExecutionPolicy -Scope Process -ExecutionPolicy Bypass",
            "Allow scripts in this window only, then retry.",
        ),
    ]
    m = c.search(r"File (\S+\.ps1) cannot be loaded")
    if m and "is not digitally signed" in c.lower:
        out.insert(
            0,
            (
                c.then(f"Unblock-File {m.group(1)}", c.script),
                "The file came from the internet: unblock it.",
            ),
        )
    if m:
        out.append(
            (
                f"powershell -ExecutionPolicy Bypass -File {m.group(1)}",
                "Run this one script without changing the policy.",
            )
        )
    return out


@rule("win_unix_command", "The Windows equivalent of this Unix command.", priority=7)
def unix_command(c: Case) -> list[str]:
    if not c.windows or not c.parts:
        return []
    first = c.parts[0].lower()
    name = (missing_command(c) or "").lower()
    if not translate.known(first) and not (translate.known(name) and f"| {name}" in c.script):
        return []
    failed = (
        missing_command(c) is not None
        or _PARAM_ERR in c.lower
        or "is not recognized" in c.lower
        or "invalid switch" in c.lower
        or "the syntax of the command is incorrect" in c.lower
        or "positional parameter cannot be found" in c.lower
        or "missing an argument for parameter" in c.lower  # `ls -l`: -l is short for -LiteralPath
    )
    if not failed:
        return []
    t = translate.translate(c.script, c.shell_name)
    if not t:
        return []
    out = [t]
    # The plain form people also type: `ls -la` → `Get-ChildItem` / `dir`, `grep x f` → `Select-String x f`.
    if first == "ls" and len(c.parts) > 1:
        plain = translate.translate(
            " ".join(p for p in c.parts if not p.startswith("-")), c.shell_name
        )
        if plain:
            out.append(plain)
    if first == "grep" and c.powershell and "|" not in c.script:
        words = [p for p in c.parts[1:] if not p.startswith("-")]
        if len(words) >= 2 and not set("rR") & set(
            "".join(p for p in c.parts[1:] if p.startswith("-"))
        ):
            out.append("Select-String " + " ".join(words))
    return out


@rule("ps_and_and", "Windows PowerShell 5.1 has no && : separate the commands with ;", 4)
def and_and(c: Case) -> list[tuple[str, str]]:
    if not c.powershell or "&&" not in c.script:
        return []
    if "is not a valid statement separator" not in c.output and "&&" not in c.output:
        return []
    parts = [p.strip() for p in c.script.split("&&")]
    return [
        ("; ".join(parts), "Run them one after another."),
        (
            parts[0] + "".join(f"; if ($?) {{ {p} }}" for p in parts[1:]),
            "Run each only if the previous one succeeded.",
        ),
    ]


@rule("win_env_prefix", "Windows shells do not take VAR=value before a command.", priority=6)
def env_prefix(c: Case) -> list[str]:
    if not c.windows:
        return []
    m = re.match(r"^((?:[A-Za-z_]\w*=\S*\s+)+)(.+)$", c.script)
    if not m:
        return []
    pairs = [p.split("=", 1) for p in m.group(1).split()]
    if c.powershell:
        sets = "; ".join(f'$env:{k} = "{v}"' for k, v in pairs)
        return [f"{sets}; {m.group(2)}"]
    sets = " && ".join(f"set {k}={v}" for k, v in pairs)
    return [f"{sets} && {m.group(2)}"]


@rule("ps_curl_alias", "In Windows PowerShell `curl` is Invoke-WebRequest: call curl.exe.", 5)
def curl_alias(c: Case) -> list[str]:
    if not c.powershell or c.app != "curl":
        return []
    if (
        "invoke-webrequest" not in c.lower
        and _PARAM_ERR not in c.lower
        and "cannot bind parameter" not in c.lower
    ):
        return []
    return [c.replace_word(c.parts[0], c.app + ".exe")]


@rule(
    "win_script_sh", "Windows cannot run .sh files itself: run it with bash (Git Bash or WSL).", 20
)
def shell_script(c: Case) -> list[str]:
    if not c.windows or not c.parts or not c.parts[0].endswith(".sh"):
        return []
    path = c.parts[0].replace("\\", "/")
    return [
        f"bash {path} {' '.join(c.parts[1:])}".rstrip(),
        f"wsl {path} {' '.join(c.parts[1:])}".rstrip(),
    ]


@rule("win_dot_slash", "cmd needs backslashes to run a program in this folder.", priority=8)
def cmd_dot_slash(c: Case) -> list[str]:
    if not c.cmd or not c.script.startswith("./"):
        return []
    if "is not recognized" not in c.lower:
        return []
    return [".\\" + c.script[2:].replace("/", "\\", c.script.count("/") - 1)]


@rule("ps_module_scope", "Installing for all users needs admin: install for yourself.", priority=5)
def module_scope(c: Case) -> list[str]:
    if not c.is_app("install-module") or "-scope" in c.script.lower():
        return []
    if "administrator rights are required" not in c.lower and "elevated" not in c.lower:
        return []
    return [c.script + " -Scope CurrentUser"]


@rule("ps_module_missing", "The module is not installed: install it for yourself.", priority=7)
def module_missing(c: Case) -> list[str]:
    m = c.search(
        r"The specified module '([^']+)' was not loaded because no valid module file was found"
    )
    if not m:
        return []
    return [c.then(f"Install-Module {m.group(1)} -Scope CurrentUser", c.script)]


@rule("ps_policy_scope", "Changing the machine-wide policy needs admin: set it for your user.", 5)
def policy_scope(c: Case) -> list[str]:
    if not c.is_app("set-executionpolicy") or "-scope" in c.script.lower():
        return []
    if "access to the registry key" not in c.lower and "is denied" not in c.lower:
        return []
    return [c.script + " -Scope CurrentUser"]


def _winget_ids(output: str) -> list[str]:
    """The Id column of the table winget prints (its header gives the column's position)."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"(?<=\s)Id(?=\s)", line)
        if m and line.lstrip().startswith("Name"):
            start = m.start()
            rows = [ln for ln in lines[i + 1 :] if ln.strip() and not set(ln.strip()) <= {"-"}]
            return [r[start:].split()[0] for r in rows if len(r) > start and r[start:].strip()]
    return []


@rule("win_package_not_found", "No package by that name: search for the right one.", priority=8)
def win_package(c: Case) -> list[tuple[str, str]]:
    words = [a for a in c.args if not a.startswith("-")]
    name = words[-1] if len(words) >= (1 if c.is_app("cinst") else 2) else ""
    if c.is_app("winget") and "no package found matching input criteria" in c.lower and name:
        return [(f"winget search {name}", "Find the package's exact id.")]
    if c.is_app("winget") and "multiple packages found matching input criteria" in c.lower:
        ids = _winget_ids(c.output)
        verb = next((w for w in words if w in ("install", "upgrade", "uninstall", "show")), "")
        if verb and ids:
            return [
                (f"winget {verb} --id {i} -e", f"The package with the exact id {i}.")
                for i in ids[:3]
            ]
    if c.is_app("scoop") and "couldn't find manifest for" in c.lower and name:
        return [
            (c.then("scoop bucket add extras", c.script), "Many apps live in the 'extras' bucket."),
            (f"scoop search {name}", "Find the app's name."),
        ]
    if c.is_app("choco", "cinst") and "was not found with the source" in c.lower and name:
        return [
            (f"choco search {name}", "Find the package's name."),
            (c.replace_word(name, name + ".install"), "Many packages have a .install variant."),
        ]
    return []


@rule("ps_cd_drive", "PowerShell's cd changes drive by itself: no /d.", priority=6)
def cd_drive(c: Case) -> list[str]:
    m = re.match(r"^[ \t]*(?:cd|chdir)\s+/d\s+(.+)$", c.script, re.I)
    if not m or not c.powershell:
        return []
    return [f"Set-Location {m.group(1)}"]


@rule("ps_path_with_spaces", "A path with spaces must be quoted and called with &.", priority=6)
def path_spaces(c: Case) -> list[str]:
    m = c.search(r"The term '([A-Za-z]:\\[^']*)' is not recognized")
    if not m or not c.powershell:
        return []
    start = m.group(1)
    m2 = re.match(re.escape(start) + r"(.*?\.(?:exe|cmd|bat|ps1))(.*)$", c.script, re.I)
    if not m2:
        return []
    return [f'& "{start}{m2.group(1)}"{m2.group(2)}']


@rule("ps_cd_spaces", "A folder name with spaces must be quoted in PowerShell.", priority=5)
def cd_spaces(c: Case) -> list[str]:
    m = re.match(r"^[ \t]*(cd|chdir|sl|Set-Location)\s+(?![-/])([^'\"|;&]+?)\s*$", c.script, re.I)
    if not m or not c.powershell or " " not in m.group(2):
        return []
    if "positional parameter cannot be found" not in c.lower:
        return []
    return [f"{m.group(1)} {sh.quote(m.group(2), c.shell_name)}"]


@rule("cmd_forward_slashes", "cmd reads / as an option: use backslashes in paths.", priority=6)
def cmd_slashes(c: Case) -> list[str]:
    if not c.cmd or "/" not in c.script:
        return []
    if not c.has(
        "the syntax of the command is incorrect",
        "invalid switch",
        "the system cannot find the path",
    ):
        return []
    words = c.script.split(" ")
    fixed = [
        w.replace("/", "\\") if "/" in w.strip("/") and not w.startswith("/") else w for w in words
    ]
    out = " ".join(fixed)
    return [out] if out != c.script else []


@rule("ps_basic_parsing", "Windows PowerShell needs -UseBasicParsing without Internet Explorer.", 5)
def basic_parsing(c: Case) -> list[str]:
    if "Internet Explorer engine is not available" not in c.output:
        return []
    return [c.script + " -UseBasicParsing"]


@rule("ps_expand_tar", "Expand-Archive only reads .zip: use tar.", priority=6)
def expand_tar(c: Case) -> list[str]:
    if "is not a supported archive file format" not in c.output:
        return []
    m = c.search(r"([^\s:]+\.(?:tar\.gz|tgz|tar\.xz|tar)) is not a supported archive file format")
    if not m:
        return []
    return [f"tar -xf {m.group(1)}"]


@rule(
    "win_linux_package_manager",
    "Windows has no apt/brew/yum: install with winget (or scoop/choco).",
    6,
)
def linux_pm(c: Case) -> list[tuple[str, str]]:
    if not c.windows:
        return []
    m = re.match(
        r"^[ \t]*(?:sudo\s+)?(?:apt|apt-get|brew|yum|dnf|pacman|snap)\s+(?:install|-S)\s+(?:-\S+\s+)*([\w.+-]+)",
        c.script,
    )
    if not m or not (missing_command(c) or "is not recognized" in c.lower):
        return []
    pkg = m.group(1)
    from termwise.agent.rules.install import install_commands

    found = install_commands(c, pkg)
    if found:
        return found[:3]
    return [
        (f"winget search {pkg}", "Find the package's winget id."),
        (f"scoop install {pkg}", "Try scoop."),
    ]


@rule("ps_reload_profile", "PowerShell's startup script is $PROFILE.", priority=6)
def reload_profile(c: Case) -> list[str]:
    if not c.powershell or not re.match(
        r"^[ \t]*(?:source|\.)\s+~?/?\.(?:bashrc|zshrc|profile|bash_profile)\s*$", c.script
    ):
        return []
    return [". $PROFILE"]


@rule(
    "ps_wget_alias",
    "In Windows PowerShell `wget` is Invoke-WebRequest: use its parameters or curl.exe.",
    5,
)
def wget_alias(c: Case) -> list[str]:
    if not c.powershell or c.app != "wget":
        return []
    if (
        _PARAM_ERR not in c.lower
        and "invoke-webrequest" not in c.lower
        and "not recognized" not in c.lower
    ):
        return []
    url = next((a for a in c.args if re.match(r"https?://", a)), "")
    if not url:
        return []
    name = re.split(r"[/?]", url.rstrip("/"))[-1] or "download"
    out_flag = next(
        (c.args[i + 1] for i, a in enumerate(c.args[:-1]) if a in ("-O", "--output-document")), name
    )
    return [f"Invoke-WebRequest {url} -OutFile {out_flag}", f"curl.exe -L -o {out_flag} {url}"]


@rule("ps_call_operator", "PowerShell runs a quoted program path only with the & call operator.", 5)
def call_operator(c: Case) -> list[str]:
    if not c.powershell or not re.match(r"""^\s*["'][^"']+["']\s+\S""", c.script):
        return []
    if "unexpected token" not in c.lower:
        return []
    return ["& " + c.script.strip()]


_CMD_IN_PS = {
    # cmd habit (program, its /switches) → PowerShell template over the remaining words
    ("rmdir", "s"): "Remove-Item -Recurse -Force {args}",
    ("rd", "s"): "Remove-Item -Recurse -Force {args}",
    ("del", "s"): "Remove-Item -Recurse -Force {args}",
    ("del", "f"): "Remove-Item -Force {args}",
    ("del", "q"): "Remove-Item {args}",
    ("erase", "q"): "Remove-Item {args}",
    ("dir", "s"): "Get-ChildItem -Recurse {args}",
    ("dir", "b"): "Get-ChildItem -Name {args}",
    ("dir", "a"): "Get-ChildItem -Force {args}",
    ("copy", "y"): "Copy-Item -Force {args}",
    ("move", "y"): "Move-Item -Force {args}",
}


@rule("ps_cmd_switches", "PowerShell's aliases take PowerShell parameters, not cmd /switches.", 6)
def cmd_switches(c: Case) -> list[str]:
    if not c.powershell or not c.parts:
        return []
    if (
        "positional parameter cannot be found" not in c.lower
        and "cannot find path" not in c.lower
        and "second path fragment" not in c.lower
    ):
        return []
    app = c.parts[0].lower()
    switches = [w[1:].lower() for w in c.parts[1:] if re.fullmatch(r"/[A-Za-z]", w)]
    words = [w for w in c.parts[1:] if not re.fullmatch(r"/[A-Za-z]", w)]
    for sw in switches:
        template = _CMD_IN_PS.get((app, sw))
        if template:
            return [template.format(args=" ".join(words)).strip()]
    return []
