"""npm, yarn, pnpm and node: missing scripts, busy ports, missing package.json and modules."""

from __future__ import annotations

import re

from termwise.agent.rules import data, env, fuzzy
from termwise.agent.rules.engine import Case, rule

_RUNNERS = ("npm", "yarn", "pnpm", "bun")
# Script names most projects use, for guessing when there is no package.json to read.
_USUAL_SCRIPTS = ("start", "dev", "build", "test", "serve", "lint", "watch", "preview", "format")


def _script_name(c: Case) -> str | None:
    m = (
        c.search(r"[Mm]issing script:? \"?([^\"\s]+)\"?")
        or c.search(r"error Command \"([^\"]+)\" not found")
        or c.search(r"Couldn't find a script named \"([^\"]+)\"")
        or c.search(r"Command \"([^\"]+)\" not found")
    )
    return m.group(1) if m else None


@rule("npm_missing_script", "No script by that name: the nearest one that exists.", priority=6)
def missing_script(c: Case) -> list[tuple[str, str]]:
    if not c.is_app(*_RUNNERS):
        return []
    name = _script_name(c)
    if not name:
        return []
    out: list[tuple[str, str]] = []
    if c.is_app("yarn", "pnpm") and fuzzy.closest(name, data.subcommands(c.app), n=1, limit=2):
        return []  # a misspelled yarn command, not a script: npm_did_you_mean handles it
    for hint in re.findall(
        r"^(?:npm (?:ERR!|error))?\s+((?:npm|yarn|pnpm) run [\w:.-]+)", c.output, re.M
    ):
        out.append((hint, "The script npm suggests."))
    m = c.search(r"Did you mean \"((?:pnpm|yarn|npm)[^\"]+)\"\?")
    if m:
        out.append((m.group(1), "The script the tool suggests."))
    scripts = env.package_scripts(c.cwd) or list(_USUAL_SCRIPTS)
    for best in fuzzy.closest(name, scripts, n=2, limit=3):
        out.append((c.replace_word(name, best), f"package.json has a '{best}' script."))
    runner = c.app
    if name == "start" and "dev" in scripts:
        out.append((f"{runner} run dev", "This project starts with its 'dev' script."))
    out.append((f"{runner} run", "List the scripts package.json defines."))
    return out


def port_of(c: Case) -> str | None:
    """The port a server could not bind, from the common ways of saying so."""
    for pattern in (
        r"EADDRINUSE[^\n]{0,200}?:(\d{2,5})\b",
        r"[Pp]ort (\d{2,5}) is (?:already )?in use",
        r"already running on port (\d{2,5})",
        r"Bind for [\d.]+:(\d{2,5}) failed: port is already allocated",
        r"listen tcp [\w.\[\]:]*:(\d{2,5}): bind: address already in use",
        r"bind on address \('[^']*', (\d{2,5})\)",
        r"[Aa]ddress already in use.{0,200}?(?:port|:)\s*(\d{2,5})",
        r"[Pp]ort (\d{2,5}) .{0,200}?(?:in use|unavailable|taken)",
    ):
        m = c.search(pattern)
        if m:
            return m.group(1)
    if c.has(
        "address already in use",
        "eaddrinuse",
        "only one usage of each socket address",
        "port is already in use",
    ):
        m = re.search(r"(?:--port[= ]|-p |:)(\d{2,5})\b", c.script) or re.search(
            r"\s(\d{2,5})\s*$", c.script
        )
        if m:
            return m.group(1)
        if "runserver" in c.script or "http.server" in c.script:
            return "8000"
    return None


@rule("port_in_use", "Something already listens on that port: find it (and stop it).", priority=5)
def port_in_use(c: Case) -> list[tuple[str, str]]:
    port = port_of(c)
    if not port:
        return []
    if c.powershell:
        return [
            (f"Get-NetTCPConnection -LocalPort {port}", "Show which process holds the port."),
            (
                f"Stop-Process -Id (Get-NetTCPConnection -LocalPort {port}).OwningProcess -Force",
                "Stop the process holding the port.",
            ),
            (f"netstat -ano | findstr :{port}", "Show the port's owner (PID in the last column)."),
        ]
    if c.cmd:
        return [
            (f"netstat -ano | findstr :{port}", "Show the port's owner (PID in the last column)."),
            (
                f"for /f \"tokens=5\" %a in ('netstat -ano ^| findstr :{port}') do taskkill /PID %a /F",
                "Stop the process holding the port.",
            ),
        ]
    return [
        (f"lsof -i :{port}", "Show which process holds the port."),
        (f"fuser -k {port}/tcp", "Stop the process holding the port."),
        (f"kill $(lsof -t -i :{port})", "Stop the process holding the port."),
    ]


@rule("npm_no_package_json", "There is no package.json here: create one (or cd to the project).", 7)
def no_package_json(c: Case) -> list[tuple[str, str]]:
    if not c.is_app(*_RUNNERS, "npx"):
        return []
    if not re.search(
        r"(?:ENOENT|no such file or directory)[^\n]{0,400}?package\.json|Could not read package\.json",
        c.output,
    ):
        return []
    return [
        ("npm init -y", "Start a package.json with defaults."),
        ("ls" if c.posix else "dir", "Check you are in the project folder."),
    ]


@rule("npm_did_you_mean", "npm says which command you meant.", priority=6)
def npm_typo(c: Case) -> list[str]:
    if not c.is_app("npm", "pnpm", "yarn"):
        return []
    m = c.search(r"Unknown command: \"([^\"]+)\"") or c.search(
        r"error Command \"([^\"]+)\" not found"
    )
    if not m and "where <command> is one of" not in c.output:
        return []
    wrong = m.group(1) if m else (c.args[0] if c.args else "")
    found = [h.split()[-1] for h in c.block_after(r"Did you mean (?:this|one of these)\?")]
    if not found:
        found = fuzzy.closest(wrong, data.subcommands(c.app), n=2)
    return [c.replace_word(wrong, f) for f in found[:3] if f != wrong]


@rule("yarn_printed_command", "The command yarn says to run instead.", priority=5)
def yarn_printed(c: Case) -> list[str]:
    if not c.is_app("yarn"):
        return []
    m = c.search(r"Run \"(yarn [^\"]+)\" instead") or c.search(r"Did you mean `(yarn [^`]+)`\?")
    if m:
        return [m.group(1)]
    m = c.search(r'Command "([^"]+)" not found\. Did you mean "([^"]+)"\?')
    return [c.replace_arg(m.group(1), m.group(2))] if m else []


@rule("npm_eresolve", "Peer dependencies conflict: install the way npm 6 did.", priority=8)
def eresolve(c: Case) -> list[tuple[str, str]]:
    if not c.is_app("npm", "npx") or "ERESOLVE" not in c.output:
        return []
    return [
        (c.script + " --legacy-peer-deps", "Ignore peer-dependency conflicts (npm 6 behaviour)."),
        (c.script + " --force", "Force the install despite the conflicts."),
    ]


@rule("npm_ci_no_lockfile", "npm ci installs from the lock file, and there is none yet.", 7)
def ci_no_lockfile(c: Case) -> list[str]:
    if not c.is_app("npm") or "can only install with an existing package-lock.json" not in c.output:
        return []
    return [re.sub(r"\bci\b", "install", c.script, count=1)]


@rule("pnpm_outdated_lockfile", "The lock file is older than package.json: let pnpm update it.", 6)
def pnpm_lockfile(c: Case) -> list[str]:
    if not c.is_app("pnpm") or "ERR_PNPM_OUTDATED_LOCKFILE" not in c.output:
        return []
    return [c.script + " --no-frozen-lockfile"]


@rule("npm_deps_missing", "The project's dependencies are not installed yet.", priority=8)
def deps_missing(c: Case) -> list[str]:
    if not c.is_app(*_RUNNERS, "npx"):
        return []
    from termwise.agent.rules.not_found import missing_command

    name = missing_command(c)
    if not name or name in c.parts or name in (c.app, "node"):
        return []
    if c.is_app("npx"):
        return []
    install = "npm install" if c.is_app("npm") else f"{c.app} install"
    return [c.then(install, c.script)]


@rule("node_missing_module", "Install the package the code imports.", priority=7)
def node_missing_module(c: Case) -> list[str]:
    m = c.search(r"Cannot find (?:module|package) '([^'./][^']*)'")
    if not m or not (c.is_app("node", "npm", "npx", "yarn", "pnpm", "ts-node", "tsx", "nodemon")):
        return []
    name = m.group(1)
    pkg = "/".join(name.split("/")[:2]) if name.startswith("@") else name.split("/")[0]
    if pkg.startswith("node:"):
        return []
    return [f"npm install {pkg}", "npm install"]


@rule("node_openssl_legacy", "Old webpack needs OpenSSL's legacy provider on Node 17+.", priority=6)
def openssl_legacy(c: Case) -> list[str]:
    if (
        "ERR_OSSL_EVP_UNSUPPORTED" not in c.output
        and "digital envelope routines::unsupported" not in c.output
    ):
        return []
    if c.powershell:
        return [f'$env:NODE_OPTIONS = "--openssl-legacy-provider"; {c.script}']
    if c.cmd:
        return [f"set NODE_OPTIONS=--openssl-legacy-provider && {c.script}"]
    return [f"NODE_OPTIONS=--openssl-legacy-provider {c.script}"]


@rule("tsc_no_tsconfig", "There is no tsconfig.json here: create one (or cd to the project).", 7)
def tsc_init(c: Case) -> list[str]:
    if not re.search(
        r"error TS5057|error TS5058: .*tsconfig\.json|Cannot find a tsconfig\.json", c.output
    ):
        return []
    words = c.parts
    if "tsc" not in words:
        return []
    runner = words[: words.index("tsc") + 1]  # `npx tsc`, `pnpm exec tsc`, `tsc`
    return [" ".join([*runner, "--init"])]


@rule("npm_needs_login", "The registry needs you signed in: log in, then retry.", priority=6)
def npm_login(c: Case) -> list[str]:
    if not c.is_app("npm", "pnpm", "yarn") or not re.search(
        r"ENEEDAUTH|need auth|You must be logged in|code E401", c.output
    ):
        return []
    login = "yarn npm login" if c.is_app("yarn") and "YN0" in c.output else f"{c.app} login"
    return [c.then(login, c.script), login]
