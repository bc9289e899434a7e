"""PowerShell and cmd: execution policy, Unix habits (ls -la, rm -rf, export, &&), curl alias."""

from __future__ import annotations

import re

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
    )
    if not failed:
        return []
    t = translate.translate(c.script, c.shell_name)
    return [t] if t else []


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
    if not c.powershell or c.app not in ("curl", "wget"):
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
