"""Failures that printed nothing useful: the fix is read from the command line itself."""

from __future__ import annotations

from tests.agent.rules.table import T

CASES = [
    T("ls build", "", "ls -A build", exit_code=0),
    T("ls -l", "", "ls -lah -l", exit_code=0, first=False),
    T("git diff", "", "git diff --staged", exit_code=0),
    T("git diff src/app.py", "", "git diff --staged src/app.py", exit_code=0),
    T("git diff old.txt new.txt", "", "git diff --no-index old.txt new.txt", first=False),
    T("git -C repo diff", "", "git -C repo diff --staged", exit_code=0),
    T('git commit -m "fix typo"', "", "git commit --amend", exit_code=0),
    T(
        'git commit -m "wip"',
        "[main 3f2a1b9] wip\n 1 file changed, 2 insertions(+)\n",
        "git reset HEAD~",
        exit_code=0,
        first=False,
    ),
    T('git commit -m "wip"', "", 'git commit -a -m "wip"', first=False),
    T(
        "git push origin main",
        "husky > pre-push hook failed (add --no-verify to bypass)\n",
        "git push --no-verify origin main",
        first=False,
    ),
    T("git branch list", "", "git branch --delete list && git branch", exit_code=0),
    T("git branch ls", "", "git branch --delete ls && git branch", exit_code=0),
    T("git branch 0v", "", "git branch -D 0v && git branch -v", exit_code=0),
    T(
        "git branch 0d old-feature",
        "",
        "git branch -D 0d && git branch -d old-feature",
        exit_code=0,
    ),
    T(
        "git branch 0u origin/main",
        "fatal: Not a valid object name: 'origin/main'.",
        "git branch -u origin/main",
    ),
    T("systemctl nginx restart", "", "systemctl restart nginx"),
    T("sudo systemctl docker enable", "", "sudo systemctl enable docker"),
    T("java Main.java", "", "java Main"),
    T("javac Main", "", "javac Main.java"),
    T("python manage", "", "python manage.py"),
    T("go run main", "", "go run main.go"),
    T("py manage runserver", "", "py manage.py runserver", shell="powershell"),
    T("ln shared/config current", "", "ln -s shared/config current"),
    T("sudo ln /opt/app/bin /usr/local/app", "", "sudo ln -s /opt/app/bin /usr/local/app"),
    T("mkdir build/out/logs", "", "mkdir -p build/out/logs"),
    T("cd releases/v2", "", "mkdir -p releases/v2 && cd releases/v2"),
    T(
        "cd deploy",
        "bash: cd: deploy: No such file or directory",
        "mkdir -p deploy && cd deploy",
        first=False,
    ),
    T("man 2 open", "No manual entry for open in section 2\n", "man 3 open"),
    T("man -s 3 write", "", "man -s 2 write"),
    T("man read", "", "man 3 read"),
    T("git statusç", "", "git status"),
    # Typed on a Greek or Hebrew layout.
    T("ψδ /τμπ", "", "cd /tmp"),
    T("עןא דאשאוד", "", "git status"),
    T("햣 ㄴㅅㅁ션", "zsh: command not found: 햣", "git status"),
    T("녀애 ㅣㄴ", "", "sudo ls"),
    T("sort -h", "", "sort --help"),
    T("whois api.staging.example.com", "", "whois staging.example.com"),
    T("npm npm install", "", "npm install"),
    T("echo 'done\"", "", 'echo "done"'),
    T("grep -n TODO src/", "", "grep -r -n TODO src/"),
    T("cp assets", "", "cp -a assets"),
    T(
        "docker rmi web:old",
        'Error response from daemon: conflict: unable to remove repository reference "web:old"'
        " (must force) - image\n  is being used by stopped container 0a1b2c3d4e5f\n",
        "docker container rm -f 0a1b2c3d4e5f && docker rmi web:old",
    ),
    # Windows: an empty listing may hide hidden items.
    T("Get-ChildItem .config", "", "Get-ChildItem -Force .config", shell="powershell", exit_code=0),
    T("dir build", "", "dir /a build", shell="cmd", exit_code=0),
    T(
        "cd releases\\v2",
        "The system cannot find the path specified.\n",
        "mkdir releases\\v2 && cd releases\\v2",
        shell="cmd",
    ),
]
