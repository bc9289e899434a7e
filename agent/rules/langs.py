"""Other languages' package managers: Rust crates, Go modules, Ruby gems, PHP composer, conda."""

from __future__ import annotations

import re

from termwise.agent.rules.engine import Case, rule


@rule("rust_missing_crate", "Add the crate the code uses to Cargo.toml.", priority=7)
def rust_crate(c: Case) -> list[str]:
    names = re.findall(
        r"(?:unresolved import|use of undeclared (?:crate or module|crate)|can't find crate for) `(\w+)",
        c.output,
    )
    names = [n for n in dict.fromkeys(names) if n not in ("crate", "self", "super", "std", "core")]
    return [f"cargo add {n.replace('_', '-')}" for n in names[:2]]


@rule("go_get_printed", "Fetch the module Go says is missing.", priority=6)
def go_get(c: Case) -> list[str]:
    found = re.findall(r"^\s+(go get [^\s]+)\s*$", c.output, re.M)
    if found:
        return [*found[:2], c.then("go mod tidy", c.script)]
    return []


@rule("ruby_missing_gem", "Install the gem (or the bundle).", priority=7)
def ruby(c: Case) -> list[str]:
    if re.search(
        r"Could not find gem '[^']+'|Run `bundle install` to install missing gems", c.output
    ):
        return ["bundle install"]
    m = c.search(r"cannot load such file -- ([\w/-]+) \(LoadError\)")
    return [f"gem install {m.group(1).split('/')[0]}"] if m else []


@rule("php_composer_install", "The PHP dependencies are not installed.", priority=7)
def composer(c: Case) -> list[str]:
    if not re.search(
        r"vendor[/\\]autoload\.php.*(?:No such file|Failed to open stream|failed to open stream)",
        c.output,
        re.S,
    ):
        return []
    return ["composer install"]


@rule("conda_init", "The shell is not set up for `conda activate` yet.", priority=5)
def conda_init(c: Case) -> list[str]:
    if "Your shell has not been properly configured to use 'conda activate'" not in c.output and (
        "conda init" not in c.output or not c.is_app("conda")
    ):
        return []
    shell = {"powershell": "powershell", "pwsh": "powershell", "cmd": "cmd.exe"}.get(
        c.shell_name, c.shell_name
    )
    if shell in ("sh", "wsl", "ksh"):
        shell = "bash"
    return [
        f"conda init {shell}",
        'eval "$(conda shell.bash hook)"' if c.posix else f"conda init {shell}",
    ]


@rule("conda_env_missing", "No such conda environment: create it, or list the ones there are.", 7)
def conda_env(c: Case) -> list[str]:
    m = c.search(r"Could not find conda environment: (\S+)") or c.search(
        r"EnvironmentNameNotFound: .*?: (\S+)"
    )
    if not m:
        return []
    return [f"conda create -n {m.group(1)} python", "conda env list"]


@rule("node_engine_version", "This project needs another Node version.", priority=7)
def node_engine(c: Case) -> list[str]:
    m = c.search(r'The engine "node" is incompatible with this module\. Expected version "([^"]+)"')
    if not m:
        m = c.search(r"Unsupported engine.*?required: \{[^}]*node: '([^']+)'", re.S | re.M)
    if not m:
        return []
    version = re.search(r"\d+", m.group(1))
    v = version.group(0) if version else "lts"
    return [c.then(f"nvm install {v}", f"nvm use {v}")]


@rule("python_libgl", "OpenCV needs libGL: install it, or use the headless build.", priority=6)
def libgl(c: Case) -> list[str]:
    if "libGL.so.1: cannot open shared object file" not in c.output:
        return []
    return ["pip install opencv-python-headless", "sudo apt install libgl1"]


@rule("pip_scripts_not_on_path", "pip installed the command into a folder not on PATH.", priority=9)
def scripts_path(c: Case) -> list[str]:
    m = c.search(r"installed in '([^']+)' which is not on PATH")
    if not m:
        return []
    folder = m.group(1)
    if c.powershell:
        return [f'$env:Path += ";{folder}"']
    if c.cmd:
        return [f'setx PATH "%PATH%;{folder}"']
    return [f'export PATH="{folder}:$PATH"']
