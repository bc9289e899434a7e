"""Real bash and zsh, launched with Termwise's integration in real PTYs, give exact blocks."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support.tools import params
from tests.support.wine_limits import wine_limit
from tests.tray.host.stream.live import SESSION_ID, LiveShell

SHELLS = params("bash", "zsh")

ALT_SCRIPT = (
    "printf '\\033[?1049h'\n"
    "echo FULL-SCREEN-TEXT\n"
    "printf '\\033[2J\\033[H more full screen'\n"
    "printf '\\033[?1049l'\n"
    "echo back-on-the-main-screen\n"
)

RC_FILE = {"bash": ".bashrc", "zsh": ".zshrc"}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    (folder / "alt.sh").write_text(ALT_SCRIPT)
    return folder


@pytest.fixture
def live(home: Path):
    shells: list[LiveShell] = []

    def start(name: str, env: dict[str, str] | None = None) -> LiveShell:
        shell = LiveShell(name, home, env)
        shells.append(shell)
        shell.wait_ready()
        return shell

    yield start
    for shell in shells:
        shell.close()


@pytest.mark.parametrize("name", SHELLS)
def test_commands_exit_codes_cwd_progress_and_alt_screen(name: str, live, home: Path) -> None:
    """The issue's scenario: commands, exit codes 0 2 0 0, cwd after cd, `done`, no
    alternate-screen text."""
    shell = live(name)
    blocks = [
        shell.run("echo hi"),
        shell.run("ls /nonexistent"),
        shell.run("cd /tmp"),
        shell.run("printf 'a\\rb\\rdone\\n'"),
        shell.run(f"sh {home}/alt.sh"),
    ]
    assert [b.command for b in blocks] == [
        "echo hi",
        "ls /nonexistent",
        "cd /tmp",
        "printf 'a\\rb\\rdone\\n'",
        f"sh {home}/alt.sh",
    ]
    assert [b.exit_code for b in blocks] == [0, 2, 0, 0, 0]
    assert blocks[0].text() == "hi"
    assert "No such file or directory" in blocks[1].text()
    assert blocks[1].cwd == str(home)
    assert blocks[2].cwd == "/tmp" and blocks[3].cwd == "/tmp"
    assert blocks[3].text() == "done"
    assert blocks[4].text() == "back-on-the-main-screen"
    assert "FULL-SCREEN" not in blocks[4].text() and "more full" not in blocks[4].text()
    assert [b.index for b in blocks] == sorted(b.index for b in blocks)
    assert all(b.ended is not None and b.ended >= b.started for b in blocks)


@pytest.mark.parametrize("name", SHELLS)
def test_user_rc_still_loads_and_stays_untouched(name: str, live, home: Path) -> None:
    """An alias from the user's own rc file works, and the file is unchanged on disk."""
    rc = home / RC_FILE[name]
    rc.write_text("alias hello='echo hello-from-my-rc'\n")
    before = (rc.read_bytes(), rc.stat().st_mtime_ns)
    shell = live(name)
    block = shell.run("hello")
    assert (block.command, block.text(), block.exit_code) == ("hello", "hello-from-my-rc", 0)
    assert (rc.read_bytes(), rc.stat().st_mtime_ns) == before


@pytest.mark.parametrize("name", SHELLS)
def test_session_id_is_in_the_environment(name: str, live) -> None:
    """Programs inside the session can tell which Termwise session they run in."""
    shell = live(name)
    assert shell.run("echo $TERMWISE_SESSION").text() == SESSION_ID


@pytest.mark.parametrize("name", SHELLS)
def test_interrupted_command(name: str, live) -> None:
    """Ctrl+C on a running command ends its block with the shell's status 130."""
    shell = live(name)
    before = shell.last_index()
    shell.pty.write(b"sleep 30\r")
    shell.wait_for(lambda: shell.parser.running_block() is not None, what="sleep to start")
    shell.pty.write(b"\x03")
    block = shell.wait_block(before, what="sleep 30")
    assert (block.command, block.exit_code) == ("sleep 30", 130)


@pytest.mark.parametrize("name", SHELLS)
def test_long_output_stays_whole(name: str, live) -> None:
    """Twenty thousand lines of output arrive complete and in order."""
    shell = live(name)
    lines = shell.run("seq 1 20000").text().split("\n")
    assert lines == [str(i) for i in range(1, 20001)]


@pytest.mark.parametrize("name", SHELLS)
def test_empty_line_makes_no_block(name: str, live) -> None:
    """Pressing Enter on an empty prompt records nothing."""
    shell = live(name)
    first = shell.run("echo one")
    shell.pty.write(b"\r")
    second = shell.run("echo two")
    assert second.index == first.index + 1
    assert second.command == "echo two"


@wine_limit("no-posix-tools")
def test_bash_robust_against_user_settings(live, home: Path) -> None:
    """`set -u`, a PROMPT_COMMAND array whose hook fails, user DEBUG/ERR traps, a user
    PS0 and ignoreboth history: commands and exit codes are still the commands' own."""
    (home / ".bashrc").write_text(
        "set -u\n"
        "HISTCONTROL=ignoreboth\n"
        "my_hook() { echo user-hook-output; false; }\n"
        "PROMPT_COMMAND=(my_hook)\n"
        "trap 'my_debug=1' DEBUG\n"
        "trap 'my_err=1' ERR\n"
        "PS0='[ps0]'\n"
    )
    shell = live("bash")
    ok = shell.run("true")
    assert (ok.command, ok.exit_code, ok.text()) == ("true", 0, "[ps0]")
    failed = shell.run("(exit 7)")
    assert (failed.command, failed.exit_code) == ("(exit 7)", 7)
    hidden = shell.run(" echo not-in-history")  # ignorespace: falls back to the echo
    assert (hidden.command, hidden.text()) == ("echo not-in-history", "[ps0]not-in-history")
    shell.run("echo again")
    repeat = shell.run("echo again")  # ignoredups: not recorded a second time
    assert repeat.command == "echo again"
    traps = shell.run("echo ${my_debug-unset} ${my_err-unset} ${#PROMPT_COMMAND[@]}")
    assert traps.text() == "[ps0]1 1 3"
    assert "user-hook-output" in shell.parser.screen_text()


@wine_limit("no-posix-tools")
def test_bash_string_prompt_command_is_kept(live, home: Path) -> None:
    """A user PROMPT_COMMAND string still runs, and its status does not leak into D."""
    (home / ".bashrc").write_text("PROMPT_COMMAND='echo pc-ran; false;'\n")
    shell = live("bash")
    block = shell.run("true")
    assert block.exit_code == 0
    assert "pc-ran" in shell.parser.screen_text()
    assert block.text() == ""


@pytest.mark.requires("zsh")
def test_zsh_user_zdotdir_and_options(live, home: Path) -> None:
    """A ZDOTDIR set in ~/.zshenv is honoured; nounset and a failing precmd hook don't
    change exit codes."""
    conf = home / ".config" / "zsh"
    conf.mkdir(parents=True)
    (home / ".zshenv").write_text(f"ZDOTDIR={conf}\n")
    (conf / ".zshrc").write_text(
        "setopt nounset\n"
        "alias hello='echo from-zdotdir'\n"
        "my_precmd() { return 1 }\n"
        "precmd_functions+=(my_precmd)\n"
    )
    shell = live("zsh")
    assert shell.run("hello").text() == "from-zdotdir"
    assert shell.run("true").exit_code == 0
    assert shell.run("echo $ZDOTDIR").text() == str(conf)


@pytest.mark.requires("zsh")
def test_zsh_zdotdir_from_the_environment(live, home: Path, tmp_path: Path) -> None:
    """A ZDOTDIR the user exported is where their .zshrc is read from, and it is restored."""
    conf = tmp_path / "zdot"
    conf.mkdir()
    (conf / ".zshrc").write_text("alias hello='echo env-zdotdir'\n")
    shell = live("zsh", {"ZDOTDIR": str(conf)})
    assert shell.run("hello").text() == "env-zdotdir"
    assert shell.run("echo $ZDOTDIR").text() == str(conf)


@pytest.mark.requires("zsh")
def test_zsh_without_zdotdir_leaves_it_unset(live) -> None:
    """Where the user had no ZDOTDIR, the session has none either."""
    shell = live("zsh")
    assert shell.run("echo ${ZDOTDIR-none}").text() == "none"


@wine_limit("no-posix-tools")
def test_unknown_shell_without_marks_falls_back_to_the_screen(home: Path) -> None:
    """`sh` has no integration: no blocks, but the last screenful is there."""
    from termwise.tray.host.pty import TerminationPolicy, spawn_pty
    from termwise.tray.host.stream import StreamParser

    parser = StreamParser()
    pty = spawn_pty(["sh"], env={"PATH": os.environ["PATH"], "PS1": "$ "}, cwd=str(home))
    try:
        pty.write(b"for i in 1 2 3 4 5 6 7 8 9; do echo row$i; done\r")
        deadline = time.monotonic() + 10
        while not parser.screen_text().endswith("row9\n$"):  # output, then the prompt
            chunk = pty.read()
            assert chunk, "sh ended early"
            parser.feed(chunk)
            assert time.monotonic() < deadline, parser.raw_tail(500)
        assert not parser.has_marks and parser.blocks() == []
        assert parser.screen_text(rows=3).split("\n") == ["row8", "row9", "$"]
    finally:
        pty.terminate(TerminationPolicy(1, 1, 2))
        pty.close()


@pytest.mark.requires("zsh")
def test_zsh_wrapper_folder_is_removed_once_loaded(live) -> None:
    """The private ZDOTDIR made for one zsh is gone once that zsh has started."""
    shell = live("zsh")
    wrapper = Path(shell.spec.env["ZDOTDIR"])
    shell.run("true")
    assert not wrapper.exists()


@pytest.mark.parametrize("name", SHELLS)
def test_exit_with_a_status_ends_the_last_block(name: str, live) -> None:
    """`exit 3` is a block too: the session's end gives it the shell's exit status."""
    shell = live(name)
    shell.pty.write(b"exit 3\r")
    assert shell.pty.wait(10) == 3
    shell._reader.join(5)
    block = shell.parser.end_of_stream(shell.pty.exit_status)
    assert block is not None
    assert (block.command, block.exit_code) == ("exit 3", 3)


@wine_limit("no-posix-tools")
def test_bash_without_ps0_uses_the_debug_trap(live, home: Path) -> None:
    """The bash-before-4.4 path (DEBUG trap instead of PS0), forced on this bash, gives
    the same blocks and still runs the user's own DEBUG trap."""
    (home / ".bashrc").write_text("trap 'user_debug_count=$((${user_debug_count-0}+1))' DEBUG\n")
    shell = live("bash", {"TERMWISE_BASH_DEBUG_TRAP": "1"})
    blocks = [shell.run("echo hi"), shell.run("ls /nonexistent"), shell.run("cd /tmp")]
    shell.pty.write(b"\r")  # an empty line must not become a block
    blocks.append(shell.run("false"))
    assert [(b.command, b.exit_code) for b in blocks] == [
        ("echo hi", 0),
        ("ls /nonexistent", 2),
        ("cd /tmp", 0),
        ("false", 1),
    ]
    assert blocks[0].text() == "hi" and blocks[2].cwd == "/tmp"
    assert [b.index for b in blocks] == [0, 1, 2, 3]
    count = shell.run("echo $user_debug_count").text()
    assert count.isdigit() and int(count) > 4
    assert shell.run("echo ${TERMWISE_BASH_DEBUG_TRAP-unset}").text() == "unset"


@pytest.mark.parametrize("name", SHELLS)
def test_cwd_with_spaces_and_non_ascii(name: str, live, home: Path) -> None:
    """A directory named with spaces, '%' and accents comes back exactly (OSC 7 decoded)."""
    folder = home / "my dir % é"
    folder.mkdir()
    shell = live(name)
    block = shell.run("cd 'my dir % é'")
    assert block.cwd == str(folder)
    assert shell.parser.cwd == str(folder)
