"""Install commands for a missing tool, for the package managers that fit the shell and OS."""

from __future__ import annotations

from termwise.agent.rules import data, env
from termwise.agent.rules.engine import Case

OS_MANAGERS = ("apt", "dnf", "pacman", "zypper", "apk", "brew", "scoop", "choco")
LANG_MANAGERS = ("pip", "npm", "cargo", "go", "gem")


def tool_entry(name: str) -> tuple[str, dict[str, str]] | None:
    """The tools.yaml entry (and its key) for a command name, following aliases."""
    tools = data.tools()
    low = name.lower()
    key = low if low in tools else data.tool_aliases().get(low, "")
    entry = tools.get(key)
    return (key, entry) if entry else None


def package_for(entry: dict[str, str], manager: str) -> str | None:
    """The package name for `manager` (None when it does not package the tool)."""
    pkg = entry.get(manager)
    if pkg is None and manager in OS_MANAGERS:
        pkg = entry.get("all")
    if not pkg or pkg == "none":
        return None
    return str(pkg)


def os_install(manager: str, pkg: str) -> str:
    """The command that installs `pkg` with an OS package manager."""
    return {
        "apt": f"sudo apt install {pkg}",
        "dnf": f"sudo dnf install {pkg}",
        "pacman": f"sudo pacman -S {pkg}",
        "zypper": f"sudo zypper install {pkg}",
        "apk": f"sudo apk add {pkg}",
        "brew": f"brew install {pkg}",
        "winget": f"winget install -e --id {pkg}",
        "scoop": f"scoop install {pkg}",
        "choco": f"choco install {pkg} -y",
    }[manager]


def lang_install(manager: str, pkg: str, case: Case) -> str:
    """The command that installs `pkg` with a language package manager."""
    if manager == "pip":
        return f"pip install {pkg}"
    if manager == "npm":
        return f"npm install -g {pkg}"
    if manager == "cargo":
        return f"cargo install {pkg}"
    if manager == "go":
        return f"go install {pkg}@latest"
    return f"gem install {pkg}"


_MAC_HINTS = (
    "/users/",
    "/opt/homebrew",
    "/usr/local/cellar",
    "darwin",
    "macos",
    ".zshrc",
    "/library/",
)


def looks_like_macos(case: Case) -> bool:
    """True when the output or script shows macOS paths (whatever machine runs the rules)."""
    text = case.lower + " " + case.script.lower()
    return any(h in text for h in _MAC_HINTS)


def posix_manager(case: Case) -> str:
    """The OS manager for a POSIX shell: hinted by the output, else this machine's."""
    low = case.lower
    for hint, mgr in (
        ("sudo apt", "apt"),
        ("apt-get install", "apt"),
        ("dnf install", "dnf"),
        ("yum install", "dnf"),
        ("pacman -s", "pacman"),
        ("brew install", "brew"),
    ):
        if hint in low:
            return mgr
    if looks_like_macos(case):
        return "brew"
    mgr = env.system_manager()
    return "apt" if mgr == "winget" else mgr


def install_commands(case: Case, name: str) -> list[tuple[str, str]]:
    """(command, explanation) pairs that install the tool `name`, best first."""
    found = tool_entry(name)
    if not found:
        return []
    key, entry = found
    out: list[tuple[str, str]] = []
    langs = [(m, lang_install(m, p, case)) for m in LANG_MANAGERS if (p := package_for(entry, m))]
    if case.windows:
        managers = ["winget", "scoop", "choco"]
    else:
        managers = [posix_manager(case)]
        # zsh is macOS's default shell: Homebrew is the likely second guess there.
        if case.shell_name == "zsh" and managers[0] != "brew":
            managers.append("brew")
    oss: list[tuple[str, str]] = []
    for mgr in managers:
        pkg = package_for(entry, mgr) if mgr != "winget" else entry.get("winget")
        if pkg and pkg != "none":
            oss.append((mgr, os_install(mgr, pkg)))
    prefer_lang = bool(langs) and (not oss or entry.get("prefer") in LANG_MANAGERS)
    ordered = langs + oss if prefer_lang else oss + langs
    for mgr, command in ordered:
        out.append((command, f"Install {key} with {mgr}: '{name}' is not installed."))
    if any(m == "pip" for m, _ in langs):
        pkg = entry["pip"]
        out.append((f"pipx install {pkg}", f"Install {key} as an isolated app with pipx."))
    if not case.windows:
        for extra in entry.get("extra", []) or []:
            out.append((str(extra), f"Install {key} with its official installer."))
    return out
