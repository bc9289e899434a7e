"""Files a line makes and then runs: `curl -o x.sh URL && sh x.sh` runs network code as
surely as `curl | sh`; `echo 'rm -rf ~' > x.sh && sh x.sh` runs the echoed line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import zip_longest

from termwise.agent.safety.model import Command, Script
from termwise.agent.safety.shellwords import printed_text

_DOWNLOADERS = frozenset(
    {"curl", "wget", "invoke-webrequest", "iwr", "aria2c", "fetch", "certutil", "bitsadmin"}
)
# Downloaders whose file is the word after the URL (certutil -urlcache -f URL FILE,
# bitsadmin /transfer JOB URL FILE); certutil only downloads with -urlcache.
_URL_THEN_FILE = frozenset({"certutil", "bitsadmin"})
_RUNNERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "py", "perl", "ruby", "node",
     "pwsh", "powershell", "cmd", "source", ".", "sudo", "doas", "run0", "start-process", "&"}
)  # fmt: skip
_OUTPUT_FLAGS = {
    "curl": ("-o", "--output"),
    "wget": ("-O", "--output-document"),
    "aria2c": ("-o", "--out"),
    "fetch": ("-o",),
    "invoke-webrequest": ("-outfile", "-o", "-out", "-outf", "-outfi", "-outfil"),
    "iwr": ("-outfile", "-o", "-out", "-outf", "-outfi", "-outfil"),
}
_SHELL_RUNNERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "cmd", "source", ".", "call", "pwsh", "powershell", "&"}
)
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def downloaded_then_run(script: Script) -> list[str]:
    """Names of files a script downloads and later runs (in the order commands appear)."""
    saved: set[str] = set()
    run: list[str] = []
    for name, command in _commands(script):
        if name in _DOWNLOADERS:
            saved |= _targets(name, command)
        elif saved:
            run += [w for w in _run_candidates(name, command) if _base(w) in saved]
    return run


def _commands(script: Script) -> Iterator[tuple[str, Command]]:
    """Each command with words, in order, with its plain program name."""
    for pipeline in script.pipelines:
        for command in pipeline:
            if command.words:
                yield _plain_name(command.words[0]), command


def _plain_name(word: str) -> str:
    base = re.split(r"[\\/]", word)[-1].lower()
    return re.sub(r"\.(exe|cmd|bat|com)$", "", base)


def _targets(name: str, command: Command) -> set[str]:
    """Files the download writes: its -o/-O/-OutFile value, or the URL's last part."""
    words = command.words[1:]
    if name in _URL_THEN_FILE:
        if name == "certutil" and not any(w.lower() in ("-urlcache", "/urlcache") for w in words):
            return set()
        for word, after in zip_longest(words, words[1:], fillvalue=""):
            if _URL.match(word):
                return {_base(after or word.split("?", 1)[0].rstrip("/"))}
        return set()
    flags = _OUTPUT_FLAGS.get(name, ())
    found: set[str] = set()
    for word, after in zip_longest(words, words[1:], fillvalue=""):  # each with the next
        low = word.lower() if name in ("invoke-webrequest", "iwr") else word
        option, eq, value = low.partition("=")
        target = ""
        if option in flags:
            target = value if eq else after
        elif name not in ("invoke-webrequest", "iwr") and low[:1] == "-" and low[:2] != "--":
            for flag in (f for f in flags if len(f) == 2):
                at = low.find(flag[1], 1)
                if at > 0:  # a cluster such as -sSLo FILE or -qOFILE
                    target = low[at + 1 :] or after
                    break
        if target and target != "-":
            found.add(_base(target))
    remote_name = name == "wget" or "-O" in words or "--remote-name" in words
    if remote_name and not found:
        for word in words:
            if _URL.match(word):
                found.add(_base(word.split("?", 1)[0].rstrip("/")))
    return found


def _run_candidates(name: str, command: Command, runners: frozenset[str] = _RUNNERS) -> list[str]:
    """The program itself, and for interpreters and wrappers the file they are given."""
    words = command.words
    candidates = [words[0]]
    if name in runners:
        candidates += [w for w in words[1:] if not w.startswith("-")][:2]
    return candidates


def _base(path: str) -> str:
    return re.split(r"[\\/]", path)[-1].lower()


def written_then_run(script: Script) -> list[str]:
    """The text of files a line writes with `echo`/`printf` and then runs (in that order):
    `echo 'rm -rf ~' > x.sh && sh x.sh`, `echo rd /s /q C:\\ > x.bat & x.bat`."""
    written: dict[str, str] = {}
    run: list[str] = []
    for name, command in _commands(script):
        if name in ("echo", "printf", "write-output") and command.redirects:
            text = printed_text(command.words)
            for redirect in command.redirects:
                if redirect.op in (">", ">>", ">|", "1>") and not redirect.dynamic:
                    kept = written.get(_base(redirect.target), "") if ">>" in redirect.op else ""
                    written[_base(redirect.target)] = f"{kept}\n{text}".strip()
            continue
        # sh x.sh, cmd /c x.bat; not python x.py (another language)
        candidates = _run_candidates(name, command, _SHELL_RUNNERS)
        run += [written[_base(w)] for w in candidates if _base(w) in written]
    return run
