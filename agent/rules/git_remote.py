"""Git, continued: pulls that need a strategy, authentication, big pushes, clones, quoting."""

from __future__ import annotations

import re

from termwise.agent.rules import shell as sh
from termwise.agent.rules.engine import Case, rule
from termwise.agent.rules.install import install_commands


@rule("git_divergent_branches", "Tell git how to combine the diverged branches.", priority=5)
def divergent(c: Case) -> list[tuple[str, str]]:
    if "Need to specify how to reconcile divergent branches" not in c.output:
        return []
    return [
        (c.script + " --rebase", "Replay your commits on top of the remote's."),
        (c.script + " --no-rebase", "Merge the remote's commits into yours."),
        ("git config --global pull.rebase false", "Always merge on pull (git's old default)."),
    ]


@rule("git_autostash", "Uncommitted changes block the rebase: stash them around it.", priority=6)
def autostash(c: Case) -> list[str]:
    if not c.is_app("git") or not re.search(
        r"cannot (?:pull with rebase|rebase): (?:You have unstaged changes"
        r"|Your index contains uncommitted changes)",
        c.output,
        re.I,
    ):
        return []
    return [
        c.script + " --autostash",
        c.then("git stash", c.script, "git stash pop"),
        c.then("git stash", c.script),
    ]


@rule(
    "git_password_auth", "GitHub no longer takes passwords: sign in with a token or the gh CLI.", 6
)
def password_auth(c: Case) -> list[tuple[str, str]]:
    if not c.has(
        "support for password authentication was removed",
        "authentication failed for",
        "could not read username for",
        "invalid username or password",
    ):
        return []
    return [
        (
            c.then("gh auth login", "gh auth setup-git", c.script),
            "Sign in with the GitHub CLI and let git use it.",
        ),
        (
            "git config --global credential.helper store",
            "Remember the token you type next (as plain text).",
        ),
    ]


@rule("git_post_buffer", "The push is too big for the HTTP buffer.", priority=8)
def post_buffer(c: Case) -> list[str]:
    if not c.has("rpc failed", "the remote end hung up unexpectedly", "http 413"):
        return []
    if not c.is_app("git"):
        return []
    return [c.then("git config http.postBuffer 524288000", c.script)]


@rule(
    "git_detached_head", "You are not on a branch: make one (or push HEAD to a branch).", priority=7
)
def detached(c: Case) -> list[str]:
    if "You are not currently on a branch" not in c.output:
        return []
    found = re.findall(r"^[ \t]+(git push \S+ HEAD:<[^>]+>)", c.output, re.M)
    return [
        "git switch -c new-branch",
        *[f.replace("<name-of-remote-branch>", "main") for f in found],
    ]


@rule("git_clone_exists", "The folder exists already: update it, or clone elsewhere.", priority=7)
def clone_exists(c: Case) -> list[tuple[str, str]]:
    m = c.search(r"destination path '([^']+)' already exists and is not an empty directory")
    if not m or not c.is_app("git"):
        return []
    d = m.group(1)
    return [
        (c.then(f"cd {d}", "git pull"), "Update the existing clone instead."),
        (f"{c.script} {d}-2", "Clone into another folder."),
    ]


@rule("git_unmerged_files", "Finish (or abort) the merge in progress first.", priority=8)
def unmerged(c: Case) -> list[str]:
    if not c.has("you have unmerged files", "unmerged paths", "you have not concluded your merge"):
        return []
    return ["git status", "git merge --abort", 'git add -A && git commit -m "Merge"']


@rule("git_no_commits", "The repository has no commits yet.", priority=9)
def no_commits(c: Case) -> list[str]:
    if (
        "ambiguous argument 'HEAD'" not in c.output
        and "does not have any commits yet" not in c.output
    ):
        return []
    return [c.then("git add -A", 'git commit -m "Initial commit"')]


@rule(
    "git_commit_message_quotes", "The message was split into words: quote it with double quotes.", 6
)
def commit_quotes(c: Case) -> list[str]:
    if not c.is_app("git") or not re.search(
        r"pathspec '[^\n]{0,400}?' did not match any file", c.output
    ):
        return []
    m = re.search(r"(-m|--message)\s+(.+?)(\s+-\w.*)?$", c.segment)
    if not m:
        return []
    message = m.group(2).strip().strip("'\"")
    return [c.segment[: m.start(2)] + f'"{message}"' + (m.group(3) or "")]


@rule(
    "git_extension_missing", "That git command comes from a separate tool: install it.", priority=4
)
def extension(c: Case) -> list[tuple[str, str]]:
    m = c.search(r"git: '(lfs|flow)' is not a git command")
    if not m:
        return []
    tool = "git-lfs" if m.group(1) == "lfs" else "git-flow"
    out = install_commands(c, tool)[:2] or [(f"sudo apt install {tool}", f"Install {tool}.")]
    if tool == "git-lfs":
        out.append(("git lfs install", "Then enable LFS for your user."))
    return out


@rule("git_main_master", "The default branch here is called the other name.", priority=6)
def main_master(c: Case) -> list[str]:
    m = c.search(r"pathspec '(main|master)' did not match any file") or c.search(
        r"invalid reference: (main|master)\b"
    )
    if not m or not c.is_app("git"):
        return []
    other = "main" if m.group(1) == "master" else "master"
    return [c.replace_word(m.group(1), other)]


@rule("git_add_force", "The path is ignored by .gitignore: add it anyway with --force.", 6)
def add_force(c: Case) -> list[str]:
    if not c.is_app("git") or "Use -f if you really want to add them" not in c.output:
        return []
    return [re.sub(r"\badd\b", "add --force", c.script, count=1)]


@rule("git_branch_checked_out", "You cannot delete the branch you are on: switch away first.", 6)
def branch_checked_out(c: Case) -> list[str]:
    m = c.search(r"Cannot delete (?:the )?branch '([^']+)' (?:checked out|used by worktree)")
    if not m:
        return []
    others = [b for b in ("main", "master") if b != m.group(1)]
    return [
        *(c.then(f"git checkout {b}", c.script) for b in others),
        c.then("git switch -", c.script),  # back to the branch you were on before
    ]


@rule("git_rm_needs_flag", "git rm needs -r for folders, --cached or -f for changed files.", 6)
def rm_flags(c: Case) -> list[tuple[str, str]]:
    if not c.is_app("git"):
        return []
    if "not removing" in c.output and "recursively without -r" in c.output:
        return [(re.sub(r"\brm\b", "rm -r", c.script, count=1), "Remove the folder recursively.")]
    if "use --cached to keep the file, or -f to force removal" in c.output:
        return [
            (
                re.sub(r"\brm\b", "rm --cached", c.script, count=1),
                "Stop tracking it but keep the file.",
            ),
            (re.sub(r"\brm\b", "rm -f", c.script, count=1), "Delete it, changes and all."),
        ]
    return []


@rule("git_tag_exists", "The tag exists: move it with --force.", priority=7)
def tag_exists(c: Case) -> list[str]:
    m = c.search(r"fatal: tag '([^']+)' already exists")
    if not m or not c.is_app("git"):
        return []
    return [re.sub(r"\btag\b", "tag --force", c.script, count=1)]


@rule("git_rebase_in_progress", "A rebase is already in progress: continue or abort it.", 6)
def rebase_in_progress(c: Case) -> list[str]:
    if (
        "already a rebase-merge directory" not in c.output
        and "already a rebase-apply directory" not in c.output
    ):
        if "No changes - did you forget to use 'git add'?" in c.output:
            return ["git rebase --skip", "git rebase --continue"]
        return []
    options = ["git rebase --continue", "git rebase --abort", "git rebase --skip"]
    # `git rebase -skip`: the option the user half-typed goes first.
    typed = [a.lstrip("-") for a in c.args if a.startswith("-")]
    options.sort(key=lambda o: o.rsplit("--", 1)[-1] not in typed)
    m = c.search(r"rm -fr \"?([^\"\n]*rebase-(?:merge|apply))\"?")
    where = m.group(1) if m else ".git/rebase-merge"
    return [*options[:2], f"rm -fr {sh.quote(where, c.shell_name)}", options[2]]


@rule("git_remote_subcommand", "The git remote subcommand is named differently.", priority=6)
def remote_sub(c: Case) -> list[str]:
    if not c.is_app("git"):
        return []
    if re.search(r"\bremote\s+delete\b", c.script):
        return [re.sub(r"\bremote\s+delete\b", "remote remove", c.script, count=1)]
    m = c.search(r"(?:fatal|error): No such remote '([^']+)'")
    if m and re.search(r"\bremote\s+set-url\b", c.script):
        return [re.sub(r"\bremote\s+set-url\b", "remote add", c.script, count=1)]
    return []


@rule("git_pull_url", "Not a repository yet: clone it instead of pulling.", priority=5)
def pull_url(c: Case) -> list[str]:
    if not c.is_app("git") or "not a git repository" not in c.lower:
        return []
    m = re.search(r"\bpull\s+(\S*(?:://|git@)\S+)", c.script)
    return [f"git clone {m.group(1)}"] if m else []


@rule("git_stash_subcommand", "The nearest git stash subcommand.", priority=7)
def stash_sub(c: Case) -> list[str]:
    m = re.search(r"\bstash\s+(\w+)", c.script)
    if not c.is_app("git") or not m or not c.search(r"usage: git stash (?:list|\[)"):
        return []
    from termwise.agent.rules import fuzzy

    subs = [
        "apply",
        "branch",
        "clear",
        "create",
        "drop",
        "list",
        "pop",
        "push",
        "save",
        "show",
        "store",
    ]
    if m.group(1) in subs:
        return []
    typos = fuzzy.closest(m.group(1), subs, n=2, limit=1 if len(m.group(1)) <= 4 else 2)
    fixes = [c.replace_word(m.group(1), s) for s in typos]
    # Not a misspelt subcommand: the words were meant as the stash's message.
    rest = c.script[m.start(1) :].strip()
    saved = [
        c.script[: m.start(1)] + "save " + rest,
        c.script[: m.start(1)] + "push -m " + sh.quote(rest, c.shell_name),
    ]
    return [*fixes, *saved] if typos else [*saved, *fixes]


@rule("git_merge_remote_branch", "The branch exists only on the remote.", priority=7)
def merge_remote(c: Case) -> list[str]:
    m = c.search(r"merge: (\S+) - not something we can merge")
    if not m or not c.is_app("git"):
        return []
    hints = c.block_after(r"Did you mean (?:this|one of these)\?")
    if hints:
        return [c.replace_arg(m.group(1), h) for h in hints[:2]]
    if "/" in m.group(1):
        return []  # already a remote branch name: a misspelling, not a missing prefix
    return [c.replace_arg(m.group(1), f"origin/{m.group(1)}")]


@rule("git_forgot_add", "The file is not tracked yet: add it first.", priority=6)
def forgot_add(c: Case) -> list[str]:
    m = c.search(r"pathspec '([^']+)' did not match any file\(s\) known to git")
    if not m or "Did you forget to 'git add'?" not in c.output:
        return []
    return [c.then(f"git add -- {m.group(1)}", c.script)]


@rule("git_clone_url", "A repository address on its own: clone it.", priority=5)
def clone_url(c: Case) -> list[str]:
    from termwise.agent.rules.not_found import missing_command

    if not re.fullmatch(r"(?:https?://|git@)\S+", c.script):
        return []
    if not (
        missing_command(c) or c.has("no such file or directory", "not recognized", "not found")
    ):
        return []
    return [f"git clone {c.script}"]


@rule("git_index_lock", "A crashed git left its lock file behind: remove it.", priority=5)
def index_lock(c: Case) -> list[str]:
    m = c.search(r"Unable to create '([^']*index\.lock)': File exists")
    if not m:
        return []
    path = m.group(1)
    if c.powershell:
        return [c.then(f"Remove-Item -Force '{path}'", c.script)]
    if c.cmd:
        return [f'del /f "{path}" && {c.script}']
    return [c.then(f"rm -f {path}", c.script)]


@rule(
    "git_object_permissions", "Part of .git belongs to another user (often root): take it back.", 6
)
def object_permissions(c: Case) -> list[str]:
    if not c.posix or "insufficient permission for adding an object" not in c.output:
        return []
    return [c.then("sudo chown -R $(id -un):$(id -gn) .git", c.script)]


@rule("git_cannot_lock_ref", "Stale remote branch references: prune them.", priority=7)
def lock_ref(c: Case) -> list[str]:
    if "cannot lock ref" not in c.output:
        return []
    return [c.then("git remote prune origin", c.script), c.then("git gc --prune=now", c.script)]


@rule("git_clone_early_eof", "The clone broke off: fetch less history.", priority=8)
def early_eof(c: Case) -> list[str]:
    if not c.is_app("git") or _sub_is(c, "clone") is False or "early EOF" not in c.output:
        return []
    return [re.sub(r"\bclone\b", "clone --depth 1", c.script, count=1)]


def _sub_is(c: Case, sub: str) -> bool:
    return re.search(rf"\bgit\s+(?:-\S+\s+)*{sub}\b", c.segment) is not None


@rule("git_long_paths", "Windows path length limit: let git use long paths.", priority=6)
def long_paths(c: Case) -> list[str]:
    if "Filename too long" not in c.output:
        return []
    return [c.then("git config --global core.longpaths true", c.script)]


@rule(
    "git_ssl_backend", "Git does not trust the certificate: use the Windows certificate store.", 8
)
def ssl_backend(c: Case) -> list[str]:
    if not c.is_app("git") or "unable to get local issuer certificate" not in c.output:
        return []
    if c.windows:
        return [c.then("git config --global http.sslBackend schannel", c.script)]
    return []
