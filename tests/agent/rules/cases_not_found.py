"""Command-not-found cases, in the words of bash, zsh, fish, sh, PowerShell 5.1/7, cmd and Ubuntu."""

from __future__ import annotations

from tests.agent.rules.table import T

PS51 = (
    "{0} : The term '{0}' is not recognized as the name of a cmdlet, function, script file, or "
    "operable program. Check the spelling of the name, or if a path was included, verify that "
    "the path is correct and try again.\nAt line:1 char:1\n+ {0}\n+ ~~~\n"
    "    + CategoryInfo          : ObjectNotFound: ({0}:String) [], CommandNotFoundException\n"
    "    + FullyQualifiedErrorId : CommandNotFoundException\n"
)
PS7 = (
    "{0}: The term '{0}' is not recognized as a name of a cmdlet, function, script file, or "
    "executable program.\nCheck the spelling of the name, or if a path was included, verify "
    "that the path is correct and try again.\n"
)
CMD = (
    "'{0}' is not recognized as an internal or external command,\noperable program or batch file.\n"
)

CASES = [
    T("gti status", "bash: gti: command not found", "git status"),
    T("gti status", "zsh: command not found: gti", "git status", "zsh"),
    T("gti status", "fish: Unknown command: gti\nfish: \ngti status\n^~^", "git status", "fish"),
    T("gti status", "/bin/sh: 1: gti: not found", "git status", "sh"),
    T("gti status", PS51.format("gti"), "git status", "powershell"),
    T("gti status", PS7.format("gti"), "git status", "pwsh"),
    T("gti status", CMD.format("gti"), "git status", "cmd"),
    T("sl", "bash: sl: command not found", "ls", exit_code=127),
    T("sl -la", "zsh: command not found: sl", "ls -la", "zsh"),
    T("cd..", "bash: cd..: command not found", "cd ..", exit_code=127),
    T(
        "pyhton manage.py runserver",
        "bash: pyhton: command not found",
        "python manage.py runserver",
    ),
    T("pyhton app.py", "zsh: command not found: pyhton", "python app.py", "zsh"),
    T("pyhton app.py", PS7.format("pyhton"), "python app.py", "pwsh"),
    T("dokcer ps", "bash: line 1: dokcer: command not found", "docker ps"),
    T("claer", "-bash: claer: command not found", "clear"),
    T("mkdri build", "zsh: command not found: mkdri", "mkdir build", "zsh"),
    T("kubeclt get pods", "bash: kubeclt: command not found", "kubectl get pods"),
    T("Get-ChildItme", PS7.format("Get-ChildItme"), "Get-ChildItem", "pwsh"),
    T("Get-Contnet log.txt", PS51.format("Get-Contnet"), "Get-Content log.txt", "powershell"),
    T(
        "Selct-String foo *.txt",
        PS51.format("Selct-String"),
        "Select-String foo *.txt",
        "powershell",
    ),
    T("gerp -r TODO .", "bash: gerp: command not found", "grep -r TODO ."),
    T("tocuh a.txt", "bash: tocuh: command not found", "touch a.txt"),
    # Ubuntu's command-not-found handler: its hints are used verbatim.
    T(
        "htop",
        "Command 'htop' not found, but can be installed with:\n\nsudo snap install htop  # version 3.2.2\n"
        "sudo apt  install htop  # version 3.0.5-7build2\n\nSee 'snap info htop' for additional versions.",
        "sudo snap install htop",
    ),
    T(
        "tree",
        "Command 'tree' not found, but can be installed with:\n\nsudo apt install tree\n",
        "sudo apt install tree",
    ),
    T(
        "tree",
        "Command 'tree' not found, but can be installed with:\n\napt install tree\n",
        "apt install tree",
    ),
    T(
        "python manage.py migrate",
        "Command 'python' not found, did you mean:\n  command 'python3' from deb python3\n"
        "  command 'python' from deb python-is-python3\n",
        "python3 manage.py migrate",
    ),
    T(
        "python manage.py migrate",
        "Command 'python' not found, did you mean:\n  command 'python3' from deb python3\n"
        "  command 'python' from deb python-is-python3\n",
        "sudo apt install python-is-python3",
        first=False,
    ),
    T(
        "puthon",
        "No command 'puthon' found, did you mean:\n Command 'python' from package 'python-minimal' (main)\n"
        " Command 'python' from package 'python3' (main)\nzsh: command not found: puthon",
        "python",
        "zsh",
    ),
    T(
        "gti",
        "bash: gti: command not found...\nSimilar command is: 'git'",
        "git",
    ),
    T(
        "htop",
        "bash: htop: command not found...\nInstall package 'htop' to provide command 'htop'? [N/y] n",
        "sudo dnf install htop",
    ),
    # A known tool that is simply not installed.
    T("rg TODO", "bash: rg: command not found", "sudo apt install ripgrep"),
    T("jq . data.json", "zsh: command not found: jq", "sudo apt install jq", "zsh"),
    T("rg TODO", PS51.format("rg"), "winget install -e --id BurntSushi.ripgrep.MSVC", "powershell"),
    T("rg TODO", PS51.format("rg"), "scoop install ripgrep", "powershell", first=False),
    T("rg TODO", PS51.format("rg"), "choco install ripgrep -y", "powershell", first=False),
    T("git clone x", CMD.format("git"), "winget install -e --id Git.Git", "cmd"),
    T("node index.js", "bash: node: command not found", "sudo apt install nodejs"),
    T("node index.js", "bash: node: command not found", "nvm install --lts", first=False),
    T("node index.js", PS7.format("node"), "winget install -e --id OpenJS.NodeJS.LTS", "pwsh"),
    T("java -jar app.jar", "bash: java: command not found", "sudo apt install default-jdk"),
    T(
        "javac Main.java",
        PS51.format("javac"),
        "winget install -e --id Microsoft.OpenJDK.21",
        "powershell",
    ),
    T("tsc --init", "bash: tsc: command not found", "npm install -g typescript"),
    T("black .", "zsh: command not found: black", "pip install black", "zsh"),
    T("black .", "zsh: command not found: black", "pipx install black", "zsh", first=False),
    T("cargo build", "bash: cargo: command not found", "sudo apt install cargo"),
    T("docker ps", "bash: docker: command not found", "sudo apt install docker.io"),
    T(
        "docker ps",
        PS51.format("docker"),
        "winget install -e --id Docker.DockerDesktop",
        "powershell",
    ),
    T("make", "bash: make: command not found", "sudo apt install make"),
    T("gcc main.c", "bash: gcc: command not found", "sudo apt install build-essential"),
    T("ifconfig", "bash: ifconfig: command not found", "sudo apt install net-tools"),
    T(
        "build",
        "build : The term 'build' is not recognized as the name of a cmdlet\n\nSuggestion [3,General]: The command build was not found, but does exist in the current location. Windows PowerShell does not load commands from the current location by default. If you trust this command, instead type: \".\\build\".",
        ".\\build",
        "powershell",
    ),
]

CASES += [
    T("./build", "./build: line 3: cmake: command not found", "sudo apt install cmake"),
    T(
        "make",
        "g++ -o app main.cpp\nmake: g++: Command not found\nmake: *** [Makefile:2: app] Error 127",
        "sudo apt install build-essential",
    ),
    T("npm run build", "> tsc -p .\n\nsh: 1: tsc: not found", "npm install && npm run build"),
    T("./start.sh", "env: node: No such file or directory", "sudo apt install nodejs"),
]

CASES += [
    T("dokcer ps", "", "docker ps", exit_code=127),
    T("kubectl get pods", "", "sudo snap install kubectl --classic", exit_code=127),
]

CASES += [
    T(
        "gti status",
        "zsh: correct 'gti' to 'git' [nyae]? n\nzsh: command not found: gti",
        "git status",
        "zsh",
    ),
    T(
        "htop",
        "htop may be found in the following packages:\n  extra/htop 3.3.0-1\t/usr/bin/htop\nbash: htop: command not found",
        "sudo pacman -S htop",
    ),
    T(
        "htop",
        "The program 'htop' is not in your PATH. You can make it available in an ephemeral shell by typing:\n  nix-shell -p htop\nhtop: command not found",
        "nix-shell -p htop",
    ),
    T(
        "htop",
        "The program htop is not installed. Install it by executing:\n pkg install htop",
        "pkg install htop",
    ),
]

CASES += [
    T("bash ./build.sh", CMD.format("bash"), "winget install -e --id Git.Git", "cmd"),
]
