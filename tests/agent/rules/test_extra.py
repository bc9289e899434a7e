"""More real failures, chained scripts and coloured output."""

from __future__ import annotations

from pathlib import Path

import pytest
from termwise.agent.rules import suggest_fixes

from tests.agent.rules.cases_extra import CASES
from tests.agent.rules.table import T, check, ids


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_extra_table(case: T) -> None:
    """Each failure yields the fix its message or a seasoned user points to."""
    check(case)


def test_huge_output_is_handled_quickly() -> None:
    """Megabytes of build log before the error still give the fix (errors live at the tail)."""
    noise = "compiling module ...\n" * 200_000
    got = suggest_fixes("python app.py", noise + "ModuleNotFoundError: No module named 'cv2'\n", 1)
    assert got and got[0].command == "pip install opencv-python"


def test_unknown_shell_falls_back_to_posix() -> None:
    """An unknown shell name does not crash; the POSIX syntax is used."""
    got = suggest_fixes("gti status", "gti: command not found", 127, shell="tcsh-ish")
    assert got and got[0].command == "git status"


def test_success_with_help_text_prints_no_command() -> None:
    """A successful command whose output mentions `run "x"` gets no printed-hint suggestion."""
    got = suggest_fixes("npm install", 'added 3 packages\nRun "npm audit fix" to fix them', 0)
    assert not any(s.rule == "printed_command" for s in got)


def test_a_quoted_word_is_not_taken_for_a_printed_command() -> None:
    """`resource type "pos"` quotes a noun: no `pos` suggestion, while `Try "ls"` still counts."""
    got = suggest_fixes(
        "kubectl get pos", 'error: the server doesn\'t have a resource type "pos"', 1
    )
    assert "pos" not in [s.command for s in got]
    assert got and got[0].command == "kubectl get pods"
    hinted = suggest_fixes("dir", 'dir: not found here. Try "ls" instead', 1)
    assert "ls" in [s.command for s in hinted if s.rule == "printed_command"]


def test_docker_build_names_the_dockerfile_the_folder_has(tmp_path: Path) -> None:
    """No `Dockerfile`, but `Dockerfile.dev` is there: build with `-f Dockerfile.dev`."""
    (tmp_path / "Dockerfile.dev").write_text("FROM scratch\n")
    (tmp_path / "README.md").write_text("x\n")
    said = "ERROR: failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory"
    got = suggest_fixes("docker build -t app .", said, 1, cwd=str(tmp_path))
    assert got and got[0].command == "docker build -f Dockerfile.dev -t app ."
    (tmp_path / "Dockerfile.dev").unlink()
    bare = [s.command for s in suggest_fixes("docker build -t app .", said, 1, cwd=str(tmp_path))]
    assert "docker build -t app -f path/to/Dockerfile ." in bare  # nothing to name: say how


def test_heroku_app_choice_skips_the_words_of_the_sentence() -> None:
    """`Specify the app you want with --app or --remote` does not offer an app called `or`."""
    said = (
        " ▸    Multiple apps in git remotes\n ▸    Usage: --remote heroku-dev\n ▸    or: --app myapp-dev\n"
        " ▸    Specify the app you want with --app or --remote.\n ▸    Heroku remotes in repo:\n"
        " ▸    myapp (heroku)\n ▸    myapp-dev (heroku-dev)"
    )
    got = [s.command for s in suggest_fixes("heroku pg", said, 1)]
    assert got[:2] == ["heroku pg --app myapp", "heroku pg --app myapp-dev"]
    assert "heroku pg --app or" not in got


def test_a_file_pattern_that_matches_nothing_is_not_quoted() -> None:
    """`ls *.foo` under zsh: there are no such files; quoting would not help."""
    got = suggest_fixes("ls *.foo", "zsh: no matches found: *.foo", 1, "zsh")
    assert not [s for s in got if s.rule == "zsh_glob_quote"]
