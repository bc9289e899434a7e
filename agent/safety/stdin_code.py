"""Code that reaches a command on its input: `bash <<EOF`, `echo 'rm -rf ~' | sh`,
`'Stop-Computer' | iex`, `echo rd /s /q C:\\ | cmd`, a crontab table piped in, and an
interpreter that runs whatever it reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from termwise.agent.safety import inline, launchers, recurse, shellwords
from termwise.agent.safety.cmd import echoed
from termwise.agent.safety.model import Command, Family
from termwise.agent.safety.rules import RuleSet

if TYPE_CHECKING:
    from termwise.agent.safety.engine import Analyzer

_PS_CODE_SINKS = frozenset({"iex", "invoke-expression", "pwsh", "powershell"})
_STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})  # `. /dev/stdin <<EOF`


def _resolve(word: str, rules: RuleSet) -> str:
    from termwise.agent.safety.engine import resolve_name  # engine imports this module

    return resolve_name(word, rules)


def stdin_script(analyzer: Analyzer, command: Command, rules: RuleSet, depth: int) -> None:
    """`bash <<EOF`, `python3 - <<'EOF'`: a body fed to a shell or interpreter is code."""
    names = analyzer.names(command, rules)
    sourced = names & {"source", "."} and any(w in _STDIN_FILES for w in command.words)
    if names & recurse.STDIN_SHELLS or (sourced and rules.family == "posix"):
        analyzer.text(command.stdin_text or "", "posix", depth + 1)
        return
    if "crontab" in names and rules.family == "posix":
        cron_table(analyzer, command.stdin_text or "", depth)
        return
    interpreter = inline.stdin_language(names)
    if interpreter is None:
        return  # cat, tee, a file: the body is data
    for i, word in enumerate(command.words):
        if _resolve(word, rules) == interpreter:
            inline.check(
                analyzer,
                interpreter,
                command.words[i + 1 :],
                rules.family,
                depth,
                command.stdin_text,
            )
            return


def fed_as_script(
    analyzer: Analyzer,
    command: Command,
    downstream: list[set[str]],
    reader: Command,
    family: Family,
    depth: int,
) -> None:
    """`echo "rm -rf /" | sh`, `'Stop-Computer' | iex`, `echo rd /s /q C:\\ | cmd`:
    the text piped in is the script."""
    if family == "powershell":
        if command.stdin_text and any(n & _PS_CODE_SINKS for n in downstream):
            analyzer.text(command.stdin_text, "powershell", depth + 1)
        elif command.stdin_text and recurse.stdin_shell(reader.words) == "cmd":
            analyzer.text(command.stdin_text, "cmd", depth + 1)
        return
    if family == "cmd":
        shell = recurse.stdin_shell(reader.words)
        text = echoed(command) if shell is not None else None
        if shell is not None and text is not None:
            analyzer.text(text, shell, depth + 1)
        return
    text = shellwords.piped_text(command)
    if text is None:
        text = analyzer.held.printed(command)  # x='…'; echo "$x" | sh
    if text is None:
        return
    if "crontab" in downstream[0]:
        cron_table(analyzer, text, depth)
        return
    if any(n & recurse.STDIN_SHELLS for n in downstream):
        analyzer.text(text, "posix", depth + 1)
        return
    for names in downstream:
        interpreter = inline.stdin_language(names)
        if interpreter is not None:  # cat <<'EOF' | python3
            inline.check(analyzer, interpreter, [], family, depth, text)
            return


def cron_table(analyzer: Analyzer, table: str, depth: int) -> None:
    """`echo '0 3 * * * CMD' | crontab -`: each job's command runs later, unseen."""
    for line in launchers.cron_lines(table):
        analyzer.text_for(line, "posix", depth + 1, f"a crontab job runs `{line}` on a schedule")


def reads_code_from_pipe(
    analyzer: Analyzer, command: Command, rules: RuleSet, how: str = "piped into it"
) -> None:
    """`… | python3`, `python3 <<'EOF'`, `node < x.js`: an interpreter given no script
    runs whatever arrives on its input."""
    chain = recurse.chain(command.words, rules) if command.words else []
    interpreter = inline.stdin_language(set(chain[-1:]))
    if interpreter is None or not command.words:
        return
    start = next((i for i, w in enumerate(command.words) if _resolve(w, rules) == interpreter), 0)
    if inline.reads_stdin(interpreter, command.words[start + 1 :]):
        analyzer.add("confirm", "runs-input", f"{interpreter} runs the code {how}")
