"""The three shell parsers turn text into the same command model, the way each shell reads it."""

from __future__ import annotations

import pytest
from termwise.agent.safety.cmd import parse_cmd
from termwise.agent.safety.model import Command, Script
from termwise.agent.safety.posix import parse_posix, tolerant_parse
from termwise.agent.safety.powershell import parse_powershell


def words(script: Script) -> list[list[str]]:
    """Every command's words, nested substitutions included, in reading order."""
    found: list[list[str]] = []

    def visit(s: Script) -> None:
        for pipeline in s.pipelines:
            for command in pipeline:
                if command.words:
                    found.append(command.words)
                for nested in command.nested:
                    visit(nested)

    visit(script)
    return found


def first(script: Script) -> Command:
    return script.pipelines[0][0]


# --- POSIX ------------------------------------------------------------------------------


def test_posix_quotes_are_removed_and_expansions_marked() -> None:
    """`"r""m"` is rm to bash; `$X` and `$(…)` are expansions whose value we cannot know."""
    script = parse_posix('"r""m" -rf "$HOME" $(pwd)')
    command = first(script)
    assert command.words[:2] == ["rm", "-rf"]
    assert command.dynamic == [False, False, True, True]
    assert words(script)[1] == ["pwd"]


def test_posix_pipelines_lists_and_redirections() -> None:
    """`|` keeps commands in one pipeline, `&&`/`;` start new ones; `2>&1` writes no file."""
    script = parse_posix("curl x | sh && ls > out.txt 2>&1; echo done")
    assert [[c.words[0] for c in p] for p in script.pipelines] == [["curl", "sh"], ["ls"], ["echo"]]
    redirects = script.pipelines[1][0].redirects
    assert [(r.op, r.target) for r in redirects] == [(">", "out.txt")]


def test_posix_compound_statements_keep_their_redirections() -> None:
    """`( … ) > /dev/sda` is one element without words whose nested script and redirect count."""
    script = parse_posix("( echo a; echo b ) > /dev/sda")
    element = first(script)
    assert element.words == [] and element.redirects[0].target == "/dev/sda"
    assert words(script) == [["echo", "a"], ["echo", "b"]]


def test_posix_assignments_are_not_the_command() -> None:
    """`A=1 B=2 cmd` runs cmd; the assignments are kept for the env rules."""
    command = first(parse_posix("LD_PRELOAD=/x.so A=1 ls -l"))
    assert command.assignments == ["LD_PRELOAD=/x.so", "A=1"]
    assert command.words == ["ls", "-l"]


def test_posix_falls_back_to_the_tolerant_scanner_and_says_so() -> None:
    """Grammar bashlex lacks (`[[`, `case`, `$((…))`) still yields commands plus a problem note."""
    script = parse_posix("[[ -f x ]] && rm -rf ~")
    assert ["rm", "-rf", "~"] in words(script)
    assert script.problems and "not understood" in script.problems[0]


def test_tolerant_scanner_handles_unterminated_quotes_and_substitutions() -> None:
    """Broken input is split as a shell would start reading it; nothing raises."""
    script = tolerant_parse("echo 'open; rm -rf / ; echo `id` $(whoami")
    assert words(script)[0][0] == "echo"
    assert ["rm", "-rf", "/"] not in words(script), "inside an open quote it is text"
    script = tolerant_parse("a && b || c | d; e & f")
    assert [[c.words[0] for c in p] for p in script.pipelines] == [
        ["a"],
        ["b"],
        ["c", "d"],
        ["e"],
        ["f"],
    ]


def test_posix_deep_nesting_does_not_exhaust_the_stack() -> None:
    """Thousands of nested substitutions parse flat instead of raising RecursionError."""
    script = parse_posix("echo " + "$(" * 3000 + "rm -rf /" + ")" * 3000)
    assert any(w[:2] == ["rm", "-rf"] for w in words(script))


# --- PowerShell --------------------------------------------------------------------------


def test_powershell_statements_pipelines_and_parameters() -> None:
    """`;`, newlines and `&&` split statements; `|` chains; parameters stay words."""
    script = parse_powershell("Get-ChildItem -Recurse | Remove-Item -Force; Get-Date\nls && pwd")
    assert [[c.words[0] for c in p] for p in script.pipelines] == [
        ["Get-ChildItem", "Remove-Item"],
        ["Get-Date"],
        ["ls"],
        ["pwd"],
    ]
    assert first(script).words == ["Get-ChildItem", "-Recurse"]


def test_powershell_strings_escapes_and_typographic_quotes() -> None:
    """'' doubles a quote, backtick escapes, curly quotes and dashes read like ASCII ones."""
    command = first(parse_powershell("Write-Host 'it''s' \"a`tb\" ‘x’ –Force"))
    assert command.words == ["Write-Host", "it's", "a\tb", "x", "–Force"]


def test_powershell_groups_script_blocks_and_subexpressions_are_nested() -> None:
    """Code in ( ), $( ), @( ) and { } can run, so it is parsed as nested scripts."""
    script = parse_powershell('ForEach-Object { Remove-Item $_ } ; Write-Output "$(Stop-Computer)"')
    assert ["Remove-Item", "$_"] in words(script)
    assert ["Stop-Computer"] in words(script)


def test_powershell_expressions_and_assignments_are_not_commands() -> None:
    """`$x = Get-Date` runs Get-Date; a bare value or string runs nothing."""
    command = first(parse_powershell("$x = Get-Date"))
    assert command.assignments == ["$x"] and command.words == ["Get-Date"]
    assert first(parse_powershell("$PSVersionTable")).words == []
    assert first(parse_powershell("'just text'")).words == []


def test_powershell_call_operator_and_comments() -> None:
    """`& 'name'` calls by string; `#` and `<# #>` comments hide nothing that runs."""
    assert first(parse_powershell("& 'Remove-Item' x")).words == ["Remove-Item", "x"]
    assert words(parse_powershell("Get-Date <# Stop-Computer #> # Restart-Computer")) == [
        ["Get-Date"]
    ]


def test_powershell_reports_unbalanced_input() -> None:
    """A missing quote or bracket is a problem (confirm), not a crash."""
    assert parse_powershell('Get-Content "open').problems
    assert parse_powershell("Get-Date (").problems


# --- cmd -------------------------------------------------------------------------------------


def test_cmd_separators_escapes_and_blocks() -> None:
    """`&`, `&&`, `||`, `|` split; `^` escapes; ( ) groups; `@` is dropped."""
    script = parse_cmd('@echo off & r^d /s /q "C:\\tmp dir" || (del x & dir)')
    assert words(script) == [
        ["echo", "off"],
        ["rd", "/s", "/q", "C:\\tmp dir"],
        ["del", "x"],
        ["dir"],
    ]


def test_cmd_glued_switches_if_for_and_rem() -> None:
    """`rd/s/q`, `cd..`, `if exist`, `for … do` and `rem` read the way cmd reads them."""
    assert first(parse_cmd("rd/s/q build")).words == ["rd", "/s/q", "build"]
    assert first(parse_cmd("cd..")).words == ["cd", ".."]
    assert first(parse_cmd("if not exist out md out")).words == ["md", "out"]
    assert first(parse_cmd("for %f in (*.log) do del %f")).words == ["del", "*.log"]
    assert parse_cmd("rem del /s /q C:\\").pipelines == []


@pytest.mark.parametrize(
    ("line", "words"),
    [
        # the loop variable becomes the set's items, under the /r folder; a del of every
        # file of the tree is del /s /q (one file at a time: it never asks)
        ('for /r D:\\ %f in (*) do del "%f"', ["del", "/s", "/q", "D:\\*"]),
        ('for /r D:\\ %f in (*) do echo "%f"', ["echo", "D:\\*"]),
        ("for /r %f in (*.pyc) do del %f", ["del", "*.pyc"]),
        ("for %%f in (a.txt b.txt) do del %%f", ["del", "a.txt", "b.txt"]),
        ("for %f in (x) do copy %f %f.bak", ["copy", "x", "x.bak"]),
        ("for %f in (x) do echo %foo%", ["echo", "%foo%"]),  # not the variable
        # numbers and the lines of a file are not known here
        ("for /l %i in (1,1,5) do echo %i", ["echo", "%i"]),
        ('for /f "tokens=*" %a in (list.txt) do del "%a"', ["del", "%a"]),
        ("echo (hi)", ["echo", "(hi)"]),
    ],
)
def test_cmd_for_puts_the_set_in_for_its_variable(line: str, words: list[str]) -> None:
    assert first(parse_cmd(line)).words == words


@pytest.mark.parametrize(
    "line",
    [
        "if exist x (rd /s /q D:\\)",
        "if not exist x ( rd /s /q D:\\ )",
        "if 1==1 (echo a) else (rd /s /q D:\\)",
        'if "%a%" equ "b" (rd /s /q D:\\)',
        "for %f in (x) do (rd /s /q D:\\)",
        "for %%f in (D:\\) do (echo %%f & rd /s /q %%f)",
        "for /f %f in ('rd /s /q D:\\') do echo %f",
        'for /f "usebackq" %f in (`rd /s /q D:\\`) do echo %f',
    ],
)
def test_cmd_blocks_after_if_else_and_do_and_for_f_commands_are_read(line: str) -> None:
    """The command inside `( … )` after an `if` condition, `else` or `do`, or in a
    `for /f` set, is parsed as a command, not as a word starting with a parenthesis."""
    found = []

    def walk(script) -> None:
        for pipeline in script.pipelines:
            for command in pipeline:
                found.append(command.words)
                for inner in command.nested:
                    walk(inner)

    walk(parse_cmd(line))
    assert ["rd", "/s", "/q", "D:\\"] in found, found


def test_cmd_redirections_and_variables() -> None:
    """`>`/`>>` name files (`2>&1` does not); %VAR% makes a word dynamic."""
    command = first(parse_cmd("dir %USERPROFILE% > list.txt 2>&1"))
    assert command.words == ["dir", "%USERPROFILE%"] and command.dynamic == [False, True]
    assert [(r.op, r.target) for r in command.redirects] == [(">", "list.txt")]


def test_nested_subcommands_name_the_verb_that_was_judged() -> None:
    """`git stash list` is safe and says so by its full name; `git stash push` stays a change."""
    from termwise.agent.safety import classify

    assert classify("git stash list").reasons == ("known-safe: git stash list",)
    assert classify("git stash push").level == "confirm"
    assert classify("docker compose ps").reasons == ("known-safe: docker compose ps",)


def test_sed_scripts_are_read_command_by_command() -> None:
    """Write/execute commands are found in a sed script, not in the text it substitutes."""
    from termwise.agent.safety.sedscript import script_effect

    assert script_effect("s/a/b/w out.txt") == (
        "sed-writes",
        "this sed script writes to a file (s///w)",
    )
    assert script_effect("1e id")[0] == "sed-runs"  # type: ignore[index]
    assert script_effect("s/w /e/g") is None
    assert script_effect("/x;w y/p") is None
    assert script_effect("y/we/ew/;p") is None
    assert script_effect("a\\\nwrite this text") is None


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "text", ["'${'T", "echo '${'x", "x'${'", "echo 'a${b'c | sh", "'${{'T", "aws ${python -c 'x'"]
)
def test_unclosed_parameter_in_single_quotes_does_not_hang(text: str) -> None:
    """bashlex loops for ever, allocating gigabytes, on a ${ with no } after it in a word;
    such lines are read by the forgiving scanner instead."""
    from termwise.agent.safety import classify

    verdict = classify(text, "bash")
    assert verdict.level in ("confirm", "dangerous")
    assert any("grammar not understood" in r for r in verdict.reasons)
