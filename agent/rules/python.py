"""Python: missing modules, missing pip/python, externally-managed installs, venvs, scripts."""

from __future__ import annotations

import re

from termwise.agent.rules import data, env
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.not_found import missing_command, typed_word

# Names that are almost always the project's own code, not a PyPI package.
LOCAL_MODULES = {
    "src",
    "app",
    "utils",
    "util",
    "config",
    "settings",
    "tests",
    "test",
    "main",
    "models",
    "core",
    "lib",
    "common",
    "helpers",
    "api",
    "modules",
    "scripts",
    "package",
    "mypackage",
    "myapp",
    "project",
}


def pip_package(module: str) -> str:
    """The pip package for an import name (`a.b` → top package; unknown names map to themselves)."""
    table = data.import_packages()
    if module in table:
        return table[module]
    top = module.split(".")[0]
    return table.get(top, top)


def _python(c: Case) -> str:
    """The interpreter the user ran (python, python3, py …), or the shell's usual one."""
    if c.app.startswith("python") or c.app == "py":
        return c.parts[0] if c.parts and not c.parts[0].startswith(("sudo", "env")) else c.app
    return "py" if c.windows else "python3"


def _pip(c: Case) -> str:
    return f"{_python(c)} -m pip"


@rule("py_missing_module", "Install the package that provides the missing module.", priority=6)
def missing_module(c: Case) -> list[tuple[str, str]]:
    m = c.search(r"No module named ['\"]?([\w.]+)['\"]?")
    if not m:
        cannot = c.search(r"ImportError: cannot import name '?(\w+)'? from '([\w.]+)'")
        if cannot and cannot.group(2).split(".")[0] not in LOCAL_MODULES:
            pkg = pip_package(cannot.group(2))
            return [
                (
                    f"pip install --upgrade {pkg}",
                    f"Your {pkg} is too old (or too new) to have {cannot.group(1)}.",
                )
            ]
        return []
    if "No module named pip" in c.output:
        return []
    module = m.group(1)
    if module.split(".")[0] in LOCAL_MODULES:
        return []  # the project's own code: py_local_module
    if module in ("venv", "ensurepip", "distutils", "_tkinter", "tkinter", "_ctypes", "_ssl"):
        return _stdlib_missing(c, module)
    pkg = pip_package(module)
    why = f"Install {pkg}, which provides the '{module.split('.')[0]}' module."
    return [
        (f"pip install {pkg}", why),
        (c.then(f"pip install {pkg}", c.script), why + " Then run it again."),
        (f"{_pip(c)} install {pkg}", why + " (for this interpreter)"),
    ]


def _stdlib_missing(c: Case, module: str) -> list[tuple[str, str]]:
    pkg = {
        "venv": "python3-venv",
        "ensurepip": "python3-venv",
        "distutils": "python3-setuptools",
        "_tkinter": "python3-tk",
        "tkinter": "python3-tk",
    }.get(module)
    if module == "distutils":
        return [
            (
                "pip install setuptools",
                "distutils left the standard library in 3.12; setuptools brings it back.",
            )
        ]
    if not pkg or c.windows:
        return []
    return [(f"sudo apt install {pkg}", f"Debian/Ubuntu ship '{module}' separately.")]


@rule("py_pip_missing", "Run pip through the Python interpreter.", priority=7)
def pip_missing(c: Case) -> list[tuple[str, str]]:
    name = missing_command(c)
    if name not in ("pip", "pip3"):
        if "No module named pip" in c.output:
            return _no_pip_module(c)
        return []
    word = typed_word(c, name) or name
    out = []
    if c.windows:
        out.append(
            (
                c.replace_word(word, "py -m pip"),
                "The Python launcher reaches pip even when pip is not on PATH.",
            )
        )
        out.append((c.replace_word(word, "python -m pip"), "Run pip as a module of python."))
    else:
        out.append((c.replace_word(word, "python3 -m pip"), "Run pip as a module of python3."))
        out.append(("sudo apt install python3-pip", "Install pip for the system Python."))
        out.append(("python3 -m ensurepip --upgrade", "Bootstrap pip into this Python."))
    return out


def _no_pip_module(c: Case) -> list[tuple[str, str]]:
    if c.windows:
        return [("py -m ensurepip --upgrade", "Bootstrap pip into this Python.")]
    return [
        ("sudo apt install python3-pip", "Install pip for the system Python."),
        (f"{_python(c)} -m ensurepip --upgrade", "Bootstrap pip into this Python."),
    ]


@rule("py_python_missing", "Use the name Python has on this system.", priority=9)
def python_missing(c: Case) -> list[tuple[str, str]]:
    name = missing_command(c)
    store = (
        "Python was not found; run without arguments to install from the Microsoft Store"
        in c.output
    )
    env_m = c.search(r"env: [‘'`]?(python[\d.]*)[’']?: No such file or directory")
    if env_m and not c.script.startswith("python"):
        return [
            (
                f"python3 {c.script}" if not c.script.startswith("python") else c.script,
                "Run the script with python3 explicitly.",
            ),
            ("sudo apt install python-is-python3", "Make `python` mean python3 system-wide."),
        ]
    if name not in ("python", "python3", "py") and not store:
        return []
    guess = name or (c.app if c.app.lower().startswith("python") else "python")
    word = typed_word(c, guess) or guess
    if c.windows:
        out = []
        if word.lower() != "py":
            out.append(
                (
                    c.replace_word(word, "py"),
                    "The Python launcher (py) is installed with Python for Windows.",
                )
            )
        if word.lower() == "python3":
            out.append((c.replace_word(word, "python"), "On Windows, Python 3 is called python."))
        out.append(("winget install -e --id Python.Python.3.12", "Install Python."))
        return out
    if word == "python":
        return [(c.replace_word(word, "python3"), "On this system Python 3 is called python3.")]
    if word == "python3":
        return [(c.replace_word(word, "python"), "Python 3 may be installed as `python`.")]
    return []


@rule("py_externally_managed", "The system Python is managed by the OS: use a venv or pipx.", 5)
def externally_managed(c: Case) -> list[tuple[str, ...]]:
    if "externally-managed-environment" not in c.output and "externally managed" not in c.lower:
        return []
    pkgs = [a for a in c.args if not a.startswith("-") and a not in ("install", "-m", "pip")]
    pkgs = [a for a in pkgs if not a.startswith("pip")]
    target = " ".join(pkgs)
    install = f"pip install {target}".strip()
    if c.windows:
        venv = c.then("py -m venv .venv", ".venv\\Scripts\\activate", install)
    else:
        venv = c.then("python3 -m venv .venv", ". .venv/bin/activate", install)
    out: list[tuple[str, ...]] = [(venv, "Create a virtual environment here and install into it.")]
    if pkgs:
        out.append(
            (
                f"pipx install {pkgs[0]}",
                "For a command-line app: pipx gives it its own environment.",
            )
        )
        out.append(
            (
                f"sudo apt install python3-{pkgs[0].lower()}",
                "Install the distribution's packaged version.",
            )
        )
    out.append(
        (
            c.script + " --break-system-packages",
            "Force it into the system Python (may break OS tools).",
            "Can break tools of the operating system that rely on its own Python packages.",
        )
    )
    return out


@rule("py_add_extension", "The script file ends in .py.", priority=8)
def add_py(c: Case) -> list[str]:
    m = c.search(r"can't open file '([^']+)': \[Errno 2\]")
    if not m or not c.args:
        return []
    target = next((a for a in c.args if not a.startswith("-")), "")
    if not target or target.endswith(".py") or "." in target.rsplit("/", 1)[-1]:
        return []
    return [c.replace_word(target, target + ".py")]


@rule("py_no_version", "No such package on PyPI: use the real package name, or upgrade pip.", 10)
def no_version(c: Case) -> list[tuple[str, str]]:
    m = c.search(r"No matching distribution found for ([\w.\-\[\]]+)") or c.search(
        r"Could not find a version that satisfies the requirement ([\w.\-\[\]]+)"
    )
    if not m:
        return []
    req = m.group(1)
    out = []
    real = data.import_packages().get(req) or data.import_packages().get(req.lower())
    if real and real != req:
        out.append(
            (c.replace_word(req, real), f"'{req}' is the import name; the package is {real}.")
        )
    out.append(
        (
            c.then(f"{_pip(c)} install --upgrade pip", c.script),
            "An old pip cannot see newer wheels.",
        )
    )
    out.append((f"{_pip(c)} index versions {req}", "List the versions that exist for this Python."))
    return out


@rule("py_sklearn_deprecated", "The package is published under a different name.", priority=5)
def renamed_package(c: Case) -> list[str]:
    m = c.search(r"The '(\S+)' PyPI package is deprecated, use '(\S+)'")
    return [c.replace_word(m.group(1), m.group(2))] if m else []


@rule("py_requirements_file", "The requirements file is called requirements.txt.", priority=6)
def requirements_file(c: Case) -> list[str]:
    m = c.search(
        r"Could not open requirements file: \[Errno 2\] No such file or directory: '([^']+)'"
    )
    if not m:
        return []
    typed = m.group(1)
    base = env.base_dir(c.cwd)
    if base is not None:  # what this project has: requirements-dev.txt, requirements/base.txt …
        here = [
            n for n in env.listing(base) if re.fullmatch(r"(?i)requirements[\w.-]*\.(?:txt|in)", n)
        ]
        below = [
            f"requirements/{n}" for n in env.listing(base / "requirements") if n.endswith(".txt")
        ]
        found = [f for f in here + below if f != typed]
        if found:
            return [c.replace_word(typed, f) for f in found[:3]]
        if (base / "pyproject.toml").exists() or (base / "setup.py").exists():
            return [re.sub(r"(?:-r|--requirement)\s+\S+", "-e .", c.script, count=1)]
    return [] if typed == "requirements.txt" else [c.replace_word(typed, "requirements.txt")]


@rule("py_venv_ensurepip", "Install the venv module the OS ships separately.", priority=5)
def venv_ensurepip(c: Case) -> list[str]:
    if "ensurepip is not" not in c.output:
        return []
    m = c.search(r"apt(?:-get)? install (python3[\d.]*-venv)")
    pkg = m.group(1) if m else "python3-venv"
    return [c.then(f"sudo apt install {pkg}", c.script)]


@rule("py_build_tools", "Compiling this package needs a C/C++ toolchain.", priority=12)
def build_tools(c: Case) -> list[tuple[str, str]]:
    if "Microsoft Visual C++ 14.0 or greater is required" in c.output:
        return [
            (
                "winget install -e --id Microsoft.VisualStudio.2022.BuildTools",
                "Install the MSVC build tools (choose 'Desktop development with C++').",
            )
        ]
    m = c.search(r"fatal error: (Python\.h): No such file or directory")
    if m:
        return [("sudo apt install python3-dev", "Python's C headers live in python3-dev.")]
    return []


@rule("py_activate_for_shell", "Activate the venv the way this shell does it.", priority=6)
def activate_for_shell(c: Case) -> list[str]:
    m = re.match(
        r"^[ \t]*(?:(?:source|\.)\s+)?(?:\.[/\\])?([\w.\-/\\]*?)[/\\]bin[/\\]activate(?:\.ps1|\.bat)?\s*$",
        c.script,
    )
    if not m:
        return []
    venv = m.group(1) or ".venv"
    if c.shell_name == "fish":  # the bash script fails there; venv ships one for fish
        return [f"source {venv}/bin/activate.fish"]
    if not c.windows:
        return []
    if c.powershell:
        return [f"{venv}\\Scripts\\Activate.ps1", f"& {venv}\\Scripts\\Activate.ps1"]
    return [f"{venv}\\Scripts\\activate.bat"]


@rule(
    "py_psycopg2_binary",
    "psycopg2 needs PostgreSQL headers to build; the binary wheel does not.",
    6,
)
def psycopg2_binary(c: Case) -> list[str]:
    if "pg_config executable not found" not in c.output or "psycopg2" not in c.script:
        return []
    return [c.replace_word("psycopg2", "psycopg2-binary")]


@rule(
    "py_venv_missing", "The virtual environment does not exist yet: create it, then activate it.", 7
)
def venv_missing(c: Case) -> list[str]:
    m = re.match(r"^\s*(?:source|\.)\s+(\S+?)/bin/activate\s*$", c.script)
    if not m or not c.posix or "No such file or directory" not in c.output:
        return []
    venv = m.group(1)
    other = {"venv": ".venv", ".venv": "venv", "env": ".venv"}.get(venv)
    out = [c.then(f"python3 -m venv {venv}", c.script)]
    if other:
        out.append(c.script.replace(f"{venv}/bin", f"{other}/bin", 1))
    return out
