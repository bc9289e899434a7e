"""Windows setup gaps: missing cmdlet modules, no Python for the launcher, no WSL distribution."""

from __future__ import annotations

import re

from termwise.agent.rules import data, fuzzy
from termwise.agent.rules.engine import Case, rule

# Cmdlet noun prefixes that come with an optional Windows feature, not the PowerShell Gallery.
_RSAT = {
    "AD": "Rsat.ActiveDirectory.DS-LDS.Tools~~~~0.0.1.0",
    "Dhcp": "Rsat.DHCP.Tools~~~~0.0.1.0",
    "DnsServer": "Rsat.Dns.Tools~~~~0.0.1.0",
    "GP": "Rsat.GroupPolicy.Management.Tools~~~~0.0.1.0",
}


@rule("ps_cmdlet_missing", "No module provides that cmdlet here: find and install one.", 45)
def cmdlet_missing(c: Case) -> list[tuple[str, str]]:
    if not c.windows:
        return []
    m = c.search(
        r"The term '([A-Z][a-z]+-[A-Z]\w+)' is not recognized as (?:the|a) name of a cmdlet"
    )
    if not m:
        return []
    name = m.group(1)
    if fuzzy.closest(name, data.known_commands("powershell"), n=1, ignore_case=True):
        return []  # a typo of a cmdlet PowerShell has: the typo rules answer it
    noun = name.split("-", 1)[1]
    out: list[tuple[str, str]] = []
    for prefix, capability in _RSAT.items():
        if noun.startswith(prefix) and noun[len(prefix) : len(prefix) + 1].isupper():
            out.append(
                (
                    f"Add-WindowsCapability -Online -Name {capability}",
                    f"{name} comes with the RSAT tools (run elevated).",
                )
            )
    out.append((f"Find-Module -Command {name}", "Look up which gallery module provides it."))
    return out


@rule("py_launcher_no_runtime", "The py launcher found no Python: install one.", priority=6)
def launcher_no_runtime(c: Case) -> list[tuple[str, str]]:
    if not c.is_app("py"):
        return []
    if not c.has("no installed python found", "no suitable python runtime found"):
        return []
    m = re.search(r"\s-(\d)\.(\d+)\b", c.script)
    version = f"{m.group(1)}.{m.group(2)}" if m else "3.12"
    return [
        (f"winget install -e --id Python.Python.{version}", f"Install Python {version}."),
        ("py --list", "List the Pythons the launcher can see."),
    ]


@rule("wsl_no_distribution", "WSL has no Linux distribution yet: install one.", priority=5)
def wsl_no_distro(c: Case) -> list[tuple[str, str]]:
    if not (c.is_app("wsl", "bash") and c.has("has no installed distributions")):
        return []
    return [
        ("wsl --install -d Ubuntu", "Install Ubuntu under WSL (then restart the shell)."),
        ("wsl --list --online", "See the distributions you can install."),
    ]


@rule("npm_eperm_locked", "A file is locked (editor, antivirus, running dev server).", priority=12)
def npm_eperm_locked(c: Case) -> list[tuple[str, str]]:
    if not (c.windows and c.is_app("npm", "npx", "yarn", "pnpm")):
        return []
    if not c.search(r"EPERM: operation not permitted, (?:rename|unlink|rmdir|lstat)"):
        return []
    return [
        (
            c.then("npm cache clean --force", c.script),
            "Close editors and dev servers holding node_modules, clear the cache, retry.",
        ),
    ]


# How to get each Windows package manager when the shell cannot find it.
BOOTSTRAP = {
    "winget": (
        "Add-AppxPackage -RegisterByFamilyName -MainPackage Microsoft.DesktopAppInstaller_8wekyb3d8bbwe",
        "winget ships with App Installer: register it for this user.",
    ),
    "scoop": (
        "Invoke-RestMethod -Uri https://get.scoop.sh | Invoke-Expression",
        "Install scoop for this user (no administrator needed).",
    ),
    "choco": (
        "winget install -e --id Chocolatey.Chocolatey",
        "Install Chocolatey (from an elevated shell).",
    ),
}


@rule("win_manager_missing", "That package manager is not installed: get it first.", priority=5)
def manager_missing(c: Case) -> list[tuple[str, str]]:
    from termwise.agent.rules.not_found import missing_command

    if not c.windows:
        return []
    name = (missing_command(c) or "").lower().removesuffix(".exe")
    if name not in BOOTSTRAP:
        return []
    if name == "scoop" and c.cmd:
        cmd = "powershell -Command " + '"' + BOOTSTRAP[name][0] + '"'
        return [(cmd, BOOTSTRAP[name][1])]
    return [BOOTSTRAP[name]]


@rule("ps_item_exists", "The item already exists: -Force makes New-Item accept that.", priority=6)
def item_exists(c: Case) -> list[str]:
    if not (c.powershell and c.app.lower() in ("new-item", "ni", "mkdir", "md")):
        return []
    if not c.search(r"An item with the specified name .+ already exists"):
        return []
    if c.app.lower() in ("mkdir", "md") or re.search(r"-ItemType\s+Directory", c.script, re.I):
        return [f"{c.script} -Force"]
    return []


@rule("win_remove_folder", "The folder is not empty: remove it with its contents.", priority=6)
def remove_folder(c: Case) -> list[tuple[str, str, str]]:
    caveat = "Everything inside the folder is deleted."
    if c.powershell and c.app.lower() in ("remove-item", "rm", "del", "rmdir", "rd", "ri", "erase"):
        if "has children and the recurse parameter was not specified" in c.lower:
            return [(f"{c.script} -Recurse", "Delete the folder and what it contains.", caveat)]
    if c.cmd and c.app.lower() in ("rmdir", "rd") and "the directory is not empty" in c.lower:
        if "/s" in (a.lower() for a in c.args):
            return []
        cmd = re.sub(r"^(\s*(?:rmdir|rd))\b", r"\1 /s /q", c.script, count=1, flags=re.I)
        return [(cmd, "Delete the folder and what it contains, without asking.", caveat)]
    return []


@rule("node_gyp_no_msvc", "node-gyp compiles C++ add-ons: it needs the MSVC build tools.", 12)
def node_gyp_msvc(c: Case) -> list[tuple[str, str]]:
    if not c.search(r"gyp ERR! find VS|could not find (?:any|a version of) Visual Studio"):
        return []
    return [
        (
            "winget install -e --id Microsoft.VisualStudio.2022.BuildTools",
            "Install the MSVC build tools (choose 'Desktop development with C++').",
        )
    ]


@rule("ps_tls12", "Windows PowerShell 5.1 offers old TLS versions: enable TLS 1.2.", priority=6)
def ps_tls12(c: Case) -> list[str]:
    if not (c.powershell and c.has("could not create ssl/tls secure channel")):
        return []
    tls = "[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12"
    return [f"{tls}; {c.script}"]
