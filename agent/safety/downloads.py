"""Download-then-run: `curl -o x.sh URL && sh x.sh` runs network code as surely as `curl | sh`."""

from __future__ import annotations

import re
from itertools import zip_longest

from termwise.agent.safety.model import Command, Script

_DOWNLOADERS = frozenset({"curl", "wget", "invoke-webrequest", "iwr", "aria2c", "fetch"})
_RUNNERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "py", "perl", "ruby", "node",
     "pwsh", "powershell", "cmd", "source", ".", "sudo", "doas", "start-process", "&"}
)  # fmt: skip
_OUTPUT_FLAGS = {
    "curl": ("-o", "--output"),
    "wget": ("-O", "--output-document"),
    "aria2c": ("-o", "--out"),
    "fetch": ("-o",),
    "invoke-webrequest": ("-outfile", "-o", "-out", "-outf", "-outfi", "-outfil"),
    "iwr": ("-outfile", "-o", "-out", "-outf", "-outfi", "-outfil"),
}
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def downloaded_then_run(script: Script) -> list[str]:
    """Names of files a script downloads and later runs (in the order commands appear)."""
    saved: set[str] = set()
    run: list[str] = []
    for pipeline in script.pipelines:
        for command in pipeline:
            if not command.words:
                continue
            name = _plain_name(command.words[0])
            if name in _DOWNLOADERS:
                saved |= _targets(name, command)
                continue
            if not saved:
                continue
            for word in _run_candidates(name, command):
                if _base(word) in saved:
                    run.append(word)
    return run


def _plain_name(word: str) -> str:
    base = re.split(r"[\\/]", word)[-1].lower()
    return re.sub(r"\.(exe|cmd|bat|com)$", "", base)


def _targets(name: str, command: Command) -> set[str]:
    """Files the download writes: its -o/-O/-OutFile value, or the URL's last part."""
    words = command.words[1:]
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


def _run_candidates(name: str, command: Command) -> list[str]:
    """The program itself, and for interpreters and wrappers the file they are given."""
    words = command.words
    candidates = [words[0]]
    if name in _RUNNERS:
        candidates += [w for w in words[1:] if not w.startswith("-")][:2]
    return candidates


def _base(path: str) -> str:
    return re.split(r"[\\/]", path)[-1].lower()
