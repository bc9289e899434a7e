"""Git: its own hints (did you mean, set-upstream, safe.directory …) and common mistakes."""

from __future__ import annotations

import re

from termwise.agent.rules import data, env, fuzzy
from termwise.agent.rules import shell as sh
from termwise.agent.rules.engine import Case, rule


def _git(c: Case) -> bool:
    return c.is_app("git") or c.output.startswith(("git: ", "fatal: ", "error: "))


def _sub(c: Case) -> str:
    """The git subcommand (skipping `-C dir`, `-c k=v` and other global flags)."""
    args = c.args
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-C", "-c", "--git-dir", "--work-tree"):
            i += 2
        elif a.startswith("-"):
            i += 1
        else:
            return a
    return ""


@rule("git_did_you_mean", "Git says which command you meant.", priority=5)
def did_you_mean(c: Case) -> list[str]:
    if not c.is_app("git"):
        return []
    m = c.search(r"git: '([^']+)' is not a git command")
    if not m:
        return []
    wrong = m.group(1)
    if wrong in ("lfs", "flow"):
        return []  # separate tools: git_extension_missing installs them
    tail = c.output[m.end() :]
    found = re.search(
        r"(?:The most similar commands? (?:is|are)|Did you mean (?:this|one of these)\??)\s*\n"
        r"((?:[ \t]*[\w-]+[ \t]*(?:\n|$))+)",
        tail,
    )
    if found:
        names = found.group(1).split()
    else:
        names = fuzzy.closest(wrong, _GIT_COMMANDS, n=2)
    return [c.replace_arg(wrong, n) for n in names[:3]]


_GIT_COMMANDS = (
    "add status commit push pull fetch checkout switch branch merge rebase log diff show "
    "stash reset restore clone init remote tag cherry-pick revert config blame bisect "
    "clean mv rm grep submodule worktree describe shortlog reflog apply am archive gc"
).split()


@rule("git_set_upstream", "Push and set the remote branch as upstream, as git says.", priority=5)
def set_upstream(c: Case) -> list[str]:
    if not _git(c) or "has no upstream branch" not in c.output:
        return []
    found = re.findall(r"^[ \t]+(git push (?:--set-upstream|-u) \S+ \S+)\s*$", c.output, re.M)
    m = c.search(r"The current branch (\S+) has no upstream branch")
    branch = m.group(1) if m else "HEAD"
    if found:
        cmd = found[0]
        if m and cmd.endswith(" " + branch):
            cmd = cmd[: -len(branch)] + sh.escape(branch, c.shell_name)
    else:
        cmd = f"git push --set-upstream origin {sh.escape(branch, c.shell_name)}"
    at = c.args.index("push") if "push" in c.args else -1
    if at > 0:  # keep global options (`git -c k=v push`, `git -C dir push`) where they were
        cmd = cmd.replace("git push", "git " + " ".join(c.args[:at]) + " push", 1)
    after = c.args[at + 1 :]
    extra = [a for a in after if a.startswith("-") and a not in ("-u", "--set-upstream")]
    if extra:
        cmd = cmd + " " + " ".join(extra)
    return [cmd]


@rule("git_push_rejected", "The remote has commits you do not have: pull them first.", 6)
def push_rejected(c: Case) -> list[tuple[str, ...]]:
    if not (c.is_app("git") and _sub(c) == "push"):
        return []
    if not c.has("[rejected]", "updates were rejected"):
        return []
    if c.has("hook declined", "protected branch", "permission to", "pre-receive hook"):
        return []
    push = c.script
    lease = re.sub(r"\bpush\b", "push --force-with-lease", push, count=1)
    # Pull from where the push went: `git push up main` -> `git pull up main`.
    at = c.args.index("push") if "push" in c.args else len(c.args)
    where = [a for a in c.args[at + 1 :] if not a.startswith("-")][:2]
    if any(":" in w or w.startswith("+") for w in where[1:]):
        where = where[:1]
    src = (" " + " ".join(where)) if where and ":" not in where[0] else ""
    return [
        (
            c.then(f"git pull --rebase{src}", push),
            "Replay your commits on top of the remote's, then push.",
        ),
        (c.then(f"git pull{src}", push), "Merge the remote's commits into yours, then push."),
        (
            lease,
            "Overwrite the remote branch (only if nobody else pushed there): discards their commits.",
            "Rewrites the remote branch; others' commits pushed since your last fetch are lost.",
        ),
    ]


@rule("git_push_protected", "The branch is protected: push a branch of your own and open a PR.", 6)
def push_protected(c: Case) -> list[tuple[str, str]]:
    if not (c.is_app("git") and _sub(c) == "push"):
        return []
    if not c.search(
        r"GH006: Protected branch update failed|Cannot update this protected ref"
        r"|not allowed to (?:push code to|force push code to) protected branches"
        r"|protected branch hook declined"
    ):
        return []
    branch = "my-change"  # a placeholder: nothing in the failure names the change
    return [
        (
            c.then(f"git switch -c {branch}", f"git push -u origin {branch}"),
            "Put your commits on a new branch and push that; then open a pull request.",
        )
    ]


@rule("git_not_a_repo", "This folder is not a git repository yet.", priority=10)
def not_a_repo(c: Case) -> list[str]:
    if "not a git repository" not in c.lower:
        return []
    if re.search(r"not a git repository: \S", c.output):
        return []  # a submodule or worktree pointing at a git folder that is gone: not `git init`
    if c.is_app("git") and _sub(c) == "init":
        return []
    return ["git init"]


@rule("git_checkout_new_branch", "No such branch: create it.", priority=8)
def checkout_missing(c: Case) -> list[str | tuple[str, str]]:
    if not c.is_app("git"):
        return []
    sub = _sub(c)
    m = c.search(r"pathspec '([^']+)' did not match any file\(s\) known to git")
    if sub in ("checkout", "co") and m:
        name = m.group(1)
        return [*_typo_branch(c, name), f"git checkout -b {name}", f"git switch -c {name}"]
    m = c.search(r"fatal: invalid reference: (\S+)") or c.search(
        r"fatal: a branch is expected, got '?([^'\s]+)"
    )
    if sub == "switch" and m:
        name = m.group(1)
        return [*_typo_branch(c, name), f"git switch -c {name}", f"git checkout -b {name}"]
    return []


def _typo_branch(c: Case, name: str) -> list[str | tuple[str, str]]:
    """The command again with the nearest existing branch, when the name is a slip of one."""
    if name.startswith("-") or ("/" in name and "." in name.rsplit("/", 1)[1]):
        return []  # an option, or a file path rather than a branch
    near = fuzzy.closest(name, env.git_branches(c.cwd), n=1)
    return [(c.replace_arg(name, near[0]), f"The branch '{near[0]}' exists.")] if near else []


@rule("git_branch_exists", "The branch already exists: switch to it.", priority=8)
def branch_exists(c: Case) -> list[str]:
    m = c.search(r"fatal: [Aa] branch named '(.+?)' already exists")
    if not (c.is_app("git") and m):
        return []
    name = sh.escape(m.group(1), c.shell_name)
    return [f"git checkout {name}", f"git switch {name}"]


@rule("git_branch_force_delete", "The branch is not merged: delete it anyway with -D.", 5)
def branch_delete(c: Case) -> list[str]:
    if not (c.is_app("git") and "is not fully merged" in c.output):
        return []
    m = c.search(r"run '(git branch -D [^']+)'")
    if m:
        return [m.group(1)]
    return [re.sub(r"(\s)(-d|--delete)(\s|$)", r"\1-D\3", c.script, count=1)]


@rule("git_clone_twice", "`git clone` was pasted twice.", priority=3)
def clone_twice(c: Case) -> list[str]:
    m = re.match(r"^[ \t]*git clone\s+git clone\s+(.*)$", c.script)
    return [f"git clone {m.group(1)}"] if m else []


@rule("git_commit_nothing_added", "Nothing is staged: stage the changes, then commit.", 8)
def commit_nothing(c: Case) -> list[tuple[str, str]]:
    if not (c.is_app("git") and _sub(c) == "commit"):
        return []
    if not c.has("no changes added to commit", "nothing added to commit but untracked"):
        return []
    out = [(c.then("git add -A", c.script), "Stage every change (new files too), then commit.")]
    if "no changes added" in c.lower:
        am = (
            re.sub(r"\bcommit\s+-m\b", "commit -am", c.script, count=1)
            if re.search(r"\bcommit\s+-m\b", c.script)
            else re.sub(r"\bcommit\b", "commit -a", c.script, count=1)
        )
        out.append((am, "Commit all changes to tracked files."))
    return out


@rule("git_pull_no_tracking", "The branch tracks no remote branch: name one.", priority=6)
def pull_no_tracking(c: Case) -> list[tuple[str, str]]:
    if not (c.is_app("git") and "There is no tracking information" in c.output):
        return []
    m = c.search(r"git branch --set-upstream-to=(\S+?)/<branch> (\S+)")
    branch = m.group(2) if m else "main"
    remote = m.group(1) if m and not m.group(1).startswith("<") else "origin"
    sub = _sub(c) or "pull"
    return [
        (f"git {sub} {remote} {branch}", f"{sub.capitalize()} from {remote}/{branch} this once."),
        (
            c.then(f"git branch --set-upstream-to={remote}/{branch} {branch}", c.script),
            "Track the remote branch from now on, then retry.",
        ),
    ]


@rule("git_local_changes", "Local changes are in the way: stash them around the command.", 7)
def local_changes(c: Case) -> list[tuple[str, str]]:
    if not c.is_app("git"):
        return []
    if (
        "would be overwritten by" not in c.output
        and "Please commit your changes or stash" not in c.output
    ):
        return []
    if _sub(c) == "stash":
        return [
            (
                c.then("git add --update", c.script, "git reset ."),
                "Stage the changed files so the stash can apply over them.",
            ),
            ("git stash show -p", "See what the stash would change."),
        ]
    stash = "git stash -u" if "untracked working tree files" in c.output else "git stash"
    return [
        (
            c.then(stash, c.script, "git stash pop"),
            "Set your changes aside, run it, bring them back.",
        ),
        (c.then(stash, c.script), "Set your changes aside (they stay in the stash), run it."),
        (c.then("git add -A", 'git commit -m "WIP"', c.script), "Commit your changes first."),
    ]


@rule("git_merge_conflict", "Resolve the conflicted files, then continue.", priority=30)
def merge_conflict(c: Case) -> list[tuple[str, str]]:
    if not (c.is_app("git") and c.search(r"^CONFLICT \(|^error: could not (?:apply|revert) ")):
        return []
    files = re.findall(r"Merge conflict in (\S+)", c.output)
    out = [("git status", "List the conflicted files.")]
    if files:
        out.append(("git mergetool", "Resolve the conflicts with a merge tool."))
    if _sub(c) in ("cherry-pick", "revert"):
        out.append((f"git {_sub(c)} --abort", "Give up and go back to where you were."))
        out.append((f"git {_sub(c)} --continue", "After resolving and `git add`: carry on."))
    elif _sub(c) == "rebase" or "rebase" in c.lower:
        out.append(("git rebase --abort", "Give up the rebase and go back to where you were."))
    elif _sub(c) == "stash":
        out.append(("git reset --merge", "Undo the conflicted apply; the stash entry stays saved."))
    else:
        out.append(("git merge --abort", "Give up the merge and go back to where you were."))
    return out


@rule("git_unknown_option", "The nearest option git knows for this command.", priority=12)
def unknown_option(c: Case) -> list[str]:
    if not c.is_app("git"):
        return []
    m = c.search(r"error: (?:unknown|did you mean) (?:switch|option) [`']([^'`]+)'")
    m = m or c.search(r"(?:unrecognized argument|unknown option): --?([\w-]+)")
    if not m:
        return []
    wrong = m.group(1)
    long_opt = len(wrong) > 1
    typed = ("--" if long_opt else "-") + wrong
    known = re.findall(r"(--[a-z][\w-]*)" if long_opt else r"\s(-[a-zA-Z])\b", c.output)
    known = [k for k in known if k != typed]  # the message repeats the wrong option itself
    if long_opt and not known:  # no usage printed: git's common long options
        known = ["--" + o for o in data.subcommands("git-long-options")]
    best = fuzzy.closest(typed, list(dict.fromkeys(known)), n=2)
    if not best and not long_opt:
        # `-force` parses as `-f -o -r …`: the user meant the long option.
        m2 = re.search(r"(?<!\S)-([a-z][a-z-]+)", c.script)
        if m2:
            return [c.replace_word("-" + m2.group(1), "--" + m2.group(1))]
    return [c.replace_word(typed, b) for b in best if typed in c.script]


@rule("git_two_dashes", "Long options take two dashes.", priority=5)
def two_dashes(c: Case) -> list[str]:
    m = c.search(r"did you mean `--([\w-]+)` \(with two dashes")
    return [c.replace_word("-" + m.group(1), "--" + m.group(1))] if m else []


@rule("git_safe_directory", "Git does not trust a folder owned by someone else.", priority=4)
def safe_directory(c: Case) -> list[str]:
    if "dubious ownership" not in c.output and "unsafe repository" not in c.output:
        return []
    m = c.search(r"^[ \t]*(git config --global --add safe\.directory .+?)\s*$")
    if m:
        return [m.group(1), c.then(m.group(1), c.script)]
    m = c.search(r"dubious ownership in repository at '([^']+)'") or c.search(
        r"unsafe repository \('([^']+)' is owned by someone else"
    )
    return [f"git config --global --add safe.directory {m.group(1)}"] if m else []


@rule("git_identity", "Git needs your name and e-mail before it can commit.", priority=6)
def identity(c: Case) -> list[str]:
    if (
        "Please tell me who you are" not in c.output
        and "unable to auto-detect email" not in c.output
    ):
        return []
    return [
        c.then(
            'git config --global user.name "Your Name"',
            'git config --global user.email "you@example.com"',
        )
    ]


@rule("git_remote_exists", "The remote exists already: change its URL instead.", priority=6)
def remote_exists(c: Case) -> list[str]:
    m = c.search(r"(?:fatal|error): remote (\S+) already exists")
    if not (c.is_app("git") and m):
        return []
    return [re.sub(r"\bremote\s+add\b", "remote set-url", c.script, count=1)]


@rule("git_unrelated_histories", "Allow merging two histories with no common commit.", 6)
def unrelated(c: Case) -> list[str]:
    if not (c.is_app("git") and "refusing to merge unrelated histories" in c.output):
        return []
    return [c.script + " --allow-unrelated-histories"]


@rule("git_src_refspec", "That branch does not exist locally.", priority=7)
def src_refspec(c: Case) -> list[tuple[str, str]]:
    m = c.search(r"src refspec (\S+) does not match any")
    if not (c.is_app("git") and m):
        return []
    ref = m.group(1)
    out: list[tuple[str, str]] = []
    local = env.git_branches(c.cwd, remotes=False)
    head = env.git_head(c.cwd)
    if local:  # the repository is readable and has commits: say what is there
        near = fuzzy.closest(ref, local, n=1)  # a slip of an existing name first
        if near:
            out.append((c.replace_word(ref, near[0]), f"The branch '{near[0]}' exists."))
        if head and head != ref and head not in near:
            out.append((c.replace_word(ref, head), f"You are on {head}."))
        if out:
            return out
    # On the branch named, with no commit on it: it is the first commit that is missing.
    unborn = not local and head == ref
    other = None if unborn else {"master": "main", "main": "master"}.get(ref)
    if other:
        out.append((c.replace_word(ref, other), f"Your branch is probably called {other}."))
    out.append(
        (
            c.then("git add -A", 'git commit -m "Initial commit"', c.script),
            "No commit yet: make the first one, then push.",
        )
    )
    out.append(
        (c.then('git commit -m "Initial commit"', c.script), "Commit what is staged, then push.")
    )
    out.append((c.replace_word(ref, "HEAD"), "Push whatever branch you are on."))
    return out


@rule("git_remote_ref_missing", "The remote has no branch by that name.", priority=9)
def remote_ref(c: Case) -> list[str]:
    m = c.search(r"couldn't find remote ref (\S+)")
    if not (c.is_app("git") and m):
        return []
    ref = m.group(1).removeprefix("refs/heads/")
    other = {"master": "main", "main": "master"}.get(ref)
    return [c.replace_word(ref, other)] if other else ["git branch -r"]


@rule("git_no_remote", "There is no such remote: add it.", priority=9)
def no_remote(c: Case) -> list[str]:
    m = c.search(r"'([^']+)' does not appear to be a git repository")
    if not (c.is_app("git") and m) or "/" in m.group(1):
        return []
    return [f"git remote add {m.group(1)} <url>", "git remote -v"]


@rule("git_ssh_publickey", "SSH key refused: use the HTTPS address, or load your key.", 9)
def publickey(c: Case) -> list[tuple[str, str]]:
    if "Permission denied (publickey" not in c.output:
        return []
    out: list[tuple[str, str]] = []
    m = re.search(r"git@([\w.-]+):([\w./-]+?)(?:\.git)?(?:\s|$)", c.script + "\n" + c.output)
    if m:
        https = f"https://{m.group(1)}/{m.group(2)}.git"
        if _sub(c) == "clone":
            out.append((f"git clone {https}", "Clone over HTTPS instead of SSH."))
        else:
            out.append(
                (
                    c.then(f"git remote set-url origin {https}", c.script),
                    "Switch the remote to HTTPS.",
                )
            )
    out.append(("ssh-add ~/.ssh/id_ed25519", "Load your SSH key into the agent."))
    out.append(
        (
            'ssh-keygen -t ed25519 -C "you@example.com"',
            "Make a key, then add its .pub to your account.",
        )
    )
    return out


@rule("git_upstream_mismatch", "Push the current branch to the same name on the remote.", 7)
def upstream_mismatch(c: Case) -> list[str]:
    if "does not match" not in c.output or "upstream branch" not in c.output:
        return []
    return re.findall(r"^[ \t]+(git push \S+ HEAD(?::\S+)?)\s*$", c.output, re.M)[:2]


@rule("git_printed_command", "The command git's message tells you to run.", priority=40)
def printed(c: Case) -> list[str]:
    if not c.is_app("git"):
        return []
    cmds = re.findall(r"^(?:hint: )?[ \t]{2,}(git [^<\n#]+?)\s*(?:#.*)?$", c.output, re.M)
    return [x for x in cmds if x.strip() != c.script][:2]
