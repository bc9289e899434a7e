"""Git failures as git prints them, and the command that fixes each."""

from __future__ import annotations

from tests.agent.rules.table import T

REJECTED = (
    "To github.com:me/app.git\n ! [rejected]        main -> main (fetch first)\n"
    "error: failed to push some refs to 'github.com:me/app.git'\n"
    "hint: Updates were rejected because the remote contains work that you do\n"
    "hint: not have locally. This is usually caused by another repository pushing\n"
    "hint: to the same ref. You may want to first integrate the remote changes\n"
    "hint: (e.g., 'git pull ...') before pushing again.\n"
)
NON_FF = (
    "To https://github.com/me/app.git\n ! [rejected]        dev -> dev (non-fast-forward)\n"
    "error: failed to push some refs to 'https://github.com/me/app.git'\n"
    "hint: Updates were rejected because the tip of your current branch is behind\n"
    "hint: its remote counterpart. Integrate the remote changes (e.g.\n"
    "hint: 'git pull ...') before pushing again.\n"
)
NO_UPSTREAM = (
    "fatal: The current branch {0} has no upstream branch.\n"
    "To push the current branch and set the remote as upstream, use\n\n"
    "    git push --set-upstream origin {0}\n\n"
    "To have this happen automatically for branches without a tracking\n"
    "upstream, see 'push.autoSetupRemote' in 'git help config'.\n"
)
NO_TRACKING = (
    "There is no tracking information for the current branch.\n"
    "Please specify which branch you want to merge with.\n"
    "See git-pull(1) for details.\n\n    git pull <remote> <branch>\n\n"
    "If you wish to set tracking information for this branch you can do so with:\n\n"
    "    git branch --set-upstream-to=origin/<branch> feature\n"
)

CASES = [
    T(
        "git brnch",
        "git: 'brnch' is not a git command. See 'git --help'.\n\nThe most similar command is\n\tbranch\n",
        "git branch",
    ),
    T(
        "git brnch",
        "git: 'brnch' is not a git command. See 'git --help'.\n\nDid you mean this?\n\tbranch\n",
        "git branch",
    ),
    T(
        "git stauts",
        "git: 'stauts' is not a git command. See 'git --help'.\n\nThe most similar commands are\n\tstatus\n\tstage\n\tstash\n",
        "git status",
    ),
    T(
        "git stauts",
        "git: 'stauts' is not a git command. See 'git --help'.\n\nThe most similar commands are\n\tstatus\n\tstage\n\tstash\n",
        "git stash",
        first=False,
    ),
    T(
        "git comit -m 'x'",
        "git: 'comit' is not a git command. See 'git --help'.\n\nThe most similar command is\n\tcommit\n",
        "git commit -m 'x'",
    ),
    T(
        "git psuh",
        "git: 'psuh' is not a git command. See 'git --help'.\n\nThe most similar command is\n\tpush\n",
        "git psuh".replace("psuh", "push"),
        "powershell",
    ),
    T("git push", NO_UPSTREAM.format("master"), "git push --set-upstream origin master"),
    T(
        "git push",
        NO_UPSTREAM.format("feature/login"),
        "git push --set-upstream origin feature/login",
        "pwsh",
    ),
    T("git push --force", NO_UPSTREAM.format("fix"), "git push --set-upstream origin fix --force"),
    T("git push", REJECTED, "git pull --rebase && git push"),
    T(
        "git push origin main",
        REJECTED,
        "git pull --rebase origin main; git push origin main",
        "powershell",
    ),
    T(
        "git push origin main",
        REJECTED,
        "git pull --rebase origin main && git push origin main",
        "pwsh",
    ),
    T("git push", NON_FF, "git push --force-with-lease", first=False),
    T("git push", NON_FF, "git pull && git push", first=False),
    T(
        "git status",
        "fatal: not a git repository (or any of the parent directories): .git",
        "git init",
    ),
    T(
        "git log",
        "fatal: not a git repository (or any parent up to mount point /)\nStopping at filesystem boundary (GIT_DISCOVERY_ACROSS_FILESYSTEM not set).",
        "git init",
    ),
    T(
        "git checkout feature-x",
        "error: pathspec 'feature-x' did not match any file(s) known to git",
        "git checkout -b feature-x",
    ),
    T(
        "git checkout feature-x",
        "error: pathspec 'feature-x' did not match any file(s) known to git",
        "git switch -c feature-x",
        first=False,
    ),
    T("git switch feature-x", "fatal: invalid reference: feature-x", "git switch -c feature-x"),
    T("git checkout -b dev", "fatal: A branch named 'dev' already exists.", "git checkout dev"),
    T(
        "git branch -d old",
        "error: The branch 'old' is not fully merged.\nIf you are sure you want to delete it, run 'git branch -D old'.",
        "git branch -D old",
    ),
    T(
        "git branch -d old",
        "error: the branch 'old' is not fully merged\nhint: If you are sure you want to delete it, run 'git branch -D old'\nhint: Disable this message with \"git config advice.forceDeleteBranch false\"",
        "git branch -D old",
    ),
    T(
        "git clone git clone https://github.com/me/app.git",
        "fatal: Too many arguments.\n\nusage: git clone [<options>] [--] <repo> [<dir>]",
        "git clone https://github.com/me/app.git",
    ),
    T(
        "git commit -m 'fix'",
        'On branch main\nChanges not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n\tmodified:   app.py\n\nno changes added to commit (use "git add" and/or "git commit -a")',
        "git add -A && git commit -m 'fix'",
    ),
    T(
        "git commit -m 'fix'",
        'On branch main\nChanges not staged for commit:\n\tmodified:   app.py\n\nno changes added to commit (use "git add" and/or "git commit -a")',
        "git commit -am 'fix'",
        first=False,
    ),
    T(
        "git commit -m init",
        'On branch main\n\nInitial commit\n\nUntracked files:\n\tREADME.md\n\nnothing added to commit but untracked files present (use "git add" to track)',
        "git add -A && git commit -m init",
    ),
    T("git pull", NO_TRACKING, "git pull origin feature"),
    T(
        "git pull",
        NO_TRACKING,
        "git branch --set-upstream-to=origin/feature feature && git pull",
        first=False,
    ),
    T(
        "git stash pop",
        "error: Your local changes to the following files would be overwritten by merge:\n\tapp.py\nPlease commit your changes or stash them before you merge.\nAborting\nThe stash entry is kept in case you need it again.",
        "git add --update && git stash pop && git reset .",
    ),
    T(
        "git pull",
        "error: Your local changes to the following files would be overwritten by merge:\n\tapp.py\nPlease commit your changes or stash them before you merge.\nAborting",
        "git stash && git pull && git stash pop",
    ),
    T(
        "git checkout main",
        "error: Your local changes to the following files would be overwritten by checkout:\n\tapp.py\nPlease commit your changes or stash them before you switch branches.\nAborting",
        "git stash && git checkout main && git stash pop",
    ),
    T(
        "git stash pop",
        "Auto-merging app.py\nCONFLICT (content): Merge conflict in app.py\nOn branch main\nThe stash entry is kept in case you need it again.",
        "git status",
    ),
    T(
        "git commit --amnd",
        "error: unknown option `amnd'\nusage: git commit [<options>] [--] <pathspec>...\n\n    -q, --quiet           suppress summary after successful commit\n    --amend               amend previous commit\n    --no-verify           bypass pre-commit hooks\n",
        "git commit --amend",
    ),
    T("git push -force", "error: did you mean `--force` (with two dashes)?", "git push --force"),
    T(
        "git status",
        "fatal: detected dubious ownership in repository at '/srv/app'\nTo add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /srv/app\n",
        "git config --global --add safe.directory /srv/app",
    ),
    T(
        "git commit -m x",
        'Author identity unknown\n\n*** Please tell me who you are.\n\nRun\n\n  git config --global user.email "you@example.com"\n  git config --global user.name "Your Name"\n',
        'git config --global user.name "Your Name" && git config --global user.email "you@example.com"',
    ),
    T(
        "git remote add origin https://github.com/me/app.git",
        "error: remote origin already exists.",
        "git remote set-url origin https://github.com/me/app.git",
    ),
    T(
        "git pull origin main",
        "fatal: refusing to merge unrelated histories",
        "git pull origin main --allow-unrelated-histories",
    ),
    T(
        "git push origin master",
        "error: src refspec master does not match any\nerror: failed to push some refs to 'github.com:me/app.git'",
        "git push origin main",
    ),
    T(
        "git push -u origin main",
        "error: src refspec main does not match any\nerror: failed to push some refs to 'https://github.com/me/app.git'",
        "git push -u origin master",
    ),
    T("git pull origin master", "fatal: couldn't find remote ref master", "git pull origin main"),
    T(
        "git clone git@github.com:me/app.git",
        "Cloning into 'app'...\ngit@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.",
        "git clone https://github.com/me/app.git",
    ),
    T(
        "git push",
        "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
        "ssh-add ~/.ssh/id_ed25519",
        first=False,
    ),
    T(
        "git push",
        "fatal: The upstream branch of your current branch does not match\nthe name of your current branch.  To push to the upstream branch\non the remote, use\n\n    git push origin HEAD:main\n\nTo push to the branch of the same name on the remote, use\n\n    git push origin HEAD\n",
        "git push origin HEAD:main",
    ),
    # A stash "subcommand" that is really the message.
    T(
        "git stash before rebase",
        "fatal: subcommand wasn't specified; 'push' can't be assumed due to unexpected token 'before'\n"
        "usage: git stash list [<options>]\n   or: git stash show [<options>] [<stash>]\n",
        "git stash save before rebase",
    ),
    T(
        "git stash lsit",
        "usage: git stash list [<options>]\n   or: git stash show [<options>] [<stash>]\n",
        "git stash list",
    ),
    # The merge hint replaces the branch argument, not the same word inside the message.
    T(
        'git merge -m "bring in feature" feature',
        "merge: feature - not something we can merge\n\nDid you mean this?\n\torigin/feature\n",
        'git merge -m "bring in feature" origin/feature',
    ),
    # Branch names git prints raw are escaped when pasted back.
    T(
        "git push",
        "fatal: The current branch it's-done has no upstream branch.\n"
        "To push the current branch and set the remote as upstream, use\n\n"
        "    git push --set-upstream origin it's-done\n\n",
        "git push --set-upstream origin it\\'s-done",
    ),
    T(
        "git checkout -b hotfix",
        "fatal: a branch named 'hotfix' already exists\n",
        "git branch -d hotfix && git checkout -b hotfix",
        first=False,
    ),
    T(
        'git switch -c "bob\'s-fix"',
        "fatal: a branch named 'bob's-fix' already exists\n",
        "git switch bob\\'s-fix",
        first=False,
    ),
    T(
        "git cherry-pick 4f2e1a0",
        "error: Your local changes would be overwritten by cherry-pick.\n"
        "hint: Commit your changes or stash them to proceed.\nfatal: cherry-pick failed\n",
        "git stash && git cherry-pick 4f2e1a0",
        first=False,
    ),
    T(
        "git pull --rebase",
        "error: cannot pull with rebase: You have unstaged changes.\n"
        "error: please commit or stash them.\n",
        "git stash && git pull --rebase",
        first=False,
    ),
    T(
        "git rebase -abort",
        "It seems that there is already a rebase-merge directory, and\n"
        "I wonder if you are in the middle of another rebase.  If that is the\n"
        "case, please try\n\tgit rebase (--continue | --abort | --skip)\n"
        'If that is not the case, please\n\trm -fr "/home/me/app/.git/rebase-merge"\n'
        "and run me again.\n",
        "git rebase --abort",
    ),
    T("git log --onelin", "fatal: unrecognized argument: --onelin\n", "git log --oneline"),
    T(
        "git branch -D main",
        "error: Cannot delete branch 'main' checked out at '/home/me/app'\n",
        "git checkout master && git branch -D main",
    ),
    T(
        "git stash pop",
        "Auto-merging app.py\nCONFLICT (content): Merge conflict in app.py\n"
        "The stash entry is kept in case you need it again.\n",
        "git reset --merge",
        first=False,
    ),
    T(
        "git cherry-pick 9fceb02",
        "error: could not apply 9fceb02... Fix login\n"
        "hint: After resolving the conflicts, mark them with\n"
        'hint: "git add/rm <pathspec>", then run\nhint: "git cherry-pick --continue".\n',
        "git cherry-pick --abort",
        first=False,
    ),
]
