"""Files and folders, including corrections against the real listing of a folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from termwise.agent.rules import suggest_fixes
from termwise.agent.rules.files import nearest_path

from tests.agent.rules.cases_files import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_files_table(case: T) -> None:
    """Each file or folder mistake yields the command that does what was meant."""
    check(case)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for d in ("projects/termwise/src", "projects/website", "Downloads", "Documents"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "projects" / "termwise" / "setup.py").write_text("")
    return tmp_path


def test_cd_typo_goes_to_the_nearest_existing_folder(tree: Path) -> None:
    """`cd projcts` in a folder that has `projects` suggests `cd projects` first."""
    got = suggest_fixes(
        "cd projcts", "bash: cd: projcts: No such file or directory", 1, "bash", cwd=str(tree)
    )
    assert got[0].command == "cd projects"
    assert "mkdir -p projcts && cd projcts" in [s.command for s in got]


def test_cd_corrects_every_component(tree: Path) -> None:
    """Each wrong part of a nested path is corrected against its own parent's listing."""
    got = suggest_fixes(
        "cd projets/termwse/scr",
        "cd: no such file or directory: projets/termwse/scr",
        1,
        "zsh",
        cwd=str(tree),
    )
    assert got[0].command == "cd projects/termwise/src"


def test_cd_absolute_path_uses_the_real_parent(tree: Path) -> None:
    """An absolute path is corrected against the filesystem, whatever the cwd."""
    typed = str(tree / "Downlods")
    if sys.platform == "win32":  # a C:\ path is PowerShell's (bash would eat the backslashes)
        error = f"Set-Location: Cannot find path '{typed}' because it does not exist."
        got = suggest_fixes(f"cd {typed}", error, 1, "powershell")
    else:
        got = suggest_fixes(f"cd {typed}", f"bash: cd: {typed}: No such file or directory", 1)
    assert got[0].command == f"cd {tree / 'Downloads'}"


def test_cd_case_mistake_on_windows(tree: Path) -> None:
    """A wrong letter case is a mistake worth fixing too (where case matters)."""
    if (tree / "documents").is_dir():
        pytest.skip("case-insensitive file system: `documents` is `Documents`, nothing to fix")
    assert nearest_path("documents", str(tree)) == "Documents"


def test_no_close_folder_means_only_mkdir(tree: Path) -> None:
    """With nothing similar, the only suggestion is to create the folder."""
    got = suggest_fixes(
        "cd zzqq", "bash: cd: zzqq: No such file or directory", 1, "bash", cwd=str(tree)
    )
    assert [s.command for s in got][:1] == ["mkdir -p zzqq && cd zzqq"]
    assert not any(s.command.startswith("cd ") for s in got)


def test_file_typo_in_argument(tree: Path) -> None:
    """A misspelled file argument is corrected to the existing file next to it."""
    got = suggest_fixes(
        "python projects/termwise/setpu.py",
        "python: can't open file '/x/projects/termwise/setpu.py': [Errno 2] No such file or directory",
        2,
        "bash",
        cwd=str(tree),
    )
    assert "python projects/termwise/setup.py" in [s.command for s in got]


def test_grep_arguments_swapped(tree: Path) -> None:
    """`grep FILE PATTERN` (file first) is turned around when the first word is a real file."""
    (tree / "notes.txt").write_text("todo\n")
    got = suggest_fixes(
        "grep notes.txt todo", "grep: todo: No such file or directory", 2, "bash", cwd=str(tree)
    )
    assert got[0].command == "grep todo notes.txt"


def test_program_in_this_folder(tree: Path) -> None:
    """A program that sits in the current folder is run with ./ (or .\\ on Windows)."""
    (tree / "server").write_text("")
    got = suggest_fixes(
        "server --port 80", "bash: server: command not found", 127, "bash", cwd=str(tree)
    )
    assert "./server --port 80" in [s.command for s in got]
    got = suggest_fixes(
        "server",
        "'server' is not recognized as an internal or external command,",
        1,
        "cmd",
        cwd=str(tree),
    )
    assert ".\\server" in [s.command for s in got]


def test_script_found_in_a_subfolder(tree: Path) -> None:
    """`./deploy.sh` that lives in scripts/ is found there."""
    (tree / "scripts").mkdir()
    (tree / "scripts" / "deploy.sh").write_text("#!/bin/sh\n")
    got = suggest_fixes(
        "./deploy.sh prod",
        "bash: ./deploy.sh: No such file or directory",
        127,
        "bash",
        cwd=str(tree),
    )
    assert "./scripts/deploy.sh prod" in [s.command for s in got]


def test_importing_the_rules_reads_nothing() -> None:
    """No I/O at import: data files, PATH and the distribution are read on first use only."""
    import subprocess
    import sys

    code = (
        "import termwise.agent.rules as r\n"
        "from termwise.agent.rules import data, env\n"
        "print(data.load.cache_info().currsize, env._programs_in.cache_info().currsize,"
        " env._detected_manager.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["0", "0", "0"], out.stderr


def test_python_script_in_a_subfolder(tree: Path) -> None:
    """`python manage.py` run one folder too high suggests cd-ing into the project first."""
    (tree / "projects" / "website" / "manage.py").write_text("")
    got = suggest_fixes(
        "python manage.py runserver",
        "python: can't open file '/x/manage.py': [Errno 2] No such file or directory",
        2,
        "bash",
        cwd=str(tree),
    )
    assert "cd projects/website && python manage.py runserver" in [s.command for s in got]


def test_without_a_cwd_this_process_folder_is_not_used(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Relative names are only corrected against the session's cwd, never the helper's own."""
    monkeypatch.chdir(tree)
    got = suggest_fixes("cd projcts", "bash: cd: projcts: No such file or directory", 1)
    assert [s.command for s in got][:1] == ["mkdir -p projcts && cd projcts"]
    assert not any(s.command.startswith("cd ") for s in got)


@pytest.mark.parametrize(
    ("script", "output", "project_file", "expected"),
    [
        (
            "npm start",
            "npm ERR! enoent ENOENT: no such file or directory, open '/x/package.json'",
            "package.json",
            "cd web/frontend && npm start",
        ),
        (
            "docker compose up",
            "no configuration file provided: not found",
            "compose.yaml",
            "cd web/frontend && docker compose up",
        ),
        (
            "make",
            "make: *** No targets specified and no makefile found.  Stop.",
            "Makefile",
            "cd web/frontend && make",
        ),
        (
            "cargo build",
            "error: could not find `Cargo.toml` in `/x` or any parent directory",
            "Cargo.toml",
            "cd web/frontend && cargo build",
        ),
        (
            "pip install -r requirements.txt",
            "ERROR: Could not open requirements file: [Errno 2] No such file or directory: 'requirements.txt'",
            "requirements.txt",
            "cd web/frontend && pip install -r requirements.txt",
        ),
    ],
)
def test_project_found_in_a_subfolder(
    tree: Path, script: str, output: str, project_file: str, expected: str
) -> None:
    """A command run above its project suggests cd-ing into the folder that has the project file."""
    (tree / "web" / "frontend").mkdir(parents=True)
    (tree / "web" / "frontend" / project_file).write_text("")
    got = suggest_fixes(script, output, 1, "bash", cwd=str(tree))
    assert got[0].command == expected


@pytest.mark.parametrize(
    ("script", "said", "fixed"),
    [
        (
            "git add sr/app.py",
            "fatal: pathspec 'sr/app.py' did not match any files",
            "git add src/app.py",
        ),
        (
            "python scr/app.py",
            "python: can't open file '{cwd}/scr/app.py': [Errno 2] No such file or directory",
            "python src/app.py",
        ),
        ("cat scr/ap.py", "cat: scr/ap.py: No such file or directory", "cat src/app.py"),
        ("pytest test/", "ERROR: file or directory not found: test/", "pytest tests/"),
        (
            "python app.py",
            "python: can't open file '{cwd}/app.py': [Errno 2] No such file or directory",
            "cd src && python app.py",
        ),
    ],
)
def test_a_mistyped_path_is_mended_folder_by_folder(
    tmp_path: Path, script: str, said: str, fixed: str
) -> None:
    """Wrong folders and a wrong name in one path are both corrected against what exists."""
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "app.py").write_text("")
    (tmp_path / "README.md").write_text("")
    got = suggest_fixes(script, said.format(cwd=tmp_path), 1, "bash", cwd=str(tmp_path))
    assert got and got[0].command == fixed, [s.command for s in got]


def test_a_missing_requirements_file_points_at_the_ones_the_project_has(tmp_path: Path) -> None:
    """No requirements.txt: the project's requirements-dev.txt, or its pyproject, instead."""
    said = "ERROR: Could not open requirements file: [Errno 2] No such file or directory: 'requirements.txt'"
    (tmp_path / "requirements-dev.txt").write_text("pytest\n")
    got = suggest_fixes("pip install -r requirements.txt", said, 1, "bash", cwd=str(tmp_path))
    assert got and got[0].command == "pip install -r requirements-dev.txt"
    (tmp_path / "requirements-dev.txt").unlink()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    got = suggest_fixes("pip install -r requirements.txt", said, 1, "bash", cwd=str(tmp_path))
    assert got and got[0].command == "pip install -e ."
