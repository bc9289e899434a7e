"""Rules that read the session's folder: which build system is there, which git branches exist."""

from __future__ import annotations

import logging
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from termwise.agent.rules import env, suggest_fixes

NO_MAKEFILE = "make: *** No targets specified and no makefile found.  Stop."


def fixes(script: str, output: str, cwd: Path | None) -> list[str]:
    return [s.command for s in suggest_fixes(script, output, 2, "bash", cwd=cwd and str(cwd))]


BUILDERS = ("cmake", "configure", "meson")


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (["CMakeLists.txt"], "cmake -S . -B build && cmake --build build"),
        (["configure", "Makefile.in"], "./configure && make"),
        (["configure.ac"], "autoreconf -fi && ./configure && make"),
        (["meson.build"], "meson setup build && meson compile -C build"),
    ],
)
def test_make_without_a_makefile_offers_the_build_system_in_the_folder(
    tmp_path: Path, files: list[str], expected: str
) -> None:
    for name in files:
        (tmp_path / name).write_text("")
    got = fixes("make", NO_MAKEFILE, tmp_path)
    assert got[0] == expected
    others = [b for b in BUILDERS if b not in expected]
    assert not [c for c in got if any(b in c for b in others)], got


def test_make_in_a_folder_with_no_build_files_guesses_nothing(tmp_path: Path) -> None:
    (tmp_path / "main.c").write_text("")
    assert fixes("make", NO_MAKEFILE, tmp_path) == []


def test_make_without_a_makefile_and_no_folder_offers_the_usual_two() -> None:
    got = fixes("make", NO_MAKEFILE, None)
    assert got[:2] == ["cmake -S . -B build && cmake --build build", "./configure && make"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "first")
    git(root, "branch", "feature/login")
    git(root, "branch", "release")
    git(root, "pack-refs", "--all")  # `release` and the others now live in packed-refs
    git(root, "branch", "develop")
    (root / "src").mkdir()
    return root


PATHSPEC = "error: pathspec '{}' did not match any file(s) known to git"


@pytest.mark.parametrize(
    ("script", "said", "first"),
    [
        ("git checkout mian", PATHSPEC.format("mian"), "git checkout main"),
        ("git checkout devlop", PATHSPEC.format("devlop"), "git checkout develop"),
        ("git checkout relase", PATHSPEC.format("relase"), "git checkout release"),
        (
            "git switch feature/logn",
            "fatal: invalid reference: feature/logn",
            "git switch feature/login",
        ),
    ],
)
def test_a_mistyped_branch_is_corrected_to_one_that_exists(
    repo: Path, script: str, said: str, first: str
) -> None:
    got = fixes(script, said, repo / "src")  # from a subfolder: the repository is above
    assert got[0] == first
    assert any("-b " in c or "-c " in c for c in got[1:])  # creating it is still offered


def test_a_new_branch_name_is_offered_only_as_a_new_branch(repo: Path) -> None:
    got = fixes("git checkout payments", PATHSPEC.format("payments"), repo)
    assert got == ["git checkout -b payments", "git switch -c payments"]


def test_branches_of_a_worktree_are_read_from_the_main_repository(repo: Path) -> None:
    tree = repo.parent / "wt"
    git(repo, "worktree", "add", "-q", str(tree), "develop")
    got = fixes("git checkout relese", PATHSPEC.format("relese"), tree)
    assert got[0] == "git checkout release"


def test_a_remote_branch_counts_by_its_short_name(repo: Path) -> None:
    clone = repo.parent / "clone"
    git(repo.parent, "clone", "-q", str(repo), str(clone))
    got = fixes("git checkout feature/lgin", PATHSPEC.format("feature/lgin"), clone)
    assert got[0] == "git checkout feature/login"  # git makes the tracking branch itself


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    dot_git=st.one_of(
        st.just(b"gitdir: gitdir\n"),
        st.binary(max_size=300).map(lambda b: b"gitdir: " + b),
        st.binary(max_size=300),
    ),
    commondir=st.binary(max_size=100),
    packed=st.binary(max_size=3000),
)
def test_any_bytes_in_the_git_files_never_break_the_branch_reader(
    tmp_path: Path, dot_git: bytes, commondir: bytes, packed: bytes
) -> None:
    """`.git` as a file (a worktree's pointer), `commondir` and `packed-refs` are read as
    they are; what they hold is not ours."""
    root = tmp_path / "hostile"
    shutil.rmtree(root, ignore_errors=True)
    (root / "gitdir" / "refs" / "heads").mkdir(parents=True)
    (root / "gitdir" / "refs" / "heads" / "main").write_text("0" * 40)
    (root / "gitdir" / "commondir").write_bytes(commondir)
    (root / "gitdir" / "packed-refs").write_bytes(packed)
    (root / ".git").write_bytes(dot_git)
    got = env.git_branches(str(root))
    assert isinstance(got, list) and all(isinstance(b, str) for b in got)
    fixes("git checkout mian", PATHSPEC.format("mian"), root)  # the rule runs on it too


def test_packed_refs_are_read_in_linear_time(tmp_path: Path) -> None:
    """A huge packed-refs file: every line is one regex step, no backtracking blow-up."""
    (tmp_path / ".git" / "refs" / "heads").mkdir(parents=True)
    lines = [f"{i:040x} refs/heads/b{i}" for i in range(20_000)]
    (tmp_path / ".git" / "packed-refs").write_text("\n".join(lines) + "\n" + "a" * 200_000)
    got = env.git_branches(str(tmp_path))
    assert len(got) == 20_000 and got[0] == "b0"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for folder in ("src", "tests", "docs"):
        (tmp_path / folder).mkdir()
    (tmp_path / "src" / "main.py").write_text("app = object()\n")
    return tmp_path


@pytest.mark.parametrize(
    ("script", "said", "first"),
    [
        ("ls srcc", "ls: cannot access 'srcc': No such file or directory", "ls src"),
        ("grep -r TODO srcs", "grep: srcs: No such file or directory", "grep -r TODO src"),
        ("du -sh test", "du: cannot access 'test': No such file or directory", "du -sh tests"),
    ],
)
def test_a_bare_folder_name_the_error_names_is_mended(
    project: Path, script: str, said: str, first: str
) -> None:
    assert fixes(script, said, project)[:1] == [first]


def test_a_bare_word_the_error_does_not_name_is_left_alone(project: Path) -> None:
    """`grep docs srcs`: the pattern `docs` is not a path even though a folder is near it."""
    got = fixes("grep docz srcs", "grep: srcs: No such file or directory", project)
    assert got[:1] == ["grep docz src"]


@pytest.mark.parametrize(
    ("script", "said"),
    [
        (
            "uvicorn app:app --reload",
            'ERROR:    Error loading ASGI app. Could not import module "app".',
        ),
        ("gunicorn -w 4 app:app", "ModuleNotFoundError: No module named 'app'"),
    ],
)
def test_the_app_module_is_named_where_it_is(project: Path, script: str, said: str) -> None:
    got = fixes(script, said, project)
    assert got[:1] == [script.replace("app:app", "src.main:app")]


def test_no_app_module_in_the_project_means_no_guess(tmp_path: Path) -> None:
    said = 'ERROR:    Error loading ASGI app. Could not import module "app".'
    assert fixes("uvicorn app:app", said, tmp_path) == []


REFSPEC = "error: src refspec {} does not match any\nerror: failed to push some refs to 'github.com:a/b.git'"


def test_pushing_a_branch_that_is_not_there_offers_the_one_you_are_on(repo: Path) -> None:
    git(repo, "checkout", "-q", "develop")
    got = fixes("git push -u origin master", REFSPEC.format("master"), repo)
    assert got == ["git push -u origin develop"]  # no "Initial commit": there are commits


def test_pushing_a_mistyped_branch_offers_the_nearest_first(repo: Path) -> None:
    got = fixes("git push origin featur/login", REFSPEC.format("featur/login"), repo)
    assert got == ["git push origin feature/login", "git push origin main"]


def test_pushing_from_a_repository_without_commits_offers_the_first_commit(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git(tmp_path, "init", "-q", "-b", "main")
    got = fixes("git push -u origin main", REFSPEC.format("main"), tmp_path)
    assert got[0] == 'git add -A && git commit -m "Initial commit" && git push -u origin main'


def test_a_folder_run_as_a_script_runs_the_script_inside(project: Path) -> None:
    said = f"/usr/bin/python3: can't find '__main__' module in '{project / 'src'}'"
    assert fixes("python3 src", said, project) == ["python3 src/main.py"]
    (project / "docs" / "conf.py").write_text("")
    said = said.replace("src", "docs")
    assert fixes("python3 docs", said, project) == []  # nothing that looks like an entry point


@pytest.fixture(scope="module")
def busy_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with something for every folder-reading rule: a repository with branches,
    build files, an app module, a package.json and a Makefile."""
    root = tmp_path_factory.mktemp("busy")
    if shutil.which("git"):
        git(root, "init", "-q", "-b", "main")
        git(root, "commit", "-q", "--allow-empty", "-m", "first")
        git(root, "branch", "develop")
    for name in ("CMakeLists.txt", "configure.ac", "meson.build", "requirements-dev.txt"):
        (root / name).write_text("")
    (root / "Makefile").write_text("build:\n\techo\ntest:\n\techo\n")
    (root / "package.json").write_text('{"scripts": {"dev": "vite"}}')
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("")
    return root


FOLDER_SCRIPTS = [
    "git checkout mian",
    "git push origin devlop",
    "make",
    "ls srcc",
    "python src",
    "uvicorn app:app",
    "cat src/mian.py",
    "npm run dve",
    "make tset",
    "git switch x",
]
FOLDER_OUTPUTS = [
    PATHSPEC.format("mian"),
    REFSPEC.format("devlop"),
    NO_MAKEFILE,
    "ls: cannot access 'srcc': No such file or directory",
    "fatal: invalid reference: x",
    "can't find '__main__' module in 'src'",
    'Could not import module "app"',
    "make: *** No rule to make target 'tset'.  Stop.",
    "No such file or directory",
    "'",
    "\n",
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    script=st.lists(st.sampled_from(FOLDER_SCRIPTS) | st.text(max_size=8), max_size=4).map(
        " ".join
    ),
    output=st.lists(st.sampled_from(FOLDER_OUTPUTS) | st.text(max_size=12), max_size=6).map(
        "".join
    ),
    shell=st.sampled_from(["bash", "powershell", "cmd"]),
)
def test_rules_that_read_the_folder_never_fail(
    busy_folder: Path, script: str, output: str, shell: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Any script and output, run against a folder full of facts: no rule raises (the
    engine hides that, so its log is read) and the answer keeps its shape."""
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="termwise.agent.rules.engine"):
        got = suggest_fixes(script, output, 1, shell, cwd=str(busy_folder))
    assert not [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    commands = [s.command for s in got]
    assert len(commands) <= 5 and len(set(commands)) == len(commands)
