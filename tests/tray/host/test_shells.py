"""Shell discovery, launch commands and the integration scripts' text."""

from __future__ import annotations

import base64
import os
import re
import shutil
import stat
import sys
import time
from pathlib import Path

import pytest
from termwise.tray.errors import TrayError
from termwise.tray.host.shells import (
    KNOWN_SHELLS,
    ShellNotFound,
    UnknownShell,
    available_shells,
    default_shell,
    launch_command,
    script_path,
)
from termwise.tray.host.stream import StreamParser

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shells and PATH")


def fake_program(folder: Path, name: str) -> Path:
    """A real executable file named like a shell, for PATH lookups."""
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@posix_only
def test_available_shells_are_absolute_paths_found_on_path(tmp_path: Path) -> None:
    """Only shells on PATH are listed, each with its absolute path, in a stable order."""
    zsh = fake_program(tmp_path, "zsh")
    bash = fake_program(tmp_path, "bash")
    assert available_shells({"PATH": str(tmp_path)}) == {"bash": str(bash), "zsh": str(zsh)}
    assert available_shells({"PATH": str(tmp_path / "empty")}) == {}


@posix_only
def test_this_machine_has_bash() -> None:
    """The real PATH finds the real bash."""
    found = available_shells()
    assert os.path.samefile(found["bash"], shutil.which("bash") or "")


@posix_only
def test_default_shell_choice(tmp_path: Path) -> None:
    """Configured shell first, then the login shell when known, then bash."""
    fake_program(tmp_path, "bash")
    fake_program(tmp_path, "zsh")
    env = {"PATH": str(tmp_path), "SHELL": "/usr/bin/zsh"}
    assert default_shell("pwsh", env) == "pwsh"
    assert default_shell("", env) == "zsh"
    assert default_shell("", {**env, "SHELL": "/bin/sh"}) == "bash"
    assert default_shell("", {"PATH": str(tmp_path / "none")}) == "bash"


def test_unknown_shell_lists_the_available_ones() -> None:
    """A name Termwise cannot start is refused with the names it can start."""
    with pytest.raises(UnknownShell) as caught:
        launch_command("fish", session_id="s1", base_env=dict(os.environ))
    message = str(caught.value)
    assert "'fish'" in message
    for name in KNOWN_SHELLS:
        assert name in message
    for name in available_shells():
        assert name in message.split("on this machine:")[1]
    assert isinstance(caught.value, TrayError)


@posix_only
def test_missing_shell_binary_is_named(tmp_path: Path) -> None:
    """A known shell that is not installed names the program that was looked for."""
    with pytest.raises(ShellNotFound, match=r"'zsh'.*no 'zsh' on PATH"):
        launch_command("zsh", session_id="s1", base_env={"PATH": str(tmp_path)})
    assert issubclass(ShellNotFound, TrayError)


@posix_only
def test_bash_launch_injects_the_rcfile_and_session(tmp_path: Path) -> None:
    """bash starts with our rcfile; the env carries the session id; the caller's env is kept."""
    bash = fake_program(tmp_path, "bash")
    base = {"PATH": str(tmp_path), "HOME": "/home/u", "FOO": "bar"}
    spec = launch_command("bash", session_id="s42", base_env=base)
    assert spec.name == "bash"
    assert spec.argv[:2] == [str(bash), "--rcfile"]
    assert Path(spec.argv[2]).is_file() and spec.argv[2].endswith("termwise.bash")
    assert spec.env["TERMWISE_SESSION"] == "s42"
    assert spec.env["FOO"] == "bar" and spec.env["TERM"]
    assert "TERMWISE_SESSION" not in base  # not mutated


@posix_only
def test_zsh_launch_uses_a_private_zdotdir(tmp_path: Path) -> None:
    """zsh gets a wrapper ZDOTDIR with dotfile names; the user's ZDOTDIR is passed along."""
    fake_program(tmp_path, "zsh")
    spec = launch_command(
        "zsh", session_id="s1", base_env={"PATH": str(tmp_path), "ZDOTDIR": "/home/u/.zsh"}
    )
    wrapper = Path(spec.env["ZDOTDIR"])
    assert wrapper != Path("/home/u/.zsh")
    assert {p.name for p in wrapper.iterdir()} >= {".zshenv", ".zshrc", ".zprofile"}
    assert spec.env["TERMWISE_USER_ZDOTDIR"] == "/home/u/.zsh"
    shutil.rmtree(wrapper)


@posix_only
def test_powershell_launch_keeps_the_profile(tmp_path: Path) -> None:
    """PowerShell runs our script's text as a command (no execution-policy block), with
    -NoExit and without -NoProfile."""
    pwsh = fake_program(tmp_path, "pwsh")
    spec = launch_command("pwsh", session_id="s1", base_env={"PATH": str(tmp_path)})
    assert spec.argv[0] == str(pwsh)
    assert "-NoExit" in spec.argv and "-NoProfile" not in spec.argv
    encoded = spec.argv[spec.argv.index("-EncodedCommand") + 1]
    text = base64.b64decode(encoded).decode("utf-16-le")
    assert text == script_path("termwise.ps1").read_text(encoding="utf-8")
    assert len(" ".join(spec.argv)) < 32_000  # Windows' command-line limit is 32,767


def test_integration_files_ship_in_the_package() -> None:
    """Every script is reachable through importlib.resources (and so lands in the wheel)."""
    for parts in (
        ("termwise.bash",),
        ("termwise.ps1",),
        ("termwise.cmd",),
        ("zsh", "termwise.zsh"),
        ("zsh", "zshenv.zsh"),
        ("zsh", "zprofile.zsh"),
        ("zsh", "zshrc.zsh"),
    ):
        assert script_path(*parts).is_file(), parts


def test_powershell_script_text() -> None:
    """The PowerShell script emits every mark, is 5.1-safe, and writes no file."""
    text = script_path("termwise.ps1").read_text(encoding="utf-8")
    for mark in ("'133;A'", "'133;B'", "'133;C'", '"133;D;$code"', '"633;E;', '"7;$url"'):
        assert mark in text, mark
    assert not re.search(r'"[^"\n]*`e', text)  # PowerShell 5.1 has no `e escape
    assert "[char]0x1b" in text
    body = text.split("function global:prompt {", 1)[1]
    first = [line.strip() for line in body.splitlines() if line.strip()][1]
    assert first == "$succeeded = $?"  # before anything can overwrite it
    assert "function global:PSConsoleHostReadLine" in text
    for writer in ("Set-Content", "Add-Content", "Out-File", "$PROFILE"):
        assert writer not in text


def _cmd_prompt(script: str, old_prompt: str | None) -> str:
    """The PROMPT value termwise.cmd sets (cmd's `set` line, with %PROMPT% expanded)."""
    line = next(x for x in script.splitlines() if x.startswith('@set "PROMPT=$e'))
    value = line[len('@set "PROMPT=') : -1]
    return value.replace("%PROMPT%", old_prompt or "$P$G")


def _expand_cmd_prompt(prompt: str, cwd: str) -> bytes:
    """cmd.exe's documented PROMPT codes that termwise.cmd uses."""
    codes = {"e": "\x1b", "P": cwd, "G": ">", "$": "$"}
    return re.sub(r"\$(.)", lambda m: codes.get(m.group(1), ""), prompt).encode()


def test_cmd_prompt_marks_parse_into_blocks() -> None:
    """The prompt termwise.cmd builds, as cmd would print it, yields blocks and the cwd."""
    script = script_path("termwise.cmd").read_text(encoding="utf-8")
    assert not any(
        line.lower().startswith(("echo off", "@echo off")) for line in script.splitlines()
    )
    raw = script_path("termwise.cmd").read_bytes()
    assert raw.count(b"\r\n") == raw.count(b"\n")  # batch files want CRLF
    prompt = _expand_cmd_prompt(_cmd_prompt(script, "[$P]$G"), r"C:\work")
    assert b"[C:\\work]>" in prompt
    parser = StreamParser()
    parser.feed(prompt + b"echo hi\r\nhi\r\n\r\n" + prompt + b"\r\n" + prompt)
    [block] = parser.blocks()
    assert (block.command, block.text(), block.cwd) == ("echo hi", "hi", r"C:\work")


def test_cmd_script_keeps_an_already_marked_prompt() -> None:
    """A PROMPT inherited from another Termwise session is not wrapped twice."""
    script = script_path("termwise.cmd").read_text(encoding="utf-8")
    assert 'if not "%PROMPT:133;A=%"=="%PROMPT%" goto :eof' in script


@posix_only
def test_a_shell_given_by_path(tmp_path: Path) -> None:
    """A path to a known shell starts that very program; a wrong path is named."""
    custom = tmp_path / "opt" / "bin"
    custom.mkdir(parents=True)
    bash = fake_program(custom, "bash")
    spec = launch_command(str(bash), session_id="s1", base_env={"PATH": "/nonexistent"})
    assert (spec.name, spec.argv[0], spec.argv[1]) == ("bash", str(bash), "--rcfile")
    with pytest.raises(ShellNotFound, match="no program at /nowhere/zsh"):
        launch_command("/nowhere/zsh", session_id="s1", base_env={})
    with pytest.raises(UnknownShell, match="'/bin/sh'"):
        launch_command("/bin/sh", session_id="s1", base_env={})


@posix_only
def test_stale_zsh_wrapper_folders_are_cleared(tmp_path: Path, monkeypatch) -> None:
    """Wrapper folders left by a zsh killed early are removed later; young ones stay."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    old = tmp_path / "termwise-zsh-old"
    young = tmp_path / "termwise-zsh-young"
    other = tmp_path / "not-ours"
    for folder in (old, young, other):
        folder.mkdir()
    two_hours_ago = time.time() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    os.utime(other, (two_hours_ago, two_hours_ago))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_program(bin_dir, "zsh")
    spec = launch_command("zsh", session_id="s1", base_env={"PATH": str(bin_dir)})
    assert not old.exists()
    assert young.exists() and other.exists()
    assert Path(spec.env["ZDOTDIR"]).parent == tmp_path


def test_windows_lookups_ignore_the_case_of_variable_names(tmp_path: Path, monkeypatch) -> None:
    """On Windows, COMSPEC/SYSTEMROOT (how a dict copy of os.environ spells them) count."""
    from termwise.tray.host import shells

    monkeypatch.setattr(sys, "platform", "win32")
    comspec = fake_program(tmp_path, "my cmd.exe")
    env = {"COMSPEC": str(comspec), "SYSTEMROOT": r"D:\Win", "PATH": str(tmp_path / "none")}
    assert shells._candidates("cmd", env)[0] == str(comspec)
    assert shells._candidates("powershell", env)[1].startswith("D:\\Win\\System32\\")
    assert shells.find_shell("cmd", env) == str(comspec)


def test_cmd_runs_the_integration_through_call(tmp_path: Path, monkeypatch) -> None:
    """cmd gets `/k call <script>`, so a quoted script path with ( or & keeps its quotes."""
    import subprocess

    monkeypatch.setattr(sys, "platform", "win32")
    cmd = fake_program(tmp_path, "cmd.exe")
    spec = launch_command("cmd", session_id="s1", base_env={"ComSpec": str(cmd)})
    assert spec.argv == [str(cmd), "/k", "call", str(script_path("termwise.cmd"))]
    # What pywinpty hands cmd after the program: /k, then a word, then the quoted path.
    line = subprocess.list2cmdline([*spec.argv[1:3], r"C:\Termwise (beta)\termwise.cmd"])
    assert line == '/k call "C:\\Termwise (beta)\\termwise.cmd"'


def test_windows_bash_is_git_bash_never_the_wsl_launcher(tmp_path: Path, monkeypatch) -> None:
    """Git for Windows' bash is found off PATH; System32's bash.exe (WSL) is never `bash`."""
    from termwise.tray.host import shells

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("PATHEXT", ".EXE")  # shutil.which's Windows branch reads it
    system32 = tmp_path / "Windows" / "System32"
    system32.mkdir(parents=True)
    fake_program(system32, "bash.exe")
    env = {"SYSTEMROOT": str(tmp_path / "Windows"), "PATH": str(system32)}
    assert shells.find_shell("bash", env) is None  # only WSL's launcher: no bash
    other = tmp_path / "msys" / "usr" / "bin"
    other.mkdir(parents=True)
    msys_bash = fake_program(other, "bash.exe")
    env["PATH"] = os.pathsep.join([str(system32) + os.sep, str(other)])
    assert shells.find_shell("bash", env) == str(msys_bash)
    git_bin = tmp_path / "Program Files" / "Git" / "bin"
    git_bin.mkdir(parents=True)
    git_bash = fake_program(git_bin, "bash.exe")
    env["ProgramFiles"] = str(tmp_path / "Program Files")
    assert shells.find_shell("bash", env) == str(git_bash)
