"""Python project set-up: venvs without ensurepip, native build deps, poetry/uv project
files, editable installs, folders run as scripts, and services a program cannot reach."""

from __future__ import annotations

import re

from termwise.agent.rules import env
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.install import os_install


@rule("py_venv_no_pip", "The OS ships venv's pip bootstrap separately.", priority=6)
def venv_no_pip(c: Case) -> list[tuple[str, str]]:
    if not c.posix or not c.search(r"'-m', 'ensurepip'[^\n]{0,300}?returned non-zero exit status"):
        return []
    out = []
    if env.system_manager() == "apt":
        out.append((c.then("sudo apt install python3-venv", c.script), "Install python3-venv."))
    out.append(
        (
            c.script.replace(" venv ", " venv --without-pip ", 1)
            if " venv " in c.script
            else f"{c.script} --without-pip",
            "Create it without pip (add pip later with get-pip.py).",
        )
    )
    return out


# What a source build of mysqlclient looks for, per package manager.
_MYSQLCLIENT_DEPS = {
    "apt": "pkg-config default-libmysqlclient-dev build-essential",
    "dnf": "pkgconf-pkg-config mysql-devel gcc",
    "brew": "pkg-config mysql-client",
}


@rule("py_native_headers", "Building this package needs a native library's headers.", 8)
def native_headers(c: Case) -> list[tuple[str, str]]:
    if not c.is_app("pip", "pip3") and "-m pip" not in c.script:
        return []
    if "mysqlclient" not in c.script or not c.search(
        r"Can not find valid pkg-config name|mysql_config not found"
    ):
        return []
    out = []
    manager = env.system_manager()
    deps = _MYSQLCLIENT_DEPS.get(manager)
    if deps and c.posix:
        out.append(
            (
                c.then(os_install(manager, deps), c.script),
                "Install the headers and pkg-config, then build it.",
            )
        )
    out.append(
        (c.replace_word("mysqlclient", "pymysql"), "PyMySQL: pure Python, nothing to build.")
    )
    return out


@rule("pip_old_editable", "This pip predates editable installs from pyproject.toml.", priority=7)
def old_editable(c: Case) -> list[str]:
    if "editable mode currently requires a setuptools-based build" not in c.output:
        return []
    pip = "python -m pip" if "-m pip" in c.script or c.windows else "pip"
    return [c.then(f"{pip} install --upgrade pip", c.script)]


@rule("poetry_python_version", "The project wants another Python: point poetry at one.", 6)
def poetry_python(c: Case) -> list[str]:
    m = c.search(r"Python version [\d.]+ is not supported by the project \(([^)]*)\)")
    if not c.is_app("poetry") or not m:
        return []
    v = re.search(r"(\d+)\.(\d+)", m.group(1))
    if not v:
        return []
    version = f"{v.group(1)}.{v.group(2)}"
    return [c.then(f"poetry env use python{version}", c.script)]


@rule("uv_no_project_table", "pyproject.toml has no [project] table: run without one.", 6)
def uv_no_project(c: Case) -> list[str]:
    if not c.is_app("uv") or "No `project` table found" not in c.output:
        return []
    if not c.args or c.args[0] != "run":
        return []
    return [re.sub(r"\buv run\b", "uv run --no-project", c.script, count=1)]


@rule("mypy_duplicate_module", "A build copy of the sources is checked twice: exclude it.", 6)
def mypy_duplicate(c: Case) -> list[str]:
    m = c.search(r'Duplicate module named "[^"]+" \(also at "(?:\./)?([^/"\\]+)[/\\]')
    if not c.is_app("mypy") or not m:
        return []
    return [f"{c.script} --exclude {m.group(1)}"]


@rule("py_folder_no_main", "That is a folder: run the script inside it.", priority=6)
def folder_no_main(c: Case) -> list[str]:
    m = c.search(r"can't find '__main__' module in '([^']+)'")
    base = env.base_dir(c.cwd)
    if not m or base is None or not c.is_app("python", "python3", "py"):
        return []
    typed = next((a for a in c.args if not a.startswith("-")), None)
    if typed is None or not (base / typed).is_dir():
        return []
    sep = "\\" if c.windows else "/"
    for name in ("main.py", "app.py", "run.py", "manage.py", "cli.py"):
        if (base / typed / name).is_file():
            return [c.replace_arg(typed, typed.rstrip("/\\") + sep + name)]
    return []


# Services a client reaches on their default port: the systemd unit, the Windows service
# name pattern, and a throwaway container to run instead.
_SERVICES = {
    "5432": (
        "postgresql",
        "*postgres*",
        "docker run -d -p 5432:5432 -e POSTGRES_PASSWORD=postgres postgres",
    ),
    "3306": ("mysql", "*mysql*", "docker run -d -p 3306:3306 -e MYSQL_ROOT_PASSWORD=root mysql"),
    "6379": ("redis-server", "*redis*", "docker run -d -p 6379:6379 redis"),
    "27017": ("mongod", "*mongo*", "docker run -d -p 27017:27017 mongo"),
    "5672": ("rabbitmq-server", "*rabbit*", "docker run -d -p 5672:5672 rabbitmq"),
    "9200": (
        "elasticsearch",
        "*elastic*",
        "docker run -d -p 9200:9200 -e discovery.type=single-node elasticsearch:8.15.0",
    ),
}


@rule("service_not_running", "Nothing listens on the database's port: start the service.", 7)
def service_down(c: Case) -> list[tuple[str, str]]:
    if not c.search(r"(?i)connection refused|ECONNREFUSED|actively refused it"):
        return []
    m = c.search(
        r"(?:localhost|127\.0\.0\.1|::1|\[::1\])[\"')]*[:,\s]+(?:port\s+)?(\d{4,5})\b"
        r"|\bport (\d{4,5})\b"
    )
    port = m and (m.group(1) or m.group(2))
    if not port or port not in _SERVICES:
        return []
    unit, pattern, container = _SERVICES[port]
    if c.windows:
        start = (
            f"Get-Service {pattern} | Start-Service"
            if c.powershell
            else f'powershell -Command "Get-Service {pattern} | Start-Service"'
        )
    else:
        start = f"sudo systemctl start {unit}"
    return [
        (c.then(start, c.script) if not c.cmd else start, f"Start the local {unit} service."),
        (container, "Or run one in a container, on the port the program expects."),
    ]
