"""More real failures: git auth and pulls, system services, other languages, printed hints."""

from __future__ import annotations

from tests.agent.rules.table import T

CASES = [
    T(
        "git pull",
        "hint: You have divergent branches and need to specify how to reconcile them.\nhint: You can do so by running one of the following commands sometime before\nhint: your next pull:\nhint:\nhint:   git config pull.rebase false  # merge\nfatal: Need to specify how to reconcile divergent branches.",
        "git pull --rebase",
    ),
    T(
        "git pull",
        "fatal: Need to specify how to reconcile divergent branches.",
        "git pull --no-rebase",
        first=False,
    ),
    T(
        "git pull --rebase",
        "error: cannot pull with rebase: You have unstaged changes.\nerror: please commit or stash them.",
        "git pull --rebase --autostash",
    ),
    T(
        "git push",
        "remote: Support for password authentication was removed on August 13, 2021.\nremote: Please see https://docs.github.com/... for information on currently recommended modes of authentication.\nfatal: Authentication failed for 'https://github.com/me/app.git/'",
        "gh auth login && gh auth setup-git && git push",
    ),
    T(
        "git push",
        "error: RPC failed; HTTP 413 curl 22 The requested URL returned error: 413\nsend-pack: unexpected disconnect while reading sideband packet\nfatal: the remote end hung up unexpectedly",
        "git config http.postBuffer 524288000 && git push",
    ),
    T(
        "git clone https://github.com/me/app.git",
        "fatal: destination path 'app' already exists and is not an empty directory.",
        "cd app && git pull",
    ),
    T(
        "git commit -m initial commit",
        "error: pathspec 'commit' did not match any file(s) known to git",
        'git commit -m "initial commit"',
    ),
    T(
        "git commit -m 'first commit'",
        "error: pathspec 'commit'' did not match any file(s) known to git",
        'git commit -m "first commit"',
        "cmd",
    ),
    T(
        "git lfs pull",
        "git: 'lfs' is not a git command. See 'git --help'.\n\nThe most similar command is\n\tlog",
        "sudo apt install git-lfs",
    ),
    T(
        "git lfs install",
        "git: 'lfs' is not a git command. See 'git --help'.",
        "winget install -e --id GitHub.GitLFS",
        "powershell",
    ),
    T(
        "git pull",
        "error: Pulling is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'",
        "git status",
    ),
    T(
        "cd app && npm run strat",
        'npm ERR! Missing script: "strat"\nnpm ERR! \nnpm ERR! Did you mean this?\nnpm ERR!     npm run start # run the "start" package script',
        "cd app && npm run start",
        first=False,
    ),
    T(
        "git add . && git comit -m x",
        "git: 'comit' is not a git command. See 'git --help'.\n\nThe most similar command is\n\tcommit",
        "git add . && git commit -m x",
    ),
    T(
        "git push",
        "\x1b[31mfatal: The current branch \x1b[1mdev\x1b[0m\x1b[31m has no upstream branch.\x1b[0m\r\nTo push the current branch and set the remote as upstream, use\r\n\r\n    git push --set-upstream origin dev\r\n",
        "git push --set-upstream origin dev",
    ),
    T(
        "systemctl start docker",
        "System has not been booted with systemd as init system (PID 1). Can't operate.\nFailed to connect to bus: Host is down",
        "sudo service docker start",
    ),
    T(
        "sudo systemctl start nginx",
        'Job for nginx.service failed because the control process exited with error code.\nSee "systemctl status nginx.service" and "journalctl -xeu nginx.service" for details.',
        "systemctl status nginx.service",
    ),
    T(
        "docker pull postgres",
        "failed to register layer: write /var/lib/docker/tmp/x: no space left on device",
        "docker system prune",
    ),
    T(
        "npm start",
        "Error: ENOSPC: System limit for number of file watchers reached, watch '/home/me/app/src'",
        "echo fs.inotify.max_user_watches=524288 | sudo tee -a /etc/sysctl.conf && sudo sysctl -p",
    ),
    T(
        "npm run build",
        "<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
        "NODE_OPTIONS=--max-old-space-size=4096 npm run build",
    ),
    T(
        "git status",
        "xcrun: error: invalid active developer path (/Library/Developer/CommandLineTools), missing xcrun at: /Library/Developer/CommandLineTools/usr/bin/xcrun",
        "xcode-select --install",
        "zsh",
    ),
    T(
        "ln -s ../config config",
        "ln: failed to create symbolic link 'config': File exists",
        "ln -sf ../config config",
    ),
    T(
        "kubectl get pods",
        "The connection to the server localhost:8080 was refused - did you specify the right host or port?",
        "kubectl config get-contexts",
    ),
    T(
        "cargo build",
        "error[E0432]: unresolved import `serde`\n --> src/main.rs:1:5\n  |\n1 | use serde::Deserialize;\n  |     ^^^^^ use of undeclared crate or module `serde`",
        "cargo add serde",
    ),
    T(
        "go run .",
        "main.go:5:2: no required module provides package github.com/gin-gonic/gin; to add it:\n\tgo get github.com/gin-gonic/gin",
        "go get github.com/gin-gonic/gin",
    ),
    T(
        "ruby app.rb",
        "<internal:/usr/lib/ruby/3.0.0/rubygems/core_ext/kernel_require.rb>:85:in `require': cannot load such file -- sinatra (LoadError)",
        "gem install sinatra",
    ),
    T(
        "bundle exec rails s",
        "Could not find gem 'pg (~> 1.1)' in locally installed gems.\nRun `bundle install` to install missing gems.",
        "bundle install",
    ),
    T(
        "php artisan serve",
        "PHP Warning:  require(/app/vendor/autoload.php): Failed to open stream: No such file or directory in /app/artisan on line 18",
        "composer install",
    ),
    T(
        "conda activate ml",
        "\nCommandNotFoundError: Your shell has not been properly configured to use 'conda activate'.\nTo initialize your shell, run\n\n    $ conda init <SHELL_NAME>\n",
        "conda init bash",
    ),
    T(
        "conda activate ml",
        "\nCommandNotFoundError: Your shell has not been properly configured to use 'conda activate'.",
        "conda init powershell",
        "powershell",
    ),
    T(
        "conda activate mlenv",
        "EnvironmentNameNotFound: Could not find conda environment: mlenv\nYou can list all discoverable environments with `conda info --envs`.",
        "conda create -n mlenv python",
    ),
    T(
        "yarn install",
        'error app@1.0.0: The engine "node" is incompatible with this module. Expected version ">=18.0.0". Got "16.20.0"\nerror Found incompatible module.',
        "nvm install 18 && nvm use 18",
    ),
    T(
        "python detect.py",
        "ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
        "pip install opencv-python-headless",
    ),
    T(
        "pip install --user httpie",
        "  WARNING: The scripts http and https are installed in '/home/me/.local/bin' which is not on PATH.\n  Consider adding this directory to PATH",
        'export PATH="/home/me/.local/bin:$PATH"',
    ),
    T(
        "aws s3 ls",
        'Unable to locate credentials. You can configure credentials by running "aws configure".',
        "aws configure",
    ),
    T(
        "gh repo list",
        "To get started with GitHub CLI, please run:  gh auth login\nAlternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token.",
        "gh auth login",
    ),
    T(
        "gcloud compute instances list",
        "ERROR: (gcloud.compute.instances.list) You do not currently have an active account selected.\nPlease run:\n\n  $ gcloud auth login\n\nto obtain new credentials.",
        "gcloud auth login",
    ),
    T("az vm list", "Please run 'az login' to setup account.", "az login"),
    T(
        "Install-Module PSReadLine",
        "Install-Module : Administrator rights are required to install modules in 'C:\\Program Files\\WindowsPowerShell\\Modules'. Log on to the computer with an account that has Administrator rights, and then try again, or install 'C:\\Users\\me\\Documents\\WindowsPowerShell\\Modules' by adding \"-Scope CurrentUser\" to your command.",
        "Install-Module PSReadLine -Scope CurrentUser",
        "powershell",
    ),
    T(
        "Import-Module posh-git",
        "Import-Module : The specified module 'posh-git' was not loaded because no valid module file was found in any module directory.",
        "Install-Module posh-git -Scope CurrentUser; Import-Module posh-git",
        "powershell",
    ),
    T(
        "Set-ExecutionPolicy RemoteSigned",
        "Set-ExecutionPolicy : Access to the registry key 'HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\PowerShell\\1\\ShellIds\\Microsoft.PowerShell' is denied.",
        "Set-ExecutionPolicy RemoteSigned -Scope CurrentUser",
        "powershell",
    ),
    T(
        "winget install vscode",
        "No package found matching input criteria.",
        "winget search vscode",
        "powershell",
    ),
    T(
        "scoop install vscode",
        "Couldn't find manifest for 'vscode'.",
        "scoop bucket add extras; scoop install vscode",
        "powershell",
    ),
    T(
        "cd /d D:\\work",
        "Set-Location : A positional parameter cannot be found that accepts argument 'D:\\work'.",
        "Set-Location D:\\work",
        "powershell",
    ),
    T(
        "C:\\Program Files\\Tool\\tool.exe --version",
        "C:\\Program : The term 'C:\\Program' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        '& "C:\\Program Files\\Tool\\tool.exe" --version',
        "powershell",
    ),
    T(
        "conda list",
        "bash: conda: command not found",
        "curl -fsSLO https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh && bash Miniconda3-latest-Linux-x86_64.sh",
    ),
    T(
        "nvm install 20",
        "bash: nvm: command not found",
        "curl -o- https://raw.githubusercontent.com/nvm-sh/nvm/v0.40.1/install.sh | bash",
    ),
    T(
        "nvm install 20",
        "nvm : The term 'nvm' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        "winget install -e --id CoreyButler.NVMforWindows",
        "powershell",
    ),
    T("yarn add react", "bash: yarn: command not found", "npm install -g yarn"),
]

# Slips and thefuck-style classics.
CASES += [
    T("$ git status", "bash: $: command not found", "git status"),
    T(
        "PS C:\\proj> npm install",
        "PS : The term 'PS' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        "npm install",
        "powershell",
    ),
    T("gitstatus", "bash: gitstatus: command not found", "git status"),
    T("npminstall express", "zsh: command not found: npminstall", "npm install express", "zsh"),
    T("apt-install vim", "bash: apt-install: command not found", "apt install vim"),
    T(
        "git git status",
        "git: 'git' is not a git command. See 'git --help'.\n\nThe most similar command is\n\tinit",
        "git status",
    ),
    T(
        "git checkout master",
        "error: pathspec 'master' did not match any file(s) known to git",
        "git checkout main",
    ),
    T("git switch main", "fatal: invalid reference: main", "git switch master"),
    T(
        "git add dist",
        "The following paths are ignored by one of your .gitignore files:\ndist\nhint: Use -f if you really want to add them.",
        "git add --force dist",
    ),
    T(
        "git branch -D feature",
        "error: Cannot delete branch 'feature' checked out at '/home/me/app'",
        "git checkout main && git branch -D feature",
    ),
    T("git rm build", "fatal: not removing 'build' recursively without -r", "git rm -r build"),
    T(
        "git rm app.py",
        "error: the following file has local modifications:\n    app.py\n(use --cached to keep the file, or -f to force removal)",
        "git rm --cached app.py",
    ),
    T("git tag v1.0", "fatal: tag 'v1.0' already exists", "git tag --force v1.0"),
    T(
        "git rebase main",
        "It seems that there is already a rebase-merge directory, and\nI wonder if you are in the middle of another rebase.",
        "git rebase --continue",
    ),
    T(
        "git remote delete origin",
        "error: Unknown subcommand: delete\nusage: git remote [-v | --verbose]",
        "git remote remove origin",
    ),
    T(
        "git remote set-url origin git@github.com:me/app.git",
        "error: No such remote 'origin'",
        "git remote add origin git@github.com:me/app.git",
    ),
    T(
        "git pull https://github.com/me/app.git",
        "fatal: not a git repository (or any of the parent directories): .git",
        "git clone https://github.com/me/app.git",
    ),
    T(
        "git stash opp",
        "usage: git stash list [<options>]\n   or: git stash show [<options>] [<stash>]",
        "git stash pop",
    ),
    T(
        "git merge local",
        "merge: local - not something we can merge\n\nDid you mean this?\n\tremote/local",
        "git merge remote/local",
    ),
    T(
        "gradle biuld",
        "FAILURE: Build failed with an exception.\n\n* What went wrong:\nTask 'biuld' not found in root project 'app'.",
        "gradle build",
    ),
    T(
        "mvn cle",
        '[ERROR] Unknown lifecycle phase "cle". You must specify a valid lifecycle phase or a goal in the format <plugin-prefix>:<goal> or <plugin-group-id>:<plugin-artifact-id>[:<plugin-version>]:<goal>. Available lifecycle phases are: validate, initialize, generate-sources, process-sources, compile, test-compile, test, package, verify, install, deploy, pre-clean, clean, post-clean, pre-site, site.',
        "mvn clean",
    ),
    T(
        "javac Main",
        "error: Class names, 'Main', are only accepted if annotation processing is explicitly requested\n1 error",
        "javac Main.java",
    ),
    T("pacman -s vim", "error: invalid option '-s'", "pacman -S vim"),
    T(
        "php -s localhost:8000",
        "Usage: php [options] [-f] <file> [--] [args...]",
        "php -S localhost:8000",
    ),
    T(
        "sed -i 's/foo/bar' file.txt",
        "sed: -e expression #1, char 9: unterminated `s' command",
        "sed -i 's/foo/bar/' file.txt",
    ),
    T(
        "ln /home/me/dir link",
        "ln: /home/me/dir: hard link not allowed for directory",
        "ln -s /home/me/dir link",
    ),
    T("apt-get search vim", "E: Invalid operation search", "apt-cache search vim"),
    T(
        "sudo brew install wget",
        "Error: Running Homebrew as root is extremely dangerous and no longer supported.",
        "brew install wget",
        "zsh",
    ),
    T(
        "docker rmi nginx",
        'Error response from daemon: conflict: unable to remove repository reference "nginx" (must force) - container 5a7b3c is using its referenced image 605c77e624dd',
        "docker rm -f 5a7b3c && docker rmi nginx",
    ),
    T(
        "docker build -t MyApp .",
        'ERROR: invalid tag "MyApp": repository name must be lowercase',
        "docker build -t myapp .",
    ),
    T(
        "docker exec -it web bash",
        "the input device is not a TTY.  If you are using mintty, try prefixing the command with 'winpty'",
        "winpty docker exec -it web bash",
    ),
    T(
        "dnf isntall vim",
        "No such command: isntall. Please use /usr/bin/dnf --help",
        "dnf install vim",
    ),
    T(
        "hg base",
        "hg: unknown command 'base'\n(did you mean one of blame, phase, rebase?)",
        "hg blame",
    ),
    T(
        "gem isntall rails",
        "ERROR:  While executing gem ... (Gem::CommandLineError)\n    Unknown command isntall",
        "gem install rails",
    ),
    T("pyenv isntall 3.12", "pyenv: no such command `isntall'", "pyenv install 3.12"),
    T(
        "brew install pyton",
        'Warning: No available formula with the name "pyton". Did you mean python?',
        "brew install python",
        "zsh",
    ),
    T(
        "rails s",
        "Migrations are pending. To resolve this issue, run:\n\n        bin/rails db:migrate RAILS_ENV=development",
        "bin/rails db:migrate RAILS_ENV=development && rails s",
    ),
    T(
        "composer udpate",
        'Command "udpate" is not defined.\n\nDid you mean this?\n    update',
        "composer update",
    ),
    T(
        "lein rpl",
        "'rpl' is not a task. See 'lein help'.\n\nDid you mean this?\n         repl",
        "lein repl",
    ),
    T(
        "heroku log",
        " !    `log` is not a heroku command.\n !    Perhaps you meant `logs`.",
        "heroku logs",
    ),
    T("man fzf", "No manual entry for fzf", "fzf --help"),
]

# Variants seen in thefuck's and others' test data.
CASES += [
    T(
        "git commit unknown.py",
        "error: pathspec 'unknown.py' did not match any file(s) known to git.\nDid you forget to 'git add'?",
        "git add -- unknown.py && git commit unknown.py",
    ),
    T(
        "https://github.com/me/app.git",
        "bash: https://github.com/me/app.git: No such file or directory",
        "git clone https://github.com/me/app.git",
    ),
    T(
        "cp dir1 dir2",
        "cp: -r not specified; omitting directory 'dir1'",
        "cp -a dir1 dir2",
        first=False,
    ),
    T(
        "yarn whyy webpack",
        'yarn run v1.22.19\nerror Command "whyy" not found.',
        "yarn why webpack",
    ),
    T(
        "yum uninstall vim",
        "No such command: uninstall. Please use /usr/bin/yum --help",
        "yum remove vim",
    ),
    T(
        "tmux list",
        "ambiguous command: list, could be: list-buffers, list-clients, list-commands, list-keys, list-panes, list-sessions, list-windows",
        "tmux list-keys",
    ),
    T(
        "git bisect strt",
        "usage: git bisect [help|start|bad|good|new|old|terms|skip|next|reset|visualize|view|replay|log|run]",
        "git bisect start",
    ),
    T(
        "mkdir src/components",
        "The syntax of the command is incorrect.",
        "mkdir src\\components",
        "cmd",
    ),
    T(
        "python3 app.py",
        "'python3' is not recognized as an internal or external command,\noperable program or batch file.",
        "python app.py",
        "cmd",
        first=False,
    ),
    T(
        "ssh me@host",
        "me@host: Permission denied (publickey,password).",
        "ssh-add ~/.ssh/id_ed25519",
        first=False,
    ),
    T(
        "brew link node",
        "Error: Could not symlink bin/node\nTarget /usr/local/bin/node\nalready exists. You may want to remove it:\n  rm '/usr/local/bin/node'\n\nTo force the link and overwrite all conflicting files:\n  brew link --overwrite node",
        "brew link --overwrite node",
    ),
    T(
        "brew update wget",
        "Error: This command updates brew itself, and does not take formula names.\nUse `brew upgrade wget` instead.",
        "brew upgrade wget",
    ),
    T("cs src", "bash: cs: command not found", "cd src"),
    T(
        "choco install python",
        "python not installed. The package was not found with the source(s) listed.",
        "choco install python.install",
        "powershell",
        first=False,
    ),
    T("java Main.java", "Error: Could not find or load main class Main.java", "java Main"),
    T(
        "git commit -m 'My message\"",
        "bash: unexpected EOF while looking for matching `''",
        'git commit -m "My message"',
    ),
]

# Rarer rules, one real message each.
CASES += [
    T(
        "sudo apt install nginx",
        "The following packages have unmet dependencies:\n nginx : Depends: nginx-core\nE: Unable to correct problems, you have held broken packages.",
        "sudo apt --fix-broken install",
    ),
    T(
        "cmake ..",
        'CMake Error: The source directory "/home/me" does not appear to contain CMakeLists.txt.',
        "cmake -S .. -B .",
    ),
    T(
        "sudo dnf install python-pip",
        "Last metadata expiration check: 0:01:02 ago.\nNo match for argument: python-pip\nError: Unable to find a match: python-pip",
        "dnf provides '*/python-pip'",
        first=False,
    ),
    T(
        "sudo dnf install python-pip",
        "No match for argument: python-pip\nError: Unable to find a match: python-pip",
        "sudo dnf install python3-pip",
    ),
    T(
        "docker pull me/private-app",
        "Using default tag: latest\nError response from daemon: pull access denied for me/private-app, repository does not exist or may require 'docker login': denied: requested access to the resource is denied",
        "docker login && docker pull me/private-app",
    ),
    T(
        "docker build -t app .",
        "ERROR: failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory",
        "ls",
    ),
    T(
        "docker run mysql:5.7",
        "docker: no matching manifest for linux/arm64/v8 in the manifest list entries.",
        "docker run --platform linux/amd64 mysql:5.7",
    ),
    T(
        "git push origin HEAD",
        "fatal: You are not currently on a branch.\nTo push the history leading to the current (detached HEAD)\nstate now, use\n\n    git push origin HEAD:<name-of-remote-branch>\n",
        "git switch -c new-branch",
    ),
    T(
        "git log",
        "fatal: your current branch 'main' does not have any commits yet",
        'git add -A && git commit -m "Initial commit"',
    ),
    T(
        "git push upstream main",
        "fatal: 'upstream' does not appear to be a git repository\nfatal: Could not read from remote repository.",
        "git remote add upstream <url>",
    ),
    T(
        "go build ./...",
        "main.go:4:2: missing go.sum entry for module providing package github.com/spf13/cobra (imported by app); to add:\n\tgo get app",
        "go get app",
        first=False,
    ),
    T(
        "go test ./...",
        "pkg/x.go:3:8: no required module provides package golang.org/x/exp/slices; to add it:\n\tgo get golang.org/x/exp/slices",
        "go mod tidy && go test ./...",
        first=False,
    ),
    T(
        "go run main.go",
        "main.go:5:2: cannot find module providing package github.com/gorilla/mux",
        "go mod tidy && go run main.go",
    ),
    T("git\u00a0status", "bash: git\u00a0status: command not found", "git status"),
    T(
        "sudo pacman -S yay",
        "error: target not found: yay",
        "sudo pacman -Sy && sudo pacman -S yay",
    ),
    T("sudo umount /mnt/data", "umount: /mnt/data: target is busy.", "sudo lsof +f -- /mnt/data"),
    T("./server", "accept4: Too many open files; retrying in 1s", "ulimit -n 4096 && ./server"),
    T(
        "systemctl status ngnix",
        "Unit ngnix.service could not be found.",
        "systemctl list-unit-files | grep -i ngni",
    ),
]

# Build environments, local modules, PowerShell web calls.
CASES += [
    T(
        "./configure",
        "bash: ./configure: No such file or directory",
        "autoreconf -fi && ./configure",
    ),
    T(
        "dotnet ef migrations add Init",
        "Could not execute because the specified command or file was not found.\nPossible reasons for this include:\n  * You misspelled a built-in dotnet command.\n  * You intended to execute a .NET program, but dotnet-ef does not exist.",
        "dotnet tool install --global dotnet-ef; dotnet ef migrations add Init",
        "powershell",
    ),
    T(
        "git fetch",
        "error: cannot lock ref 'refs/remotes/origin/feature': is at 3f2a but expected 9c1b\n ! 9c1b..3f2a  feature -> origin/feature  (unable to update local ref)",
        "git remote prune origin && git fetch",
    ),
    T(
        "git clone https://github.com/big/repo.git",
        "Cloning into 'repo'...\nfetch-pack: unexpected disconnect while reading sideband packet\nfatal: early EOF\nfatal: index-pack failed",
        "git clone --depth 1 https://github.com/big/repo.git",
    ),
    T(
        "git commit -m x",
        "fatal: Unable to create '/home/me/app/.git/index.lock': File exists.\n\nAnother git process seems to be running in this repository",
        "rm -f /home/me/app/.git/index.lock && git commit -m x",
    ),
    T(
        "git add .",
        "fatal: Unable to create 'C:/src/app/.git/index.lock': File exists.",
        "Remove-Item -Force 'C:/src/app/.git/index.lock'; git add .",
        "powershell",
    ),
    T(
        "git pull",
        "error: insufficient permission for adding an object to repository database .git/objects\nfatal: failed to write object",
        "sudo chown -R $(id -un):$(id -gn) .git && git pull",
    ),
    T(
        "./gradlew build",
        "ERROR: JAVA_HOME is not set and no 'java' command could be found in your PATH.",
        "sudo apt install default-jdk",
        first=False,
    ),
    T(
        "node index.js",
        '(node:1234) Warning: To load an ES module, set "type": "module" in the package.json or use the .mjs extension.\n/app/index.js:1\nimport express from \'express\';\n^^^^^^\n\nSyntaxError: Cannot use import statement outside a module',
        "npm pkg set type=module && node index.js",
    ),
    T(
        "Invoke-WebRequest https://example.com/file.zip -OutFile f.zip",
        "Invoke-WebRequest : The response content cannot be parsed because the Internet Explorer engine is not available, or Internet Explorer's first-launch configuration is not complete. Specify the UseBasicParsing parameter and try again.",
        "Invoke-WebRequest https://example.com/file.zip -OutFile f.zip -UseBasicParsing",
        "powershell",
    ),
    T(
        "Expand-Archive node.tar.gz",
        "Expand-Archive : .gz is not a supported archive file format. node.tar.gz is not a supported archive file format. .zip is the only supported archive file format.",
        "tar -xf node.tar.gz",
        "powershell",
    ),
    T(
        "python legacy.py",
        '  File "legacy.py", line 3\n    print "hello"\n    ^^^^^^^^^^^^^\nSyntaxError: Missing parentheses in call to \'print\'. Did you mean print(...)?',
        "python2 legacy.py",
    ),
    T(
        "python src/app/main.py",
        "Traceback (most recent call last):\n  File \"/proj/src/app/main.py\", line 1, in <module>\n    from src.app import db\nModuleNotFoundError: No module named 'src'",
        "PYTHONPATH=. python src/app/main.py",
    ),
    T(
        "pytest",
        "ImportError while importing test module '/proj/tests/test_x.py'.\nE   ModuleNotFoundError: No module named 'app'",
        "pip install -e .",
        first=False,
    ),
    T(
        "python app/views.py",
        "ImportError: attempted relative import with no known parent package",
        "python -m app.views",
    ),
    T(
        "cargo build",
        "error: rustup could not choose a version of cargo to run, because one wasn't specified explicitly, and no default is configured.\nhelp: run 'rustup default stable' to download the latest stable release of Rust and set it as your default toolchain.",
        "rustup default stable && cargo build",
    ),
    T("sh build.sh", 'build.sh: 5: Syntax error: "(" unexpected', "bash build.sh"),
    T(
        "pip install netifaces",
        "  error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory",
        "sudo apt install build-essential python3-dev",
    ),
    T(
        "git checkout main",
        "error: The following untracked working tree files would be overwritten by checkout:\n\tconfig.json\nPlease move or remove them before you switch branches.\nAborting",
        "git stash -u && git checkout main && git stash pop",
    ),
    T(
        "venv\\bin\\activate",
        "'venv\\bin\\activate' is not recognized as an internal or external command,\noperable program or batch file.",
        "venv\\Scripts\\activate.bat",
        "cmd",
    ),
]

# macOS: Homebrew when the output shows a Mac, and as the second guess for zsh.
CASES += [
    T("wget https://x.org/a.tgz", "zsh: command not found: wget", "sudo apt install wget", "zsh"),
    T(
        "wget https://x.org/a.tgz",
        "zsh: command not found: wget",
        "brew install wget",
        "zsh",
        first=False,
    ),
    T("cd /Users/me/app && jq . a.json", "zsh: command not found: jq", "brew install jq", "zsh"),
]

CASES += [
    T(
        "pip install x",
        "-bash: /usr/local/bin/pip: No such file or directory",
        "hash -r && pip install x",
    ),
    T(
        "./tool.py",
        "bash: ./tool.py: /usr/bin/python: bad interpreter: No such file or directory",
        "python3 ./tool.py",
    ),
    T(
        "./app",
        "./app: error while loading shared libraries: libssl.so.1.1: cannot open shared object file: No such file or directory",
        "apt-file search libssl.so.1.1",
    ),
    T("./app", "bash: ./app: cannot execute binary file: Exec format error", "file ./app"),
    T(
        "touch /boot/x",
        "touch: cannot touch '/boot/x': Read-only file system",
        "mount | grep ' ro,'",
    ),
    T(
        "wsl",
        "Installing, this may take a few minutes...\nWslRegisterDistribution failed with error: 0x8007019e\nThe Windows Subsystem for Linux optional component is not enabled. Please enable it and try again.",
        "wsl --install",
        "powershell",
    ),
    T(
        "wsl",
        "Please enable the Virtual Machine Platform Windows feature and ensure virtualization is enabled in the BIOS.\nError code: Wsl/Service/CreateInstance/CreateVm/HCS/0x80370102",
        "dism.exe /online /enable-feature /featurename:VirtualMachinePlatform /all /norestart",
        "cmd",
    ),
]

CASES += [
    T(
        "python app.py",
        "ImportError: cannot import name 'soft_unicode' from 'markupsafe' (/usr/lib/python3/dist-packages/markupsafe/__init__.py)",
        "pip install --upgrade MarkupSafe",
    ),
    T(
        "pip install -r requirements.txt",
        "  error: subprocess-exited-with-error\n  × Getting requirements to build wheel did not run successfully.\nERROR: Could not build wheels for pyzmq, which is required to install pyproject.toml-based projects",
        "python3 -m pip install --upgrade pip setuptools wheel && pip install -r requirements.txt",
    ),
    T(
        "pip install torch==1.7.1",
        "ERROR: Could not find a version that satisfies the requirement torch==1.7.1 (from versions: 2.2.0, 2.2.1)\nERROR: No matching distribution found for torch==1.7.1",
        "pip install torch",
        first=False,
    ),
    T(
        "npm install reactt",
        "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/reactt - Not found\nnpm ERR! 404  'reactt@*' is not in this registry.",
        "npm search reactt",
    ),
    T(
        "npm install lodash@9.9.9",
        "npm ERR! code ETARGET\nnpm ERR! notarget No matching version found for lodash@9.9.9.",
        "npm view lodash versions",
    ),
    T(
        "npm install",
        "npm ERR! code EINTEGRITY\nnpm ERR! sha512-abc integrity checksum failed when using sha512",
        "npm cache clean --force && npm install",
    ),
    T(
        "npm install",
        "npm ERR! code ENOTEMPTY\nnpm ERR! syscall rename\nnpm ERR! ENOTEMPTY: directory not empty, rename '/app/node_modules/x' -> '/app/node_modules/.x-abc'",
        "rm -rf node_modules && npm install",
    ),
    T(
        "node server.js",
        "Error: Cannot find module 'node:fs'\nRequire stack:\n- /app/server.js",
        "nvm install --lts && nvm use --lts",
    ),
]

CASES += [
    T(
        "git status",
        "fatal: unsafe repository ('/home/me/repo' is owned by someone else)\nTo add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /home/me/repo",
        "git config --global --add safe.directory /home/me/repo",
    ),
    T(
        "git clone https://github.com/big/repo.git",
        "error: unable to create file src/very/long/path/file.ts: Filename too long\nfatal: unable to checkout working tree",
        "git config --global core.longpaths true && git clone https://github.com/big/repo.git",
    ),
    T(
        "git clone https://corp.example.com/app.git",
        "fatal: unable to access 'https://corp.example.com/app.git/': SSL certificate problem: unable to get local issuer certificate",
        "git config --global http.sslBackend schannel; git clone https://corp.example.com/app.git",
        "powershell",
    ),
    T(
        "pip install requests",
        'Fatal error in launcher: Unable to create process using \'"C:\\Python39\\python.exe"  "C:\\Python311\\Scripts\\pip.exe" install requests\': The system cannot find the file specified.',
        "py -m pip install --upgrade --force-reinstall pip",
        "cmd",
    ),
    T(
        "npx tsc",
        "src/app.ts(1,21): error TS7016: Could not find a declaration file for module 'express'. '/app/node_modules/express/index.js' implicitly has an 'any' type.",
        "npm install --save-dev @types/express",
    ),
    T(
        "npx tsc",
        "src/app.ts(2,20): error TS2307: Cannot find module 'lodash' or its corresponding type declarations.",
        "npm install lodash",
    ),
    T(
        "pip install torch",
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\nERROR: No matching distribution found for torch",
        "pip install torch --index-url https://download.pytorch.org/whl/cpu",
        first=False,
    ),
    T(
        "npx tsc",
        "error TS5058: The specified path does not exist: 'tsconfig.json'.",
        "npx tsc --init",
    ),
    T(
        "tsc -p .",
        "error TS5057: Cannot find a tsconfig.json file at the specified directory: '.'.",
        "tsc --init",
    ),
    T(
        "java Main.java",
        "Main.java:1: error: class Hello is public, should be declared in a file named Hello.java\npublic class Hello {\n       ^\n1 error",
        "mv Main.java Hello.java && java Hello.java",
    ),
    T(
        "javac src/Main.java",
        "src/Main.java:3: error: class App is public, should be declared in a file named App.java",
        "mv src/Main.java src/App.java && javac src/App.java",
    ),
    T(
        "ssh-add ~/.ssh/id_ed25519",
        "Could not open a connection to your authentication agent.",
        'eval "$(ssh-agent -s)" && ssh-add ~/.ssh/id_ed25519',
        exit_code=2,
    ),
    T(
        "ssh-add",
        "Error connecting to agent: No such file or directory",
        "Get-Service ssh-agent | Set-Service -StartupType Manual; Start-Service ssh-agent",
        "powershell",
        exit_code=2,
    ),
    T(
        "mvn biuld",
        '[ERROR] Unknown lifecycle phase "biuld". You must specify a valid lifecycle phase or a goal. Available lifecycle phases are: validate, initialize, compile, test, package, verify, install, deploy, clean.',
        "mvn package",
    ),
    T(
        "docker rm web",
        "Error response from daemon: You cannot remove a running container 4f2a. Stop the container before attempting removal or force remove",
        "docker rm -f web",
    ),
    T(
        "docker container rm api db",
        'Error response from daemon: cannot remove container "/api": container is running: stop the container before removing or force remove',
        "docker stop api db && docker container rm api db",
        first=False,
    ),
    T(
        "podman rm web",
        "Error: cannot remove container 4f2a as it is running - running or paused containers cannot be removed without force: container state improper",
        "podman rm -f web",
    ),
    T("tmux a", "no sessions", "tmux new"),
    T("tmux attach -t work", "can't find session: work", "tmux new -s work"),
    T(
        "npm publish",
        "npm ERR! code ENEEDAUTH\nnpm ERR! need auth This command requires you to be logged in to https://registry.npmjs.org/\nnpm ERR! need auth You need to authorize this machine using `npm adduser`",
        "npm login && npm publish",
    ),
    T(
        "sudo service nginx restrat",
        "Usage: nginx {start|stop|restart|reload|force-reload|status|configtest|rotate|upgrade}",
        "sudo service nginx restart",
    ),
    T(
        "/etc/init.d/ssh stpo",
        "Usage: /etc/init.d/ssh {start|stop|reload|force-reload|restart|try-restart|status}",
        "/etc/init.d/ssh stop",
    ),
    T(
        "workon myenv",
        "ERROR: Environment 'myenv' does not exist. Create it with 'mkvirtualenv myenv'.",
        "mkvirtualenv myenv",
    ),
    T(
        "docker-compose up",
        "ERROR: Couldn't connect to Docker daemon at http+docker://localhost - is it running?",
        "sudo systemctl start docker && docker-compose up",
    ),
    T(
        "gcc main.c -o main",
        "/usr/bin/ld: /tmp/ccXy.o: in function `main':\nmain.c:(.text+0x1a): undefined reference to `sqrt'\ncollect2: error: ld returned 1 exit status",
        "gcc main.c -o main -lm",
    ),
    T(
        "gcc server.c -o server && ./server",
        "/usr/bin/ld: /tmp/cc.o: in function `main':\nserver.c:(.text+0x5e): undefined reference to `pthread_create'\n/usr/bin/ld: server.c:(.text+0x6f): undefined reference to `pthread_join'",
        "gcc server.c -o server -pthread && ./server",
    ),
    T(
        "cc db.c",
        "/usr/bin/ld: db.o: in function `open_db':\ndb.c:(.text+0x2b): undefined reference to `sqlite3_open'",
        "cc db.c -lsqlite3",
    ),
    T(
        "gcc hello.cpp -o hello",
        "/usr/bin/ld: /tmp/cc.o: in function `main':\nhello.cpp:(.text+0x13): undefined reference to `std::cout'",
        "g++ hello.cpp -o hello",
    ),
    T(
        "dotnet biuld",
        "Could not execute because the specified command or file was not found.\nPossible reasons for this include:\n  * You misspelled a built-in dotnet command.\n  * You intended to execute a .NET program, but dotnet-biuld does not exist.\n  * You intended to run a global tool, but a dotnet-prefixed executable with this name could not be found on the PATH.",
        "dotnet build",
        "powershell",
    ),
    T(
        "dotnet ef database update",
        "Could not execute because the specified command or file was not found.\nPossible reasons for this include:\n  * You misspelled a built-in dotnet command.\n  * You intended to execute a .NET program, but dotnet-ef does not exist.",
        "dotnet tool install --global dotnet-ef; dotnet ef database update",
        "powershell",
    ),
    T(
        "npm ci",
        "npm ERR! code EUSAGE\nnpm ERR! \nnpm ERR! The `npm ci` command can only install with an existing package-lock.json or\nnpm ERR! npm-shrinkwrap.json with lockfileVersion >= 1.",
        "npm install",
    ),
    T(
        "pnpm install --frozen-lockfile",
        'ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date with package.json',
        "pnpm install --frozen-lockfile --no-frozen-lockfile",
    ),
    T(
        "kubectl apply -f deploy.yaml",
        'error: error validating "deploy.yaml": error validating data: failed to download openapi: Get "http://localhost:8080/openapi/v2?timeout=32s": dial tcp 127.0.0.1:8080: connect: connection refused; if you choose to ignore these errors, turn validation off with --validate=false',
        "kubectl config get-contexts",
    ),
    T(
        "kubectl logs web",
        "Error from server (BadRequest): a container name must be specified for pod web, choose one of: [app sidecar]",
        "kubectl logs web -c app",
    ),
    T(
        "kubectl exec -it web -- sh",
        "Error from server (BadRequest): a container name must be specified for pod web, choose one of: [app istio-proxy]",
        "kubectl exec -it web -c app -- sh",
    ),
    T(
        "git push origin main",
        "remote: error: GH006: Protected branch update failed for refs/heads/main.\nremote: error: Changes must be made through a pull request.\nTo github.com:a/b.git\n ! [remote rejected] main -> main (protected branch hook declined)",
        "git switch -c my-change && git push -u origin my-change",
    ),
    T(
        "git push",
        "remote: GitLab: You are not allowed to push code to protected branches on this project.\n ! [remote rejected] main -> main (pre-receive hook declined)",
        "git switch -c my-change && git push -u origin my-change",
    ),
    T(
        "pip install mysqlclient",
        "Exception: Can not find valid pkg-config name.\nSpecify MYSQLCLIENT_CFLAGS and MYSQLCLIENT_LDFLAGS env vars manually",
        "sudo apt install pkg-config default-libmysqlclient-dev build-essential && pip install mysqlclient",
    ),
    T(
        "pip install mysqlclient",
        "Exception: Can not find valid pkg-config name.",
        "pip install pymysql",
        first=False,
    ),
    T(
        "python3 -m venv .venv",
        "Error: Command '['/home/u/.venv/bin/python3', '-m', 'ensurepip', '--upgrade', '--default-pip']' returned non-zero exit status 1.",
        "sudo apt install python3-venv && python3 -m venv .venv",
    ),
    T(
        "python3 -m venv .venv",
        "Error: Command '['/home/u/.venv/bin/python3', '-m', 'ensurepip', '--upgrade', '--default-pip']' returned non-zero exit status 1.",
        "python3 -m venv --without-pip .venv",
        first=False,
    ),
    T(
        "pip install -e .",
        'ERROR: File "setup.py" or "setup.cfg" not found. Directory cannot be installed in editable mode: /home/u/proj\n(A "pyproject.toml" file was found, but editable mode currently requires a setuptools-based build.)',
        "pip install --upgrade pip && pip install -e .",
    ),
    T(
        "poetry add requests",
        "The currently activated Python version 3.8.10 is not supported by the project (^3.10).\nTrying to find and use a compatible version.",
        "poetry env use python3.10 && poetry add requests",
    ),
    T(
        "uv run app.py",
        "error: No `project` table found in: `/home/u/proj/pyproject.toml`",
        "uv run --no-project app.py",
        exit_code=2,
    ),
    T(
        "mypy .",
        'setup.py: error: Duplicate module named "setup" (also at "./build/lib/setup.py")',
        "mypy . --exclude build",
        exit_code=2,
    ),
    T(
        "python manage.py migrate",
        'django.db.utils.OperationalError: could not connect to server: Connection refused\n\tIs the server running on host "localhost" (127.0.0.1) and accepting\n\tTCP/IP connections on port 5432?',
        "sudo systemctl start postgresql && python manage.py migrate",
    ),
    T(
        "node worker.js",
        "Error: connect ECONNREFUSED 127.0.0.1:6379\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)",
        "docker run -d -p 6379:6379 redis",
        first=False,
    ),
    T(
        "python app.py",
        "pymongo.errors.ServerSelectionTimeoutError: localhost:27017: [WinError 10061] No connection could be made because the target machine actively refused it",
        "Get-Service *mongo* | Start-Service; python app.py",
        "powershell",
    ),
    T(
        "source .venv/bin/activate",
        "from sourcing file .venv/bin/activate\nsource: Error while reading file '.venv/bin/activate'",
        "source .venv/bin/activate.fish",
        "fish",
    ),
    T(
        "pip install requests[security]",
        "zsh: no matches found: requests[security]",
        "pip install 'requests[security]'",
        "zsh",
    ),
    T(
        "curl https://api.example.com/items?page=2",
        "zsh: no matches found: https://api.example.com/items?page=2",
        "curl 'https://api.example.com/items?page=2'",
        "zsh",
    ),
    T("git reset HEAD^", "zsh: no matches found: HEAD^", "git reset 'HEAD^'", "zsh"),
]
