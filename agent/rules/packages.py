"""OS package managers: unknown packages, renamed packages, locks, interrupted dpkg, headers."""

from __future__ import annotations

import re

from termwise.agent.rules import data
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.install import posix_manager


@rule(
    "apt_unable_to_locate",
    "The package lists are stale or the name differs: update, or use the real name.",
    6,
)
def unable_to_locate(c: Case) -> list[tuple[str, str]]:
    m = c.search(r"E: Unable to locate package (\S+)") or c.search(
        r"E: Package '([^']+)' has no installation candidate"
    )
    if not m:
        return []
    pkg = m.group(1)
    out: list[tuple[str, str]] = []
    renamed = data.apt_renames().get(pkg) or data.apt_renames().get(pkg.lower())
    if renamed and renamed != pkg:
        out.append(
            (c.replace_word(pkg, renamed), f"On Debian/Ubuntu the package is called {renamed}.")
        )
    apt = "apt-get" if c.is_app("apt-get") else "apt"
    sudo = "sudo " if c.script.startswith("sudo") else ""
    out.append((c.then(f"{sudo}{apt} update", c.script), "Refresh the package lists, then retry."))
    out.append((f"apt search {pkg}", "Search for the package's real name."))
    return out


@rule("apt_lock_held", "Another apt/dpkg is running: wait for it, or see which one.", priority=8)
def lock_held(c: Case) -> list[tuple[str, str]]:
    m = c.search(r"Could not get lock (\S+?)\.? It is held by process (\d+)")
    if not m:
        return []
    return [
        (
            f"ps -p {m.group(2)} -o pid,etime,cmd",
            "See what holds the lock (often unattended-upgrades).",
        ),
        (c.then(f"sudo kill {m.group(2)}", c.script), "Stop it and retry (only if it is stuck)."),
    ]


@rule("dpkg_interrupted", "dpkg was interrupted: finish configuring, as it says.", priority=4)
def dpkg_interrupted(c: Case) -> list[str]:
    if "dpkg was interrupted" not in c.output:
        return []
    return [c.then("sudo dpkg --configure -a", c.script)]


@rule("apt_broken_deps", "Unmet dependencies: let apt repair them.", priority=9)
def broken(c: Case) -> list[str]:
    if "Unmet dependencies" not in c.output and "you have held broken packages" not in c.output:
        return []
    return ["sudo apt --fix-broken install", c.then("sudo apt update", c.script)]


@rule("brew_no_formula", "No formula by that name: search for it, or try it as a cask.", priority=8)
def brew_no_formula(c: Case) -> list[str]:
    m = c.search(r'No (?:available )?formula (?:or cask )?with the name "([^"]+)"')
    if not m or not c.is_app("brew"):
        return []
    pkg = m.group(1)
    hint = re.findall(r"^[ \t]*(brew install [^\n]+?)\s*$", c.output, re.M)
    similar = c.block_after(r"similarly named (?:formula|formulae|casks?) (?:was|were) found")
    similar += re.findall(r"Did you mean ([\w@.+-]+)\?", c.output)
    fixes = [c.replace_word(pkg, s.split()[0]) for s in similar[:2]]
    return [*hint, *fixes, f"brew search {pkg}", f"brew install --cask {pkg}"]


@rule("dnf_no_match", "No package by that name: search for what provides it.", priority=9)
def dnf_no_match(c: Case) -> list[str]:
    m = c.search(r"No match for argument: (\S+)")
    if not m or not c.is_app("dnf", "yum"):
        return []
    return [f"dnf provides '*/{m.group(1)}'", f"dnf search {m.group(1)}"]


@rule(
    "pacman_target_not_found", "Refresh the package databases, or search for the name.", priority=9
)
def pacman_missing(c: Case) -> list[str]:
    m = c.search(r"error: target not found: (\S+)")
    if not m or not c.is_app("pacman"):
        return []
    return [c.then("sudo pacman -Sy", c.script), f"pacman -Ss {m.group(1)}"]


@rule("missing_header", "A C header is missing: install the development package.", priority=8)
def missing_header(c: Case) -> list[str]:
    m = c.search(r"fatal error: ([\w./+-]+\.h): No such file or directory") or c.search(
        r"(pg_config) executable not found"
    )
    if not m:
        return []
    entry = data.headers().get(m.group(1))
    if not entry or c.windows:
        return []
    mgr = posix_manager(c)
    pkg = entry.get(mgr)
    if not pkg or pkg == "none":
        return []
    return {
        "apt": [f"sudo apt install {pkg}"],
        "dnf": [f"sudo dnf install {pkg}"],
        "pacman": [f"sudo pacman -S {pkg}"],
        "brew": [f"brew install {pkg}"],
    }.get(mgr, [])


@rule("brew_printed_command", "The brew command its message shows.", priority=9)
def brew_printed(c: Case) -> list[str]:
    if not c.is_app("brew"):
        return []
    found = re.findall(r"^[ \t]*(brew \S[^\n]*?)\s*$", c.output, re.M)
    found += re.findall(r"[`'](brew [^`'\n]+)[`']", c.output)
    out: list[str] = []
    verb = next((a for a in c.args if not a.startswith("-")), "")
    for f in dict.fromkeys(found):
        words = f.split()
        if len(words) < 3 or f == c.script:
            continue
        action = words[2] if words[1] == "cask" else words[1]  # old brew: `brew cask install x`
        if words[-1] not in c.args and action in ("reinstall", "upgrade", "install", "uninstall"):
            if c.has("requirement", "depend", "unsatisfied"):
                out.append(c.then(f, c.script))  # a dependency to install first
            elif verb and words[1] != verb and not any(w.startswith("-") for w in words):
                # `brew install a b` → `brew reinstall a b`: the verb it names, your formulae.
                out.append(c.replace_arg(verb, words[1]))
        out.append(f)
    return list(dict.fromkeys(out))[:3]


_INSTALL_VERBS = r"(?:install|-S|add)"


@rule("other_distro_manager", "This system uses another package manager.", priority=7)
def other_distro(c: Case) -> list[str]:
    from termwise.agent.rules.not_found import missing_command

    name = missing_command(c)
    if not c.posix or name not in (
        "apt",
        "apt-get",
        "yum",
        "dnf",
        "pacman",
        "zypper",
        "apk",
        "brew",
    ):
        return []
    m = re.search(rf"\b{re.escape(name)}\s+{_INSTALL_VERBS}\s+(?:-\S+\s+)*(.+)$", c.script)
    if not m:
        return []
    mgr = posix_manager(c)
    if mgr == name or (mgr == "apt" and name == "apt-get"):
        return []
    pkgs = " ".join(w for w in m.group(1).split() if not w.startswith("-"))
    return [
        {
            "apt": f"sudo apt install {pkgs}",
            "dnf": f"sudo dnf install {pkgs}",
            "pacman": f"sudo pacman -S {pkgs}",
            "zypper": f"sudo zypper install {pkgs}",
            "apk": f"sudo apk add {pkgs}",
            "brew": f"brew install {pkgs}",
        }[mgr]
    ]


@rule("choco_install_variant", "Chocolatey often names the installer package <name>.install.", 9)
def choco_variant(c: Case) -> list[str]:
    if not c.is_app("choco", "cinst") or (c.is_app("choco") and "install" not in c.args[:1]):
        return []
    if c.output.strip() and not c.has("not found", "was not found", "not installed"):
        return []
    skip = 1 if c.is_app("choco") else 0
    names = [a for a in c.args[skip:] if not a.startswith("-")]
    if not names or "." in names[0]:
        return []
    return [
        c.replace_arg(names[0], f"{names[0]}.install"),
        c.replace_arg(names[0], f"{names[0]}.portable"),
    ]
