"""Fixes read from the command line alone, for failures that printed nothing worth reading.

A command that fails silently (or whose output was not captured) still often says what went
wrong by its shape: `ls` showing nothing, `git diff` empty because the changes are staged,
`systemctl nginx start` with its words swapped. These rules rank after every rule that read an
error message, so they only fill the list when nothing more specific matched.
"""

from __future__ import annotations

import re

from termwise.agent.rules import data
from termwise.agent.rules.engine import Case, rule

# After every output-reading rule (their priorities are all below 60).
LATE = 62


def silent(c: Case) -> bool:
    """True when the command printed nothing at all (or only blank lines)."""
    return not c.output.strip()


def _git_sub(c: Case) -> tuple[int, str]:
    """Index in `c.args` and name of the git subcommand (global options skipped)."""
    i = 0
    args = c.args
    while i < len(args):
        a = args[i]
        if a in ("-C", "-c", "--git-dir", "--work-tree"):
            i += 2
        elif a.startswith("-"):
            i += 1
        else:
            return i, a
    return -1, ""


def _insert_after_sub(c: Case, flag: str) -> str:
    """The script with `flag` right after the git subcommand word."""
    at, sub = _git_sub(c)
    if at < 0:
        return ""
    m = re.search(rf"(?<![\w-])git\b(?:\s+\S+){{{at}}}?\s+{re.escape(sub)}(?![\w-])", c.script)
    if not m:
        return ""
    return c.script[: m.end()] + f" {flag}" + c.script[m.end() :]


def _flag_after_program(c: Case, flag: str) -> str:
    """The script with `flag` right after the program's name."""
    m = re.search(rf"(?<![\w.\-/\\]){re.escape(c.app)}(?![\w\-])", c.script, re.I)
    if not m:
        return ""
    return c.script[: m.end()] + f" {flag}" + c.script[m.end() :]


@rule(
    "ls_nothing_shown",
    "Nothing was listed: show hidden files too, or the long listing.",
    LATE,
    on_success=True,
)
def ls_nothing(c: Case) -> list[str]:
    if not silent(c):
        return []
    app = c.app.lower()
    if c.powershell and app in ("ls", "dir", "gci", "get-childitem"):
        if any(a.lower() in ("-force", "-fo", "-hidden") for a in c.args):
            return []
        return [_flag_after_program(c, "-Force")]  # hidden and system items too
    if c.cmd and app == "dir":
        if any(a.lower().startswith("/a") for a in c.args):
            return []
        return [_flag_after_program(c, "/a")]
    if not (c.posix and c.is_app("ls")):
        return []
    flags = [a for a in c.args if a.startswith("-")]
    if any("a" in f or "A" in f for f in flags if not f.startswith("--")):
        return []
    return [_flag_after_program(c, "-A"), _flag_after_program(c, "-lah")]


@rule(
    "git_diff_empty", "The diff is empty: the changes may be staged already.", LATE, on_success=True
)
def git_diff_empty(c: Case) -> list[str]:
    if not (c.is_app("git") and silent(c)):
        return []
    at, sub = _git_sub(c)
    if sub != "diff" or {"--staged", "--cached", "--no-index"} & set(c.args):
        return []
    out = [_insert_after_sub(c, "--staged")]
    paths = [a for a in c.args[at + 1 :] if not a.startswith("-")]
    if len(paths) == 2 and not any(re.search(r"\.\.|[~^@]|HEAD", p) for p in paths):
        out.append(_insert_after_sub(c, "--no-index"))  # two files, maybe outside a repository
    return out


@rule("git_commit_redo", "Change or undo the commit just made.", LATE, on_success=True)
def git_commit_redo(c: Case) -> list[tuple[str, str]]:
    if not (c.is_app("git") and _git_sub(c)[1] == "commit") or "--amend" in c.args:
        return []
    if not (silent(c) or re.search(r"^\[[^\]\n]+ [0-9a-f]{7,}\]", c.output, re.M)):
        return []
    out = [
        ("git commit --amend", "Amend the last commit (message or forgotten files)."),
        ("git reset HEAD~", "Undo the last commit, keeping its changes in the working tree."),
    ]
    if not {"-a", "--all", "-am"} & set(c.args):
        out.append((_insert_after_sub(c, "-a"), "Commit every changed tracked file."))
        out.append((_insert_after_sub(c, "-p"), "Choose the changes to commit, hunk by hunk."))
    return out


@rule("git_hook_skip", "A hook stopped it: skip the hooks this once.", LATE + 2)
def git_hook_skip(c: Case) -> list[tuple[str, str, str]]:
    if not c.is_app("git") or _git_sub(c)[1] not in ("commit", "push", "am", "merge"):
        return []
    if "--no-verify" in c.args or c.exit_code == 0:
        return []
    said = "hook" in c.lower and re.search(r"\bhook\b.{0,300}?(?:failed|declined|exit)", c.lower)
    if not (silent(c) or said):
        return []
    return [
        (
            _insert_after_sub(c, "--no-verify"),
            "Run without the pre-commit/pre-push hooks.",
            "The hooks' checks (tests, linters, secret scans) are skipped.",
        )
    ]


_LIST_WORDS = {"list", "ls", "show", "all"}


@rule(
    "git_branch_list_word",
    "`git branch <word>` made a branch of that name: list instead.",
    8,
    on_success=True,
)
def git_branch_list_word(c: Case) -> list[str]:
    at, sub = _git_sub(c)
    if not c.is_app("git") or sub != "branch":
        return []
    rest = c.args[at + 1 :]
    if len(rest) != 1 or rest[0] not in _LIST_WORDS:
        return []
    if c.output.strip() and "already exists" not in c.lower:
        return []
    return [c.then(f"git branch --delete {rest[0]}", "git branch")]


@rule("dash_typed_as_zero", "A 0 was typed for the dash of an option.", priority=5, on_success=True)
def zero_for_dash(c: Case) -> list[str]:
    """`git branch 0d foo`: the 0 key sits beside the - key."""
    if not c.is_app("git"):
        return []
    at, sub = _git_sub(c)
    if sub != "branch" or at < 0 or len(c.args) <= at + 1:
        return []
    word = c.args[at + 1]
    if not re.fullmatch(r"0[a-zA-Z]", word):
        return []
    fixed = re.sub(rf"(?<!\S){word}(?!\S)", "-" + word[1], c.script, count=1)
    if re.search(r"not a valid (?:object|branch)|fatal: (?!a branch named)", c.lower):
        return [fixed]  # nothing was created
    # The branch `0d` was created: delete it, then run what was meant.
    return [c.then(f"git branch -D {word}", fixed), fixed]


@rule("words_swapped", "The verb and its object were swapped.", priority=LATE - 4)
def words_swapped(c: Case) -> list[str]:
    """`systemctl nginx start` → `systemctl start nginx`."""
    if not c.is_app("systemctl", "service") or len(c.args) < 2:
        return []
    verbs = set(data.subcommands("systemctl"))
    a, b = c.args[0], c.args[1]
    if c.is_app("systemctl") and a not in verbs and b in verbs and not a.startswith("-"):
        return [
            re.sub(rf"(?<!\S){re.escape(a)}\s+{re.escape(b)}(?!\S)", f"{b} {a}", c.script, count=1)
        ]
    return []


@rule("java_source_name", "java runs a class name, javac compiles a .java file.", LATE - 4)
def java_names(c: Case) -> list[str]:
    words = [a for a in c.args if not a.startswith("-")]
    if not words or not (silent(c) or c.has("could not find or load main class", "class names")):
        return []
    if c.is_app("java") and words[-1].endswith(".java") and "/" not in words[-1]:
        return [c.replace_arg(words[-1], words[-1][: -len(".java")])]
    if c.is_app("javac") and not words[-1].endswith(".java") and "." not in words[-1]:
        return [c.replace_arg(words[-1], words[-1] + ".java")]
    return []


@rule("interpreter_extension", "The script file has an extension.", LATE - 4)
def interpreter_extension(c: Case) -> list[str]:
    ext = {
        "python": ".py",
        "python3": ".py",
        "py": ".py",
        "go": ".go",
        "node": ".js",
        "ruby": ".rb",
    }
    if c.app not in ext or not silent(c):
        return []
    words = [a for a in c.args if not a.startswith("-")]
    if c.is_app("go"):
        if not words or words[0] != "run" or len(words) < 2:
            return []
        words = words[1:]
    if not words or "." in words[0].rsplit("/", 1)[-1] or words[0] in ("run", "-"):
        return []
    return [c.replace_arg(words[0], words[0] + ext[c.app])]


@rule("symlink_instead", "Link folders (and across filesystems) with a symbolic link.", LATE)
def symlink(c: Case) -> list[str]:
    if not (c.posix and c.is_app("ln") and silent(c)):
        return []
    if any(a in ("-s", "--symbolic") or re.fullmatch(r"-\w*s\w*", a) for a in c.args):
        return []
    return [_flag_after_program(c, "-s")]


@rule("mkdir_parents_flag", "Create the missing parent folders too.", LATE)
def mkdir_parents(c: Case) -> list[str]:
    if not (c.posix and silent(c)):  # Windows' mkdir creates the parents by itself
        return []
    m = re.search(r"(?<![\w-])(-?mkdir)(?=\s)", c.segment)
    if not m or "-p" in c.args or "--parents" in c.args:
        return []
    paths = [a for a in c.args if not a.startswith("-")]
    if not any("/" in p.strip("/") for p in paths):
        return []
    return [c.script.replace(m.group(1), m.group(1) + " -p", 1)]


@rule("cd_make_folder", "The folder does not exist: create it, then go there.", LATE + 4)
def cd_make_folder(c: Case) -> list[str]:
    cd = ("cd", "chdir", "set-location", "sl") if c.windows else ("cd",)
    if c.app.lower() not in cd:
        return []
    args = [a for a in c.args if a.lower() not in ("/d", "-path", "-literalpath")]
    if len(args) != 1 or args[0] in ("-", "..", "~"):
        return []
    if not (
        silent(c)
        or c.has(
            "no such file or directory",
            "can't cd to",
            "does not exist",
            "cannot find path",
            "cannot find the path specified",
        )
    ):
        return []
    # Windows' mkdir (cmd's and PowerShell's) creates the missing parents by itself.
    make = "mkdir" if c.windows else "mkdir -p"
    return [c.then(f"{make} {args[0]}", c.script)]


@rule("man_other_section", "The page may be in another manual section.", 11)
def man_section(c: Case) -> list[str]:
    if not c.is_app("man") or not (silent(c) or c.has("no manual entry", "no entry for")):
        return []
    args = c.args
    swap = {"1": "8", "2": "3", "3": "2", "8": "1"}
    m = re.search(r"(?<!\S)(-s ?)?([1-8])(?=\s)", c.script)
    if m:
        new = swap.get(m.group(2))
        if not new:
            return []
        return [c.script[: m.start(2)] + new + c.script[m.end(2) :]]
    if len(args) != 1 or args[0].startswith("-") or not silent(c):
        return []  # "No manual entry for fzf": its own --help (man_no_entry) is the better bet
    page = args[0]
    return [f"man 3 {page}", f"man 2 {page}", f"{page} --help"]


@rule("trailing_stray_char", "A stray character was typed at the end of the line.", priority=3)
def trailing_stray(c: Case) -> list[str]:
    """`ç` sits beside Enter on several European layouts."""
    if not c.script.endswith(("ç", "Ç")):
        return []
    return [c.script[:-1].rstrip()]
