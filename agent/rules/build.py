"""Build tools: make, Maven, Gradle, javac/java, cmake, cargo and go project set-up."""

from __future__ import annotations

import re

from termwise.agent.rules import env, fuzzy
from termwise.agent.rules import shell as sh
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.not_found import missing_command, typed_word


@rule("make_no_target", "No such make target: the nearest one in the Makefile.", priority=6)
def make_target(c: Case) -> list[str]:
    m = c.search(r"No rule to make target [`'‘]([^'’`]+)[’']")
    if not c.is_app("make") or not m:
        return []
    target = m.group(1)
    if target not in c.args:
        return []  # a missing prerequisite file, not a typo on the command line
    targets = env.make_targets(c.cwd) or ["all", "build", "install", "clean", "test", "run", "help"]
    return [c.replace_word(target, t) for t in fuzzy.closest(target, targets, n=2, limit=3)]


@rule("make_no_makefile", "There is no Makefile here.", priority=9)
def no_makefile(c: Case) -> list[tuple[str, str]]:
    if not c.is_app("make") or "No targets specified and no makefile found" not in c.output:
        return []
    cmake = (
        c.then("cmake -S . -B build", "cmake --build build"),
        "A CMake project: configure it, then build.",
    )
    configure = (c.then("./configure", "make"), "An autotools project: configure first.")
    base = env.base_dir(c.cwd)
    if base is None:  # the folder is unknown: the two usual reasons
        return [cmake, configure]
    names = set(env.listing(base))
    found = []
    if "CMakeLists.txt" in names:
        found.append(cmake)
    if "configure" in names:
        found.append(configure)
    elif names & {"configure.ac", "configure.in"}:
        found.append(
            (
                c.then("autoreconf -fi", "./configure", "make"),
                "An autotools project from source control: generate configure first.",
            )
        )
    if "meson.build" in names:
        found.append(
            (
                c.then("meson setup build", "meson compile -C build"),
                "A Meson project: set up a build folder, then compile.",
            )
        )
    return found


@rule("build_wrapper", "Use the project's build wrapper instead of a global install.", priority=7)
def wrapper(c: Case) -> list[tuple[str, str]]:
    name = missing_command(c)
    if name not in ("mvn", "gradle"):
        return []
    word = typed_word(c, name) or name
    w = "mvnw" if name == "mvn" else "gradlew"
    if c.powershell:
        exe = f".\\{w}.cmd" if name == "mvn" else f".\\{w}.bat"
    elif c.cmd:
        exe = f"{w}.cmd" if name == "mvn" else f"{w}.bat"
    else:
        exe = f"./{w}"
    return [
        (
            c.replace_word(word, exe),
            f"Run the project's {w} wrapper (it downloads the right {name}).",
        )
    ]


@rule("mvn_no_goal", "Maven needs a goal (a lifecycle phase).", priority=8)
def mvn_goal(c: Case) -> list[str]:
    if not c.is_app("mvn", "mvnw") or "No goals have been specified for this build" not in c.output:
        return []
    return [f"{c.script} clean install", f"{c.script} clean package", f"{c.script} package"]


@rule("cargo_new_project", "There is no Cargo.toml here.", priority=8)
def cargo_manifest(c: Case) -> list[str]:
    if not c.is_app("cargo") or "could not find `Cargo.toml`" not in c.output:
        return []
    return ["cargo init"]


@rule("go_mod_missing", "There is no go.mod: start a module.", priority=8)
def go_mod(c: Case) -> list[str]:
    if not c.is_app("go") or (
        "go.mod file not found" not in c.output and "cannot find main module" not in c.output
    ):
        return []
    return [c.then("go mod init example.com/app", c.script), c.then("go mod tidy", c.script)]


@rule("go_missing_module", "Fetch the missing Go modules.", priority=8)
def go_missing(c: Case) -> list[str]:
    if not c.is_app("go") or not re.search(
        r"cannot find module providing package|no required module provides package|missing go\.sum entry",
        c.output,
    ):
        return []
    return [c.then("go mod tidy", c.script)]


@rule("rust_linker_missing", "Rust needs a C linker.", priority=8)
def linker(c: Case) -> list[str]:
    if "linker `cc` not found" not in c.output and "linker `link.exe` not found" not in c.output:
        return []
    if c.windows or "link.exe" in c.output:
        return ["winget install -e --id Microsoft.VisualStudio.2022.BuildTools"]
    return ["sudo apt install build-essential"]


@rule("java_version_mismatch", "The class was built for a newer Java than the one running it.", 9)
def java_version(c: Case) -> list[str]:
    if "UnsupportedClassVersionError" not in c.output and "class file version" not in c.output:
        return []
    if c.windows:
        return ["winget install -e --id Microsoft.OpenJDK.21"]
    return ["sudo apt install openjdk-21-jdk"]


@rule("cmake_missing_source", "cmake needs the folder with CMakeLists.txt.", priority=9)
def cmake_source(c: Case) -> list[str]:
    if not c.is_app("cmake") or "does not appear to contain CMakeLists.txt" not in c.output:
        return []
    return ["cmake -S .. -B .", "cmake -S . -B build"]


@rule("gradle_no_task", "No such Gradle task: the nearest one.", priority=6)
def gradle_task(c: Case) -> list[str]:
    m = c.search(r"Task '([^']+)' not found in (?:root )?project")
    if not m:
        return []
    tasks = [
        "build",
        "clean",
        "test",
        "assemble",
        "check",
        "run",
        "bootRun",
        "jar",
        "tasks",
        "dependencies",
        "publish",
        "installDist",
        "assembleDebug",
        "assembleRelease",
        "installDebug",
        "lint",
    ]
    return [c.replace_word(m.group(1), t) for t in fuzzy.closest(m.group(1), tasks, n=2, limit=3)]


@rule("mvn_unknown_phase", "No such Maven phase: the nearest valid one.", priority=6)
def mvn_phase(c: Case) -> list[str]:
    m = c.search(r'Unknown lifecycle phase "([^"]+)"')
    if not m:
        return []
    phases = re.findall(
        r"\b(validate|initialize|generate-sources|process-sources|compile|test-compile|test|package|verify|install|deploy|clean|site|pre-clean|post-clean)\b",
        c.output,
    )
    phases = list(dict.fromkeys(phases)) or [
        "clean",
        "compile",
        "test",
        "package",
        "verify",
        "install",
        "deploy",
    ]
    near = fuzzy.closest(m.group(1), phases, n=2, limit=3)
    if not near and fuzzy.closest(m.group(1), ["build"], n=1):
        near = ["package"]  # Maven's "build" is `package` (compile, test, then the jar)
    return [c.replace_word(m.group(1), p) for p in near]


@rule("javac_extension", "javac needs the .java file name.", priority=6)
def javac_ext(c: Case) -> list[str]:
    m = c.search(r"Class names, '([^']+)', are only accepted if annotation processing")
    if not m or not c.is_app("javac"):
        return []
    return [c.replace_word(m.group(1), m.group(1) + ".java")]


@rule("java_class_name", "java runs a class name, not the .java/.class file.", priority=6)
def java_class(c: Case) -> list[str]:
    m = c.search(r"Could not find or load main class (\S+?)\.(java|class)\b")
    if not m or not c.is_app("java"):
        return []
    return [c.replace_word(f"{m.group(1)}.{m.group(2)}", m.group(1))]


@rule("java_release_too_new", "The build targets a newer Java than the JDK you have.", priority=7)
def java_release(c: Case) -> list[str]:
    m = c.search(r"invalid (?:target|source) release:? (\d+)") or c.search(
        r"release version (\d+) not supported"
    )
    if not m:
        return []
    v = m.group(1)
    if c.windows:
        return [f"winget install -e --id Microsoft.OpenJDK.{v}"]
    return [f"sudo apt install openjdk-{v}-jdk"]


@rule("gradle_wrapper_jar", "The Gradle wrapper jar is missing: regenerate the wrapper.", 6)
def wrapper_jar(c: Case) -> list[str]:
    if "GradleWrapperMain" not in c.output:
        return []
    return [c.then("gradle wrapper", c.script)]


# Functions whose library the C linker is not given by default, and the flag that adds it.
_C_LIBRARIES = (
    (
        r"(?:sqrt|cbrt|pow|exp2?|log(?:2|10)?|sin|cos|tan|asin|acos|atan2?|sinh|cosh|tanh|"
        r"floor|ceil|round|trunc|fmod|fabs|hypot|lround|nearbyint)f?",
        "-lm",
    ),
    (r"pthread_\w+", "-pthread"),
    (r"dl(?:open|sym|close|error)", "-ldl"),
    (r"curl_\w+", "-lcurl"),
    (r"sqlite3_\w+", "-lsqlite3"),
    (r"(?:deflate|inflate|compress|uncompress|crc32|gz\w+)(?:Init|End)?\w*", "-lz"),
    (r"(?:SSL|EVP|ERR|BIO|RAND|SHA\d*|MD5|HMAC)_\w+", "-lssl -lcrypto"),
    (r"(?:initscr|endwin|printw|mvprintw|refresh|getch|wrefresh|newwin)", "-lncurses"),
)


@rule("c_missing_library", "The linker needs the library that defines the function.", priority=6)
def c_library(c: Case) -> list[tuple[str, str]]:
    # The compile step of a chain (`gcc main.c -o main && ./main`): the linker failed there.
    step, app = next(((s, a) for s in sh.segments(c.script) if (a := _compiler(c, s))), ("", ""))
    if not step:
        return []
    missing = re.findall(r"undefined reference to [`'‘]([\w:~<>, ]+?)(?:\(.*?\))?['’]", c.output)
    missing += re.findall(r'^\s+"_?(\w+)", referenced from:', c.output, re.M)  # macOS ld
    if not missing:
        return []
    if app in _CXX_DRIVER and any(m.startswith("std::") for m in missing):
        fixed = sh.replace_word(step, app, _CXX_DRIVER[app])
        return [(c.script.replace(step, fixed, 1), "C++ code: the C++ driver links its library.")]
    flags = []
    for name in dict.fromkeys(missing):
        for pattern, flag in _C_LIBRARIES:
            if re.fullmatch(pattern, name) and flag not in flags:
                flags.append(flag)
    if not flags:
        return []
    # Libraries go after the sources that use them: the linker reads left to right.
    fixed = f"{step} {' '.join(flags)}"
    return [
        (c.script.replace(step, fixed, 1), f"Link the library that defines it ({' '.join(flags)}).")
    ]


_CXX_DRIVER = {"gcc": "g++", "cc": "c++", "clang": "clang++"}


def _compiler(c: Case, step: str) -> str:
    name = sh.program_name(sh.split(step, c.family))
    return name if name in ("gcc", "cc", "clang", "g++", "c++", "clang++") else ""
