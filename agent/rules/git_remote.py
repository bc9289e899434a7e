"""Git, continued: pulls that need a strategy, authentication, big pushes, clones, quoting."""

from __future__ import annotations

import re

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
        r"cannot (?:pull with rebase|rebase): You have unstaged changes", c.output
    ):
        return []
    return [c.script + " --autostash", c.then("git stash", c.script, "git stash pop")]


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
    found = re.findall(r"^\s+(git push \S+ HEAD:<[^>]+>)", c.output, re.M)
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
    if not c.is_app("git") or not re.search(r"pathspec '.*' did not match any file", c.output):
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
