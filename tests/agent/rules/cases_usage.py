"""Usage slips and Windows setup gaps, with the fix each message points to."""

from __future__ import annotations

from tests.agent.rules.table import T

STORE = (
    "Python was not found; run without arguments to install from the Microsoft Store, "
    "or disable this shortcut from Settings > Manage App Execution Aliases."
)

UPSTREAM = (
    "fatal: The current branch master has no upstream branch.\n"
    "To push the current branch and set the remote as upstream, use\n\n"
    "    git push --set-upstream origin master\n\n"
)
DOCKER_IMAGE = (
    "\nUsage:\tdocker image COMMAND\n\nManage images\n\nCommands:\n"
    "  build       Build an image from a Dockerfile\n"
    "  history     Show the history of an image\n"
    "  load        Load an image from a tar archive or STDIN\n"
    "  ls          List images\n"
    "  prune       Remove unused images\n"
    "  rm          Remove one or more images\n"
    "  tag         Create a tag TARGET_IMAGE that refers to SOURCE_IMAGE\n\n"
    "Run 'docker image COMMAND --help' for more information on a command.\n"
)
DOCKER_SWARM = (
    "\nUsage:\tdocker swarm COMMAND\n\nManage Swarm\n\nCommands:\n"
    "  ca          Display and rotate the root CA\n"
    "  init        Initialize a swarm\n"
    "  join        Join a swarm as a node and/or manager\n"
    "  join-token  Manage join tokens\n"
    "  leave       Leave the swarm\n\n"
    "Run 'docker swarm COMMAND --help' for more information on a command.\n"
)

CHOCO_MISSING = (
    "Installing the following packages:\nlogstitcher\nBy installing you accept licenses for the packages.\n"
    "logstitcher not installed. The package was not found with the source(s) listed."
)

BEHIND = (
    "To github.com:me/app.git\n ! [rejected]        main -> main (non-fast-forward)\n"
    "error: failed to push some refs to 'github.com:me/app.git'\n"
    "hint: Updates were rejected because the tip of your current branch is behind\n"
    "hint: its remote counterpart. Integrate the remote changes (e.g.\n"
    "hint: 'git pull ...') before pushing again.\n"
)
NPM_OLD_USAGE = (
    "\nUsage: npm <command>\n\nwhere <command> is one of:\n"
    "    access, adduser, bin, bugs, cache, config, dedupe, docs, edit, help, init,\n"
    "    install, link, list, ls, outdated, pack, prune, publish, rebuild, remove,\n"
    "    run-script, search, start, stop, test, uninstall, update, upgrade, version, view\n\n"
    "npm <cmd> -h     quick help on <cmd>\n"
)

SED_OPEN = "sed: -e expression #1, char 9: unterminated `s' command"

CASES = [
    T(
        "tar xzf file.tar.bz2",
        "gzip: stdin: not in gzip format\ntar: Child returned status 1\ntar: Error is not recoverable: exiting now",
        "tar xf file.tar.bz2",
    ),
    T(
        "sudo tar -xjf a.tar.gz -C /opt",
        "bzip2: (stdin) is not a bzip2 file.\ntar: Child returned status 2",
        "sudo tar -xf a.tar.gz -C /opt",
    ),
    T(
        'git commit "fix login bug"',
        "error: pathspec 'fix login bug' did not match any file(s) known to git",
        'git commit -m "fix login bug"',
    ),
    T(
        "git commit -a wip",
        "error: pathspec 'wip' did not match any file(s) known to git",
        'git commit -a -m "wip"',
    ),
    T("sed -e 's/\\/foo/bar' in.txt", SED_OPEN, "sed -e 's/\\/foo/bar/' in.txt"),
    T("sed -e s/foo/bar -es/baz/quz", SED_OPEN, "sed -e s/foo/bar/ -es/baz/quz/"),
    T("sed -i 's|/usr|/opt' conf", SED_OPEN, "sed -i 's|/usr|/opt|' conf"),
    T("ls-la", "bash: ls-la: command not found", "ls -la"),
    T(
        "bin/rspec",
        "Migrations are pending. To resolve this issue, run:\n\n        bin/rails db:migrate RAILS_ENV=test\n",
        "bin/rails db:migrate RAILS_ENV=test && bin/rspec",
    ),
    T(" $ $ python3 -m venv env", "$: command not found", "python3 -m venv env"),
    T(
        "sudo apt update",
        "Reading package lists... Done\n8 packages can be upgraded. Run 'apt list --upgradable' to see them.\n",
        "apt list --upgradable",
        exit_code=0,
    ),
    T(
        "apt list --upgradable",
        "Listing... Done\nvim/jammy 2:8.2 amd64 [upgradable from: 2:8.1]\n",
        "sudo apt upgrade",
        exit_code=0,
    ),
    T(
        "brew install git",
        "Warning: git 2.3.5 is already installed and up-to-date\nTo reinstall 2.3.5, run `brew reinstall git`",
        "brew reinstall git",
        exit_code=0,
    ),
    T("git branch list", "", "git branch --delete list && git branch", exit_code=0),
    T("git help ds", "`git ds' is aliased to `diff --staged'", "git help diff", exit_code=0),
    T(
        "whois meta.unix.stackexchange.com",
        'No match for "META.UNIX.STACKEXCHANGE.COM".',
        "whois unix.stackexchange.com",
    ),
    T(
        "docker push registry.local:5000/team/app:1.2",
        "The push refers to repository [registry.local:5000/team/app]\n"
        "push access denied for team/app, repository does not exist or may require 'docker login'\n",
        "docker login registry.local:5000 && docker push registry.local:5000/team/app:1.2",
    ),
    T(
        "docker push registry.local:5000/team/app:1.2",
        "push access denied for team/app, repository does not exist or may require 'docker login'\n",
        "docker login && docker push registry.local:5000/team/app:1.2",
        first=False,
    ),
    T(
        "vagrant rdp devbox",
        "VM must be created before running this command. Run `vagrant up` first.",
        "vagrant up devbox && vagrant rdp devbox",
    ),
    T(
        "git log -p README.md --name-only",
        "fatal: option '--name-only' must come before non-option arguments",
        "git log -p --name-only README.md",
    ),
    T(
        "sudo apt install pyhton3",
        "Reading package lists... Done\nBuilding dependency tree\nE: Unable to locate package pyhton3",
        "sudo apt install python3",
    ),
    T("sudo pacman -S neovmi", "error: target not found: neovmi", "sudo pacman -S neovim"),
    T(
        "sudo dnf install ripgrpe",
        "No match for argument: ripgrpe\nError: Unable to find a match: ripgrpe",
        "sudo dnf install ripgrep",
    ),
    T("фзе-пуе", "bash: фзе-пуе: команда не найдена", "apt-get"),
    T("пше ыефегы", "bash: пше: command not found", "git status"),
    T(
        "git diff notes1.txt notes2.txt",
        "usage: git diff --no-index [<options>] <path> <path>\n",
        "git diff --no-index notes1.txt notes2.txt",
    ),
    T(
        "git diff /tmp/a.txt /tmp/b.txt",
        "fatal: /tmp/a.txt: '/tmp/a.txt' is outside repository at '/home/me/app'",
        "git diff --no-index /tmp/a.txt /tmp/b.txt",
    ),
    T(
        "sudo -u app appcfg update .",
        "sudo: appcfg: command not found",
        'sudo -u app env "PATH=$PATH" appcfg update .',
    ),
    T(
        "brew ln coreutils",
        "Error: Could not symlink bin/gcp\nTarget /usr/local/bin/gcp\nalready exists. You may want to remove it:\n"
        "rm '/usr/local/bin/gcp'\n\nTo force the link and overwrite all conflicting files:\n"
        "brew link --overwrite coreutils\n\nTo list all files that would be deleted:\n"
        "brew link --overwrite --dry-run coreutils\n",
        "brew link --overwrite --dry-run coreutils",
        first=False,
    ),
    T(
        "git push upstream main",
        BEHIND,
        "git pull --rebase upstream main && git push upstream main",
    ),
    T(
        "git push upstream main",
        BEHIND,
        "git pull upstream main && git push upstream main",
        first=False,
    ),
    T("git push origin HEAD:main", BEHIND, "git pull --rebase origin && git push origin HEAD:main"),
    T("npm urgrade", NPM_OLD_USAGE, "npm upgrade"),
    T("npm -g isntall gulp", NPM_OLD_USAGE, "npm -g install gulp"),
    T(
        "git branch foo",
        "fatal: A branch named 'foo' already exists.",
        "git branch -D foo && git branch foo",
        first=False,
    ),
    T("cinst logstitcher", CHOCO_MISSING, "cinst logstitcher.install", "powershell", first=False),
    T("yarn etil", 'error Command "etil" not found. Did you mean "etl"?', "yarn etl"),
    T(
        "./install.sh --help",
        "install.sh: permission denied",
        "chmod +x install.sh && ./install.sh --help",
    ),
    T("hdfs dfs -rm logs", "rm: `logs`: Is a directory", "hdfs dfs -rm -r logs"),
    T(
        "brew install gitt",
        'Warning: No available formula with the name "gitt". Did you mean git, gitg or gist?',
        "brew install git",
    ),
    T(
        "brew install gitt",
        'Warning: No available formula with the name "gitt". Did you mean git, gitg or gist?',
        "brew install gist",
        first=False,
    ),
    T("sudo pacaur -S hello", "you cannot perform this operation as root", "pacaur -S hello"),
    T(
        "sudo brew install wget",
        "Error: Running Homebrew as root is extremely dangerous and no longer supported.",
        "brew install wget",
    ),
    T("sudo makepkg -si", "==> ERROR: Running makepkg as root is not allowed", "makepkg -si"),
    T("vom notes.txt", "vom: not found", "vim notes.txt"),
    T(
        "cd /srv/ap/",
        'cd: The directory "/srv/ap/" does not exist',
        "mkdir -p /srv/ap/ && cd /srv/ap/",
        "fish",
        first=False,
    ),
    T(
        "git rebase -i HEAD~3",
        "Cannot rebase: Your index contains uncommitted changes.\nPlease commit or stash them.",
        "git stash && git rebase -i HEAD~3 && git stash pop",
        first=False,
    ),
    T(
        "git -c core.quotepath=off push --quiet origin",
        UPSTREAM,
        "git -c core.quotepath=off push --set-upstream origin master --quiet",
    ),
    T(
        "hdfs dfs -mkdir foo/bar/baz",
        "mkdir: `foo/bar/baz': No such file or directory",
        "hdfs dfs -mkdir -p foo/bar/baz",
    ),
    T("pip remove requests", 'ERROR: unknown command "remove"', "pip uninstall requests"),
    T("pip delete requests", 'ERROR: unknown command "delete"', "pip uninstall requests"),
    T("reboot", "reboot: need root privileges", "sudo reboot"),
    T("cp src /backup", "cp: src: is a directory", "cp -r src /backup"),
    T("docker image la", DOCKER_IMAGE, "docker image ls"),
    T("docker image la", DOCKER_IMAGE, "docker image load", first=False),
    T("docker swarm int", DOCKER_SWARM, "docker swarm init"),
    T("git log README.md -p", "fatal: bad flag '-p' used after filename", "git log -p README.md"),
    T(
        "git diff src/app.py --stat",
        "fatal: option '--stat' must come before non-option arguments",
        "git diff --stat src/app.py",
    ),
    T("git help st", "`git st' is aliased to `status'", "git help status"),
    T(
        "git pull",
        "error: cannot pull with rebase: You have unstaged changes.\nerror: please commit or stash them.",
        "git stash && git pull && git stash pop",
        first=False,
    ),
    T(
        "git pull --rebase",
        "error: cannot pull with rebase: Your index contains uncommitted changes.\nerror: please commit or stash them.",
        "git pull --rebase --autostash",
        first=False,
    ),
    T(
        "git remote set-url origin git@github.com:me/app.git",
        "error: No such remote 'origin'",
        "git remote add origin git@github.com:me/app.git",
    ),
    T(
        "git branch feature",
        "fatal: a branch named 'feature' already exists",
        "git branch -d feature && git branch feature",
        first=False,
    ),
    T(
        "git git push origin main",
        "git: 'git' is not a git command. See 'git --help'.",
        "git push origin main",
    ),
    T(
        "git pull",
        "There is no tracking information for the current branch.\nPlease specify which branch you want to merge with.\n"
        "See git-pull(1) for details\n\n    git pull <remote> <branch>\n\n"
        "If you wish to set tracking information for this branch you can do so with:\n\n"
        "    git branch --set-upstream-to=<remote>/<branch> master\n",
        "git branch --set-upstream-to=origin/master master && git pull",
        first=False,
    ),
    T(
        "docker image rm -f cd809b04b6ff",
        "Error response from daemon: conflict: unable to delete cd809b04b6ff (cannot be forced)"
        " - image is being used by running container e5e2591040d1",
        "docker container rm -f e5e2591040d1 && docker image rm -f cd809b04b6ff",
    ),
    T(
        "javac Main",
        "error: Class names, 'Main', are only accepted if annotation processing is explicitly requested\n1 error",
        "javac Main.java",
    ),
    T("mandiff", "bash: mandiff: command not found", "man diff", first=False),
    T(
        "git commit -m 'My Message\"",
        "bash: unexpected EOF while looking for matching `''",
        'git commit -m "My Message"',
    ),
    T(
        "whois https://en.wikipedia.org/wiki/Main_Page",
        "No whois server is known for this kind of object.",
        "whois en.wikipedia.org",
    ),
    T(
        "terraform plan",
        "Error: Initialization required. Please see the error message above.",
        "terraform init && terraform plan",
    ),
    T(
        "vagrant ssh",
        "VM must be running to open SSH connection. Run `vagrant up`\nto start the virtual machine.",
        "vagrant up && vagrant ssh",
    ),
    T(
        "grep -h",
        "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.",
        "grep --help",
    ),
    T(
        "ag \\(",
        "ERR: Bad regex! pcre_compile() failed at position 1: missing )\n"
        "If you meant to search for a literal string, run ag with -Q\n",
        "ag -Q \\(",
    ),
    T(
        "gcloud comute instances list",
        "ERROR: (gcloud) Invalid choice: 'comute'.\nMaybe you meant:\n  $ gcloud compute\n",
        "gcloud compute instances list",
    ),
    T("go run main", "package main is not in std (/usr/local/go/src/main)", "go run main.go"),
    T(
        "brew rm tbb",
        "tbb 4.4-20160526, 4.4-20160722 are still installed.\nRemove all versions with `brew uninstall --force tbb`.",
        "brew uninstall --force tbb",
    ),
    T(
        "heroku log",
        " ▸    log is not a heroku command.\n ▸    Perhaps you meant logs?\n ▸    Run heroku help for a list of available commands.",
        "heroku logs",
    ),
    T(
        "mvn",
        "[ERROR] No goals have been specified for this build. You must specify a valid lifecycle phase.",
        "mvn clean package",
        first=False,
    ),
    # Windows
    T("python3 -m venv .venv", STORE, "py -m venv .venv", "powershell"),
    T(
        "Get-ADUser bob",
        "Get-ADUser : The term 'Get-ADUser' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        "Add-WindowsCapability -Online -Name Rsat.ActiveDirectory.DS-LDS.Tools~~~~0.0.1.0",
        "powershell",
    ),
    T(
        "Invoke-Sqlcmd -Query 'SELECT 1'",
        "Invoke-Sqlcmd: The term 'Invoke-Sqlcmd' is not recognized as a name of a cmdlet, function, script file, or executable program.",
        "Find-Module -Command Invoke-Sqlcmd",
        "pwsh",
    ),
    T(
        "py app.py",
        "No installed Python found!",
        "winget install -e --id Python.Python.3.12",
        "cmd",
    ),
    T(
        "py -3.11 app.py",
        "No suitable Python runtime found\nPass --list (-0) to see all detected environments on your machine",
        "winget install -e --id Python.Python.3.11",
        "cmd",
    ),
    T(
        "wsl",
        "Windows Subsystem for Linux has no installed distributions.\nDistributions can be installed by visiting the Microsoft Store.",
        "wsl --install -d Ubuntu",
        "powershell",
    ),
    T(
        "npm install",
        "npm ERR! code EPERM\nnpm ERR! syscall rename\nnpm ERR! Error: EPERM: operation not permitted, rename "
        "'C:\\proj\\node_modules\\.staging\\x' -> 'C:\\proj\\node_modules\\x'",
        "npm cache clean --force; npm install",
        "powershell",
    ),
    T(
        "winget install Git.Git",
        "winget : The term 'winget' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        "Add-AppxPackage -RegisterByFamilyName -MainPackage Microsoft.DesktopAppInstaller_8wekyb3d8bbwe",
        "powershell",
    ),
    T(
        "scoop install git",
        "scoop: The term 'scoop' is not recognized as a name of a cmdlet, function, script file, or executable program.",
        "Invoke-RestMethod -Uri https://get.scoop.sh | Invoke-Expression",
        "pwsh",
    ),
    T(
        "choco install git",
        "'choco' is not recognized as an internal or external command,\noperable program or batch file.",
        "winget install -e --id Chocolatey.Chocolatey",
        "cmd",
    ),
    T(
        "New-Item -ItemType Directory logs",
        "New-Item : An item with the specified name C:\\proj\\logs already exists.",
        "New-Item -ItemType Directory logs -Force",
        "powershell",
    ),
    T(
        "Remove-Item build",
        "Remove-Item : The item at C:\\proj\\build has children and the Recurse parameter was not specified.",
        "Remove-Item build -Recurse",
        "powershell",
    ),
    T("rmdir build", "The directory is not empty.", "rmdir /s /q build", "cmd"),
    T(
        "dir /s",
        "Get-ChildItem : Cannot find path 'C:\\s' because it does not exist.",
        "Get-ChildItem -Recurse",
        "powershell",
    ),
    T(
        "npm install",
        "npm ERR! gyp ERR! find VS msvs_version not set from command line or npm config\n"
        "npm ERR! gyp ERR! find VS could not find a version of Visual Studio 2017 or newer to use",
        "winget install -e --id Microsoft.VisualStudio.2022.BuildTools",
        "powershell",
    ),
    T(
        "Invoke-WebRequest https://example.com/x.zip -OutFile x.zip",
        "Invoke-WebRequest : The request was aborted: Could not create SSL/TLS secure channel.",
        "[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12; "
        "Invoke-WebRequest https://example.com/x.zip -OutFile x.zip",
        "powershell",
    ),
    T(
        "python -m pip install -U pip",
        "ERROR: Could not install packages due to an OSError: [WinError 5] Access is denied: "
        "'C:\\Python311\\Scripts\\pip.exe'\nConsider using the `--user` option or check the permissions.",
        "python -m pip install --user -U pip",
        "powershell",
    ),
    T(
        "Start-Service docker",
        "Start-Service : Service 'Docker Engine (docker)' cannot be started due to the following error: "
        "Cannot open docker service on computer '.'.",
        "Start-Process powershell -Verb RunAs -ArgumentList '-NoExit', '-Command', 'Start-Service docker'",
        "powershell",
    ),
]
