"""The engine: every rule exercised, ranking, limits, duplicates, broken rules, shells."""

from __future__ import annotations

import pytest
from termwise.agent.rules import RULES, suggest_fixes
from termwise.agent.rules.engine import Case, clean_output, rule
from termwise.agent.rules.shell import and_then, elevate, normalize_shell, segments

from tests.bench.test_rules_bench import TABLE


def test_every_rule_is_exercised_by_the_table() -> None:
    """Each registered rule produces at least one suggestion somewhere in the table."""
    hit: set[str] = set()
    for t in TABLE:
        hit.update(
            s.rule for s in suggest_fixes(t.script, t.output, t.exit_code, t.shell, cwd=t.cwd)
        )
    extra = {
        "file_nearest",
        "grep_argument_order",
        "run_local_file",
        "python_wrong_folder",
        "project_in_subfolder",
        "local_wrapper_script",
        "npm_script_without_run",
        "asgi_app_module",
        "py_folder_no_main",
    }  # need a real folder: test_files.py, test_usage.py, test_folder_facts.py
    missing = sorted(r.name for r in RULES if r.name not in hit | extra)
    assert not missing, f"rules no table case reaches: {missing}"


def test_rules_have_names_and_one_line_explanations() -> None:
    """Rule names are unique and each default explanation is one short line."""
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
    assert all(
        r.explanation and "\n" not in r.explanation and len(r.explanation) < 120 for r in RULES
    )


def test_a_broken_rule_does_not_hide_the_others() -> None:
    """A rule that raises is skipped; the other rules' suggestions still come back."""

    @rule("test_broken_rule", "Always fails.", priority=0)
    def broken(c: Case) -> list[str]:
        raise RuntimeError("boom")

    try:
        got = suggest_fixes("gti status", "bash: gti: command not found", 127)
        assert got[0].command == "git status"
    finally:
        RULES[:] = [r for r in RULES if r.name != "test_broken_rule"]


def test_at_most_five_distinct_suggestions_best_first() -> None:
    """Many matching rules still give at most five distinct commands, most specific first."""
    got = suggest_fixes(
        "python manage.py migrate",
        "Command 'python' not found, did you mean:\n  command 'python3' from deb python3\n"
        "  command 'python' from deb python-is-python3\n",
        127,
    )
    commands = [s.command for s in got]
    assert 1 <= len(commands) <= 5 and len(set(commands)) == len(commands)
    assert commands[0] == "python3 manage.py migrate"


def test_the_failed_command_itself_is_never_suggested() -> None:
    """Re-running the exact command that failed is not a fix."""
    got = suggest_fixes(
        "git push", "fatal: The current branch main has no upstream branch.\n\n    git push\n", 128
    )
    assert "git push" not in [s.command for s in got]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("pwsh.exe", "pwsh"),
        ("C:\\Windows\\System32\\cmd.exe", "cmd"),
        ("/usr/bin/zsh", "zsh"),
        ("PowerShell", "powershell"),
        ("nonsense", "bash"),
    ],
)
def test_shell_names_are_normalised(name: str, expected: str) -> None:
    """Shell paths and spellings map to the shell families the rules know."""
    assert normalize_shell(name) == expected


def test_chaining_and_elevation_follow_the_shell() -> None:
    """`&&` where it works (fish 3 too), `;` in Windows PowerShell; sudo vs RunAs."""
    assert and_then("bash", "a", "b") == "a && b"
    assert and_then("powershell", "a", "b") == "a; b"
    assert and_then("fish", "a", "b") == "a && b"
    assert elevate("bash", "apt update && apt upgrade") == 'sudo sh -c "apt update && apt upgrade"'
    assert elevate("bash", 'echo "a" >> b') == 'sudo sh -c "echo \\"a\\" >> b"'
    assert elevate("bash", "echo $HOME > f") == "sudo sh -c 'echo $HOME > f'"
    assert "-Verb RunAs" in elevate("pwsh", "choco install git")


def test_segments_respect_quotes() -> None:
    """Chains split at &&, ||, ; and | but not inside quotes."""
    assert segments("git add . && git commit -m 'a; b' | cat") == [
        "git add .",
        "git commit -m 'a; b'",
        "cat",
    ]


def test_output_is_cleaned_of_colours_and_carriage_returns() -> None:
    """Colour codes and progress-bar rewrites do not reach the rules."""
    assert clean_output("\x1b[31mfatal:\x1b[0m x\r\n10%\r100%\n") == "fatal: x\n100%\n"


def test_successful_posix_commands_get_no_error_fixes() -> None:
    """grep finding the words 'Permission denied' in a log (exit 0) is not a permission problem."""
    got = suggest_fixes(
        "grep -r 'Permission denied' /var/log/app", "/var/log/app/x.log: Permission denied (13)", 0
    )
    assert got == []
    # ...but the same text from a failed command is.
    got = suggest_fixes("cat /var/log/secure", "cat: /var/log/secure: Permission denied", 1)
    assert got[0].command == "sudo cat /var/log/secure"


def test_warnings_on_success_still_help() -> None:
    """A successful pip install that left its script off PATH still gets the PATH fix."""
    out = "  WARNING: The script black is installed in '/home/me/.local/bin' which is not on PATH."
    got = suggest_fixes("pip install --user black", out, 0)
    assert got and got[0].command == 'export PATH="/home/me/.local/bin:$PATH"'


def test_powershell_errors_count_even_with_exit_code_zero() -> None:
    """PowerShell cmdlet errors may come with exit code 0; they are still fixed."""
    got = suggest_fixes(
        "ls -la",
        "Get-ChildItem : A parameter cannot be found that matches parameter name 'la'.",
        0,
        "powershell",
    )
    assert got and got[0].command == "Get-ChildItem -Force"


def test_a_pipeline_exit_code_does_not_hide_the_failure() -> None:
    """`cmd | tee log` exits 0 even when cmd failed: its errors are still fixed."""
    got = suggest_fixes(
        "python app.py | tee run.log", "ModuleNotFoundError: No module named 'yaml'", 0
    )
    assert got and got[0].command == "pip install pyyaml"


def test_windows_shells_get_their_own_syntax_across_the_table() -> None:
    """No table case in PowerShell or cmd gets `sudo`, and Windows PowerShell 5.1 never gets `&&`."""
    for t in TABLE:
        if t.shell not in ("powershell", "pwsh", "cmd"):
            continue
        for s in suggest_fixes(t.script, t.output, t.exit_code, t.shell, cwd=t.cwd):
            assert not s.command.startswith("sudo "), (t.script, s.command)
            assert t.shell != "powershell" or " && " not in s.command, (t.script, s.command)
            assert t.shell != "cmd" or not s.command.startswith(("export ", "rm -", "ls ")), (
                t.script,
                s.command,
            )


def test_a_chained_fix_is_also_offered_on_its_own() -> None:
    """`sudo systemctl start docker && docker ps` comes with the bare `sudo systemctl start docker`,
    after the other ways to fix it (a different fix is worth more than the same one alone)."""
    out = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"
    commands = [s.command for s in suggest_fixes("docker ps", out, 1)]
    assert commands[0] == "sudo systemctl start docker && docker ps"
    assert commands[1] == "sudo service docker start && docker ps"
    assert "sudo systemctl start docker" in commands[2:4]
    ps = [
        s.command
        for s in suggest_fixes("terraform plan", 'Please run "terraform init".', 1, "powershell")
    ]
    assert ps[:2] == ["terraform init; terraform plan", "terraform init"]
