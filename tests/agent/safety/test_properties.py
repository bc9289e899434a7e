"""Property tests: classify, the heredoc cutter and the inline-script reader take any text."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from termwise.agent.safety import classify
from termwise.agent.safety.inline import check_code, load_interpreters
from termwise.agent.safety.posix import cut_heredocs

from tests.support.work import assert_linear_work, calls_made

SHELLS = ("bash", "zsh", "pwsh", "powershell", "cmd", "wsl")


def _fuzz(pieces: Sequence[str], snippet: int, most: int, sep: str = "") -> st.SearchStrategy[str]:
    """Text made of up to `most` parts, each one of `pieces` (so the fuzzer reaches the
    parsers' branches) or random text of up to `snippet` characters, joined with `sep`."""
    parts = st.one_of(st.sampled_from(list(pieces)), st.text(max_size=snippet))
    return st.lists(parts, max_size=most).map(sep.join)


# Pieces of real command lines, so the fuzzer reaches the parsers' branches, not only noise.
_PIECES = [
    "rm -rf /",
    "rm -rf /tmp/x",
    "os.replace(",
    "shutil.copytree(",
    "File.rename ",
    "path.join(os.homedir(), ",
    "expanduser('~/",
    "'''",
    "#",
    "<#",
    "#>",
    "--dry-run",
    ">&-",
    " ",
    "\n",
    "\t",
    "'",
    '"',
    "`",
    "$(",
    ")",
    "${",
    "}",
    "$'\\x72'",
    "<<EOF\n",
    "<<'EOF'\n",
    "<<-X\n",
    "EOF\n",
    "<<<",
    "|",
    "||",
    "&&",
    ";",
    "&",
    ">",
    ">>",
    "2>&1",
    "#",
    "\\",
    "python -c ",
    "node -e ",
    "perl -e ",
    "ruby -e ",
    "php -r ",
    "shutil.rmtree(",
    "os.system(",
    "subprocess.run([",
    "execSync(",
    "FileUtils.rm_rf(",
    "system(",
    "`rm -rf ~`",
    "bash -c ",
    "pwsh -c ",
    "cmd /c ",
    "sudo ",
    "env -S ",
    "xargs ",
    "parallel ",
    ":::",
    "{}",
    "busybox ",
    "git reset --hard",
    "git checkout -- ",
    "aws s3 rm ",
    "--recursive",
    "$TMPDIR/..",
    "/tmp/../",
    "%TEMP%\\",
    "$env:TEMP\\",
    "Remove-Item -Recurse -Force ",
    "rd /s /q ",
    "@'\n",
    "'@",
    "$PROFILE",
    ">> ~/.bashrc",
    "find ~ -delete",
    "rsync --delete ",
    "ln -sfn / /tmp/x && ",
    "/tmp/x/.",
    "git -c alias.x=",
    "git -c core.pager=",
    "'!rm -rf ~' x",
    "GIT_SSH_COMMAND=",
    "export PAGER=",
    "git config alias.x ",
    "import os as o; o.system(",
    "__import__('os').",
    "exec(",
    "eval(",
    "include FileUtils; rm_rf ",
    "Bun.$`",
    "Deno.removeSync(",
    "from shutil import rmtree as r, move; r(",
    "const {execSync: run} = require('child_process'); run(",
    "é中",
    "\x00",
    "\x1b[2K",
]
_TEXT = _fuzz(_PIECES, 20, 40)


@given(_TEXT, st.sampled_from(SHELLS))
@settings(max_examples=400, deadline=None)
def test_classify_never_raises_and_always_explains(text: str, shell: str) -> None:
    """Any text in any shell gets one of the three levels with at least one reason."""
    verdict = classify(text, shell)
    assert verdict.level in ("safe", "confirm", "dangerous")
    assert verdict.reasons


@given(_TEXT)
@settings(max_examples=300, deadline=None)
def test_heredoc_cutter_keeps_every_line_outside_bodies(text: str) -> None:
    """Cutting bodies out never raises, and text without `<<` comes back unchanged."""
    rest, bodies = cut_heredocs(text)
    if "<<" not in text:
        assert rest == text and bodies == {}
    for key in bodies:
        assert key in rest


@given(_TEXT, st.sampled_from(sorted({i.language for i in load_interpreters()[0].values()})))
@settings(max_examples=300, deadline=None)
def test_inline_reader_never_raises(code: str, language: str) -> None:
    """Any script text in any known language is read without an error."""
    from termwise.agent.safety.engine import Analyzer

    analyzer = Analyzer()
    check_code(analyzer, load_interpreters()[1][language], code, "posix", 0)
    assert all(f.level in ("safe", "confirm", "dangerous") for f in analyzer.findings)


def _calls(text: str, shell: str) -> int:
    """Function calls made by one classify: a measure of work that no load skews."""
    return calls_made(lambda: classify(text, shell))


@pytest.mark.parametrize("shell", ["bash", "pwsh", "cmd"])
@pytest.mark.parametrize(
    "unit",
    [
        "python -c 'os.system(\"rm -rf x\")'; ",
        "cat <<EOF\nrm -rf /\nEOF\n",
        "parallel rm -rf {} ::: a b; ",
        "$(echo rm) -rf /tmp/x; ",
        "'unterminated $( <<EOF ` ",
        "git -c alias.x='!rm -rf y' x; ",
        'python3 -c \'exec("exec(\\"import os\\")")\'; ',
        "python3 -c 'import os as o; from shutil import rmtree as r; r(\"/x\")'; ",
        "tar -I 'rm -rf a' --to-command='rm b' -cf x .; ",
        "vim -c ':!rm a' +'!rm b' -c 'call system(\"rm c\")'; sed '1e rm d' x; ",
        "osascript -e 'do shell script \"rm -rf a\" with administrator privileges'; ",
        "select x in a; do rm -rf ~; done; for ((i=0;i<2;i++)); do rm b; done; ",
        "make --eval='all:; rm -rf a' -E 'X := $(shell rm b)'; ",
        "lua -e 'os.execute \"rm x\"'; Rscript -e 'unlink(\"y\", recursive=TRUE)'; ",
        "printf '\\162\\155 -rf a\\x20' | sh; source <(echo 'rm b'); . /dev/stdin <<< 'rm c'; ",
        "echo 'exec rm -rf a; file delete -force b; set x [exec {c d}]' | tclsh; ",
    ],
)
def test_classify_work_grows_linearly(shell: str, unit: str) -> None:
    """Eight times the input makes at most about eight times the calls (no quadratic blow-up)."""
    classify(unit, shell)  # rule files are compiled once per process, outside the count
    small = _calls(unit * 40, shell)
    large = _calls(unit * 320, shell)
    assert large <= 10 * small + 1000, (small, large)


_AWK_PIECES = [
    '"',
    '\\"',
    "print ",
    "printf ",
    "|",
    "|&",
    ' "sh"',
    ' "bash -s"',
    "system(",
    "(",
    ")",
    "{",
    "}",
    ";",
    ",",
    "=",
    "cmd",
    " getline",
    '"rm -rf /"',
    '"git reset --hard"',
    "\\n",
    "$1",
    "BEGIN",
]
_AWK = _fuzz(_AWK_PIECES, 8, 60)


@given(_AWK)
@settings(max_examples=400, deadline=None)
def test_awk_reader_never_raises(program: str) -> None:
    """Any awk program text is read without an error, and what it finds is text to judge."""
    from termwise.agent.safety.awkscript import commands_run

    found = commands_run(program)
    assert all(isinstance(c, str) for c in found)
    assert len(found) <= 32


def _awk_lines(program: str) -> int:
    """Lines executed by one read of the program: loop iterations count, unlike calls."""
    from termwise.agent.safety.awkscript import commands_run

    count = 0

    def tally(_frame: object, event: str, _arg: object) -> object:
        nonlocal count
        if event == "line":
            count += 1
        return tally

    sys.settrace(tally)  # type: ignore[arg-type]
    try:
        commands_run(program)
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize(
    "unit",
    ['print "a" | "sh" ', "system(x ", 'a = "x" ', '"cmd" | getline ', "((((", 'print "x", "y", '],
)
def test_awk_reader_work_grows_linearly(unit: str) -> None:
    """Eight times the program makes at most about eight times the calls."""
    small = _awk_lines(unit * 100)
    large = _awk_lines(unit * 800)
    assert large <= 10 * small + 1000, (small, large)


@given(_TEXT)
@settings(max_examples=300, deadline=None)
def test_powershell_code_text_keeps_length_and_code(text: str) -> None:
    """Blanking comments and single-quoted strings keeps every position (rule matches are
    placed by it) and never touches text with no quote or comment in it."""
    from termwise.agent.safety.powershell import code_text

    scanned = code_text(text)
    assert len(scanned) == len(text)
    if "#" not in text and "'" not in text:
        assert scanned == text


@given(st.lists(_TEXT, max_size=5))
@settings(max_examples=300, deadline=None)
def test_brace_lists_stay_bounded(words: list[str]) -> None:
    """bash brace lists expand to a bounded number of words, whatever the text."""
    from termwise.agent.safety.shellwords import MAX_BRACED, braced

    out = braced(words)
    assert len(out) <= MAX_BRACED + sum(w.count(",") + 1 for w in words)
    if not any("{" in w for w in words):
        assert out == words


_ALIAS_PIECES = ["import ", "from ", " as ", ",", "(", ")", ".", "os", "shutil", "rmtree", "r",
                 " ", "\n", "{", "}", ":", "require(", "'child_process'", "import {",
                 "} from 'fs'", "="]  # fmt: skip
_ALIAS_TEXT = _fuzz(_ALIAS_PIECES, 6, 80)


@given(_ALIAS_TEXT)
@settings(max_examples=400, deadline=None)
def test_import_aliases_never_raise_and_stay_bounded(code: str) -> None:
    """Renaming imported names back never raises, and grows a script by a bounded factor
    (each renamed use becomes at most a dotted name of bounded length)."""
    from termwise.agent.safety.aliases import js, python

    for rewrite in (python, js):
        out = rewrite(code)
        assert len(out) <= 16 * len(code) + 1
        if "import" not in code and "require" not in code:
            assert out == code


def test_import_alias_work_grows_linearly() -> None:
    """Eight times the script takes at most about eight times the work."""
    from termwise.agent.safety.aliases import python

    unit = "import os as o, shutil as s\nfrom os import system as x\no.remove(1); x('y')\n"
    assert_linear_work(python, unit, 40)


_LAUNCH_WORDS = st.lists(
    st.one_of(
        st.sampled_from(["-c", "-qc", "--command", "--command=x", "/tr", "/TR", "/c", "/p", "call",
                         "create", "ls=rd", "=", "@path", "@FILE", "-", "", "EXIT", "C:\\"]),
        st.text(max_size=8),
    ),
    max_size=12,
)  # fmt: skip


@given(st.sampled_from(["trap", "alias", "script", "doskey", "schtasks", "wmic", "forfiles"]),
       _LAUNCH_WORDS)  # fmt: skip
@settings(max_examples=400, deadline=None)
def test_launcher_lines_never_raise(name: str, words: list[str]) -> None:
    """Whatever words follow a launcher, reading the line it runs never raises."""
    from termwise.agent.safety.launchers import posix_lines, windows_lines

    lines = posix_lines(name, words) + windows_lines(name, words)
    assert all(isinstance(line, str) for line in lines)


_MAKE_TEXT = _fuzz([
    "all", ":", "::", ";", "\t", "\n", "\\\n", "$(shell ", "${shell ", "(", ")", "}", "$$",
    "@", "-", "+", "=", ":=", "#", "rm -rf ~", " "
], 6, 40)  # fmt: skip


@given(_MAKE_TEXT)
@settings(max_examples=400, deadline=None)
def test_make_eval_lines_never_raise(text: str) -> None:
    """Any makefile text given to `make --eval` reads as shell lines without raising, each
    no longer than the text, and the whole command is judged."""
    from termwise.agent.safety.launchers import make_lines

    lines = make_lines(["--eval", text]) + make_lines([f"-E{text}"])
    assert all(len(line) <= len(text) for line in lines)
    classify(f"make --eval={shlex.quote(text)}", "bash")


def test_make_eval_work_grows_linearly() -> None:
    """Reading makefile text is linear in its rules, open $(shell …) included."""
    from termwise.agent.safety.launchers import make_lines

    unit = "all: dep ; rm -rf a\n\t@echo $$x\nX := $(shell ls (a) b) $(shell  (\n"
    assert_linear_work(lambda text: make_lines(["--eval", text]), unit, 50)


_TCL_TEXT = _fuzz([
    "exec ", "spawn ", "system ", "send ", "file delete ", "-force ", "{", "}", "[", "]", '"',
    "\\", "\\\n", "$env(HOME)", "$x", ";", "\n", " ", "rm -rf ~", "\\r"
], 6, 40)  # fmt: skip


@given(_TCL_TEXT)
@settings(max_examples=400, deadline=None)
def test_tcl_words_never_raise(text: str) -> None:
    """Any Tcl text reads as words from any point, never an error; there are no more words
    than characters, and a line running the text through tclsh is judged."""
    from termwise.agent.safety.tclwords import command_words

    for start in range(0, len(text) + 1, 7):
        words = command_words(text, start)
        assert len(words) <= len(text) - start
    classify(f"tclsh <<< {shlex.quote(text)}", "bash")


def test_tcl_word_work_grows_linearly() -> None:
    """Reading one long Tcl command is linear in its words, unclosed braces included."""
    from termwise.agent.safety.tclwords import command_words

    unit = 'a {b {c} "d" [e f] $g "h\\"i" [j {k'
    assert_linear_work(lambda text: command_words("exec " + text, 5), unit, 50)


_TABLE_TEXT = _fuzz([
    "@{", "}", "Path", "=", "'C:\\'", "''", '"', "$true", "$false", ";", "\n", " ", "Recurse",
    "(", "@", "`", "#", "'", "$x"
], 6, 40)  # fmt: skip


@given(_TABLE_TEXT)
@settings(max_examples=400, deadline=None)
def test_splat_tables_never_raise(text: str) -> None:
    """Any hashtable text reads as parameters or as unknown, never an error; each parameter
    word is no longer than the table, and a line splatting it is judged."""
    from termwise.agent.safety.splat import table_parameters

    words = table_parameters(text)
    assert words is None or all(len(w) <= len(text) + 1 for w in words)
    classify(f"$p = {text}; Remove-Item @p", "pwsh")


def test_splat_table_work_grows_linearly() -> None:
    """Reading a table is linear in its entries."""
    from termwise.agent.safety.splat import table_parameters

    assert_linear_work(
        lambda text: table_parameters("@{" + text + "}"), "Path = 'C:\\x'; Force = $true\n", 50
    )


_CRON_PIECES = _fuzz([
    "*", "*/5", "0", "@reboot", "@daily", "@", "%", "\\%", "#", "X=1", "rm -rf ~", "\n", " ",
    "\t", "=", "1-5"
], 6, 30)  # fmt: skip


@given(_CRON_PIECES)
@settings(max_examples=400, deadline=None)
def test_crontab_table_never_raises(table: str) -> None:
    """Any text piped into `crontab -` reads as job lines without raising; each job line
    is one line of the table, never more text than it holds."""
    from termwise.agent.safety.launchers import cron_lines

    lines = cron_lines(table)
    assert all("\n" not in line and len(line) <= len(table) for line in lines)
    classify(f"printf '%s\\n' {shlex.quote(table)} | crontab -", "bash")


def test_crontab_table_work_grows_linearly() -> None:
    """Reading a table is linear in its jobs (each job line is judged once)."""
    from termwise.agent.safety.launchers import cron_lines

    unit = "# nightly\nMAILTO=x\n0 3 * * * tar czf /tmp/b.tgz ~/src % input\n@reboot ls\n"
    assert_linear_work(cron_lines, unit, 50)


_HELD_LINES = _fuzz([
    "x=", "x='rm -rf ~'", "$x", "${x}", "\"$x\"", "eval", "bash -c", ";", " ", "IFS=,",
    "export y=ls", "$y", "%x%", "set x=rd /s", "call", "$c = 'a'", "iex $c",
    "Set-Alias z Remove-Item", "z", "sal", "-Name", "-Value", "&", "$(pwd)", "`", "=", "echo",
    "printf '%s\\n'", "| sh", "|", "| crontab -"
], 6, 25, " ")  # fmt: skip


@given(_HELD_LINES, st.sampled_from(["bash", "pwsh", "cmd"]))
@settings(max_examples=400, deadline=None)
def test_held_values_never_raise(line: str, shell: str) -> None:
    """Variables and aliases set on the line and used later never make the check raise
    (a checker bug would come back as 'the safety check failed')."""
    assert "check-failed" not in " ".join(classify(line, shell).reasons)


@pytest.mark.parametrize("shell, unit", [("bash", "x='rm -rf a'; $x $x $x; "),
                                         ("cmd", "set x=rd /s a & call %x% %x% & "),
                                         ("pwsh", "$c = 'rm a'; iex $c; ")])  # fmt: skip
def test_held_value_work_grows_linearly(shell: str, unit: str) -> None:
    """A value used again and again is put in at most a bounded amount: the work stays
    linear in the line, never in the square of it."""
    assert_linear_work(lambda line: classify(line, shell), unit, 20)
    # a long value used 3000 times costs no more than a one-letter one: the rewrite stops
    short, long = ("x='" + "a" * n + "'; " + "$x" * 3000 for n in (1, 3000))
    assert calls_made(lambda: classify(long, "bash")) <= 2 * calls_made(
        lambda: classify(short, "bash")
    )


@pytest.mark.parametrize(
    "unit",
    [
        "for %f in (a b c) do (del %f & echo %f) & ",
        "for %a in (a b c d) do for %b in (e f g h) do for %c in (i j) do del %a%b%c & ",
        'for /r C:\\ %f in (* *.x) do del "%f" & ',
        "for /f %f in ('rd /s /q x') do echo %f & ",
        "if exist x (rd /s /q y) else (echo z) & ",
        "(echo rd /s /q x & echo dir) | cmd & ",
        "set x=rd /s a & !x! !x! & ",
        "for %f in (",  # never closed
        "if 1==1 ((((",
    ],
)
def test_cmd_blocks_loops_and_pipes_into_cmd_stay_linear(unit: str) -> None:
    """Blocks after if/else/do, loop values put in (nested loops too), for /f commands and
    echoes piped into cmd: the work grows with the line, not with its square."""
    assert_linear_work(lambda line: classify(line, "cmd"), unit, 20)


_PS_PIECES = _fuzz(["'", "''", "+", " + ", "(", ")", "iex ", "'a'", "$x.M(", " ", '"', '""',
                    '"b"', "`", "$"], 5, 40)  # fmt: skip


@given(_PS_PIECES)
@settings(max_examples=400, deadline=None)
def test_joined_strings_never_raise_and_keep_what_is_outside_strings(text: str) -> None:
    """Folding 'a' + 'b' never raises and never grows the text."""
    from termwise.agent.safety.powershell import joined_strings

    assert len(joined_strings(text)) <= len(text)


@pytest.mark.parametrize("unit", ["iex ('a' + 'b' + ", "''''''''", "('x') + ", "'a' +'"])
def test_joined_strings_stay_linear(unit: str) -> None:
    assert_linear_work(lambda line: classify(line, "pwsh"), unit, 20)
