"""Other languages' package managers: Rust crates, Go modules, Ruby gems, PHP composer, conda."""

from __future__ import annotations

import re

from termwise.agent.rules import data, fuzzy
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.python import LOCAL_MODULES


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
    found = re.findall(r"^[ \t]+(go get [^\s]+)\s*$", c.output, re.M)
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
        r"EnvironmentNameNotFound: [^\n]{0,300}?: (\S+)"
    )
    if not m:
        return []
    return [f"conda create -n {m.group(1)} python", "conda env list"]


@rule("node_engine_version", "This project needs another Node version.", priority=7)
def node_engine(c: Case) -> list[str]:
    m = c.search(r'The engine "node" is incompatible with this module\. Expected version "([^"]+)"')
    if not m:
        m = c.search(
            r"Unsupported engine.{0,600}?required: \{[^}]{0,300}node: '([^']+)'", re.S | re.M
        )
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


@rule(
    "pip_scripts_not_on_path",
    "pip installed the command into a folder not on PATH.",
    priority=9,
    on_success=True,
)
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


@rule("py_local_module", "The module is your project's own code: run from the project root.", 5)
def local_module(c: Case) -> list[tuple[str, str]]:
    m = c.search(r"No module named '([\w.]+)'")
    if not m or m.group(1).split(".")[0] not in LOCAL_MODULES:
        return []
    if c.powershell:
        run = f'$env:PYTHONPATH = "."; {c.script}'
    elif c.cmd:
        run = f"set PYTHONPATH=. && {c.script}"
    else:
        run = f"PYTHONPATH=. {c.script}"
    out = [(run, "Let Python find the project's packages from this folder.")]
    script = next((a for a in c.args if a.endswith(".py")), None)
    if script and c.app.startswith(("python", "py")):
        module = script.removesuffix(".py").replace("/", ".").replace("\\", ".").lstrip(".")
        out.append(
            (c.replace_word(script, f"-m {module}"), "Run the file as a module of its package.")
        )
    out.append(("pip install -e .", "Install the project itself in editable mode."))
    return out


@rule("py_relative_import", "Relative imports need the file to run as part of its package.", 6)
def relative_import(c: Case) -> list[str]:
    if "attempted relative import with no known parent package" not in c.output:
        return []
    script = next((a for a in c.args if a.endswith(".py")), None)
    if not script:
        return []
    module = script.removesuffix(".py").replace("/", ".").replace("\\", ".").lstrip(".")
    return [c.replace_word(script, f"-m {module}")]


@rule("py2_code", "This is Python 2 code.", priority=8)
def python2(c: Case) -> list[str]:
    if "Missing parentheses in call to 'print'" not in c.output or not c.app.startswith("python"):
        return []
    script = next((a for a in c.args if a.endswith(".py")), None)
    return [c.replace_word(c.parts[0], "python2"), f"2to3 -w {script}" if script else ""]


@rule("py_compiler_missing", "Building this package needs a C compiler and Python headers.", 7)
def compiler_missing(c: Case) -> list[str]:
    if not re.search(
        r"command '[\w./-]*gcc' failed|error: command 'cc' failed|unable to execute '[\w./-]*gcc'|gyp ERR![^\n]{0,300}not found: make",
        c.output,
    ):
        return []
    if c.windows:
        return ["winget install -e --id Microsoft.VisualStudio.2022.BuildTools"]
    return ["sudo apt install build-essential python3-dev"]


@rule("java_home_missing", "JAVA_HOME is not set: install a JDK, or point JAVA_HOME at it.", 7)
def java_home(c: Case) -> list[str]:
    if (
        "JAVA_HOME is not set" not in c.output
        and "JAVA_HOME is set to an invalid directory" not in c.output
    ):
        return []
    if c.powershell:
        return [
            "winget install -e --id Microsoft.OpenJDK.21",
            "$env:JAVA_HOME = (Split-Path (Split-Path (Get-Command java).Source))",
        ]
    if c.cmd:
        return ["winget install -e --id Microsoft.OpenJDK.21"]
    return [
        'export JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"',
        "sudo apt install default-jdk",
    ]


@rule("dotnet_tool_missing", "That dotnet command is a separate tool: install it.", priority=6)
def dotnet_tool(c: Case) -> list[str]:
    m = c.search(r"(dotnet-[\w-]+) does not exist")
    if not m or not c.is_app("dotnet"):
        return []
    if fuzzy.closest(m.group(1)[len("dotnet-") :], data.subcommands("dotnet"), n=1):
        return []  # a slip of a built-in command (`dotnet biuld`), not a tool to install
    return [c.then(f"dotnet tool install --global {m.group(1)}", c.script)]


@rule("rust_no_toolchain", "rustup has no default toolchain yet.", priority=5)
def rust_toolchain(c: Case) -> list[str]:
    if (
        "no default toolchain configured" not in c.output
        and "rustup could not choose a version" not in c.output
    ):
        return []
    return [c.then("rustup default stable", c.script)]


@rule("node_esm_import", "The file uses ES modules: tell Node so.", priority=7)
def esm(c: Case) -> list[str]:
    if "Cannot use import statement outside a module" not in c.output:
        return []
    return [c.then("npm pkg set type=module", c.script)]


@rule("configure_missing", "The configure script is generated: run autoreconf first.", 8)
def configure(c: Case) -> list[str]:
    if not c.script.startswith("./configure") or "No such file or directory" not in c.output:
        return []
    return [c.then("autoreconf -fi", c.script), c.then("./autogen.sh", c.script)]


@rule("sh_not_bash", "The script uses bash features: run it with bash.", priority=7)
def sh_bash(c: Case) -> list[str]:
    if not c.is_app("sh", "dash") or not re.search(
        r"Syntax error: .* unexpected|\[\[: not found|source: not found", c.output
    ):
        return []
    return [re.sub(r"^[ \t]*(?:/bin/)?(?:sh|dash)\b", "bash", c.script, count=1)]


@rule("spacy_model_missing", "spaCy language models are downloaded by spaCy itself.", priority=5)
def spacy_model(c: Case) -> list[str]:
    m = c.search(r"(?:No module named '|Can't find model ')([a-z]{2}_core_\w+)")
    if not m:
        return []
    py = "py" if c.windows else "python3" if c.posix else "python"
    return [f"{py} -m spacy download {m.group(1)}"]


@rule("java_public_class_file", "A public Java class lives in a file named after it.", priority=6)
def java_class_file(c: Case) -> list[str]:
    m = c.search(r"class (\w+) is public, should be declared in a file named (\w+\.java)")
    source = next((a for a in c.args if a.endswith(".java")), None)
    if not m or not source or not c.is_app("java", "javac"):
        return []
    wanted = source[: len(source) - len(re.split(r"[\\/]", source)[-1])] + m.group(2)
    move = f"Rename-Item {source} {m.group(2)}" if c.powershell else f"mv {source} {wanted}"
    if c.cmd:
        move = f"ren {source} {m.group(2)}"
    return [c.then(move, c.replace_word(source, wanted))]
