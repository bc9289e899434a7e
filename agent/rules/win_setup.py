"""Windows setup gaps: missing cmdlet modules, no Python for the launcher, no WSL distribution."""

from __future__ import annotations

import re

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
