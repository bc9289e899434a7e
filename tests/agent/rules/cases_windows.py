"""PowerShell and cmd: execution policy, Unix commands typed there, && in 5.1, curl alias."""

from __future__ import annotations

from tests.agent.rules.cases_not_found import CMD, PS7, PS51
from tests.agent.rules.table import T


def param(cmdlet: str, name: str) -> str:
    return (
        f"{cmdlet} : A parameter cannot be found that matches parameter name '{name}'.\n"
        f"At line:1 char:4\n    + CategoryInfo          : InvalidArgument: (:) [{cmdlet}], ParameterBindingException\n"
    )


POLICY = (
    "{0} : File {1} cannot be loaded because running scripts is disabled on this system. For more "
    "information, see about_Execution_Policies at https:/go.microsoft.com/fwlink/?LinkID=135170.\n"
    "At line:1 char:1\n    + CategoryInfo          : SecurityError: (:) [], PSSecurityException\n"
    "    + FullyQualifiedErrorId : UnauthorizedAccess\n"
)
AND_AND = (
    "At line:1 char:7\n+ npm i && npm start\n+       ~~\nThe token '&&' is not a valid statement "
    "separator in this version.\n    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\n"
)

CASES = [
    T(
        ".\\venv\\Scripts\\Activate.ps1",
        POLICY.format(".\\venv\\Scripts\\Activate.ps1", "C:\\proj\\venv\\Scripts\\Activate.ps1"),
        "Set-ExecutionPolicy -Scope CurrentUser RemoteSigned",
        "powershell",
    ),
    T(
        "npm run dev",
        POLICY.format("npm", "C:\\Program Files\\nodejs\\npm.ps1"),
        "Set-ExecutionPolicy -Scope CurrentUser RemoteSigned",
        "powershell",
    ),
    T(
        ".\\build.ps1",
        POLICY.format(".\\build.ps1", "C:\\src\\build.ps1"),
        "powershell -ExecutionPolicy Bypass -File C:\\src\\build.ps1",
        "pwsh",
        first=False,
    ),
    T("ls -la", param("Get-ChildItem", "la"), "Get-ChildItem -Force", "powershell"),
    T("ls -la", CMD.format("ls"), "dir /a", "cmd"),
    T("ls", CMD.format("ls"), "dir", "cmd"),
    T(
        "rm -rf node_modules",
        param("Remove-Item", "rf"),
        "Remove-Item -Recurse -Force node_modules",
        "powershell",
    ),
    T(
        "rm -rf node_modules",
        param("Remove-Item", "rf"),
        "Remove-Item -Recurse -Force node_modules",
        "pwsh",
    ),
    T("rm -rf build/out", CMD.format("rm"), "rmdir /s /q build\\out", "cmd"),
    T("rm notes.txt", CMD.format("rm"), "del notes.txt", "cmd"),
    T("cat README.md", CMD.format("cat"), "type README.md", "cmd"),
    T(
        "grep error app.log",
        PS51.format("grep"),
        "Select-String -Pattern error -Path app.log",
        "powershell",
    ),
    T("grep -i error app.log", CMD.format("grep"), "findstr /i error app.log", "cmd"),
    T("docker ps | grep web", PS7.format("grep"), "docker ps | Select-String -Pattern web", "pwsh"),
    T("touch index.html", PS51.format("touch"), "New-Item -ItemType File index.html", "powershell"),
    T("touch index.html", CMD.format("touch"), "type nul > index.html", "cmd"),
    T("which python", PS51.format("which"), "Get-Command python", "powershell"),
    T("which python", CMD.format("which"), "where python", "cmd"),
    T(
        "export NODE_ENV=production",
        PS51.format("export"),
        '$env:NODE_ENV = "production"',
        "powershell",
    ),
    T("export NODE_ENV=production", CMD.format("export"), 'set "NODE_ENV=production"', "cmd"),
    T(
        'export PATH="C:\\tools:$PATH" NODE_ENV=dev',
        CMD.format("export"),
        'set "PATH=C:\\tools;%PATH%" && set "NODE_ENV=dev"',
        "cmd",
    ),
    T(
        "export PATH=$PATH:$HOME/.local/bin",
        PS51.format("export"),
        '$env:PATH = "$env:PATH;$HOME/.local/bin"',
        "powershell",
    ),
    T(
        "cd C:\\Program Files\\nodejs",
        "Set-Location : A positional parameter cannot be found that accepts argument 'Files\\nodejs'.",
        "cd 'C:\\Program Files\\nodejs'",
        "powershell",
    ),
    T(
        "sudo apt install build-essential",
        PS51.format("sudo"),
        "wsl sudo apt install build-essential",
        "powershell",
    ),
    T(
        "NODE_ENV=production node app.js",
        PS7.format("NODE_ENV=production"),
        '$env:NODE_ENV = "production"; node app.js',
        "pwsh",
    ),
    T("cp -r src dist", CMD.format("cp"), "xcopy /E /I src dist", "cmd"),
    T(
        "cp -r src dist",
        param("Copy-Item", "r").replace("'r'", "'r'"),
        "Copy-Item -Recurse src dist",
        "powershell",
    ),
    T("mv a.txt b.txt", CMD.format("mv"), "move a.txt b.txt", "cmd"),
    T("pwd", CMD.format("pwd"), "cd", "cmd"),
    T("clear", CMD.format("clear"), "cls", "cmd"),
    T(
        "ps aux",
        "Get-Process : A positional parameter cannot be found that accepts argument 'aux'.",
        "Get-Process",
        "powershell",
    ),
    T("kill -9 4242", param("Stop-Process", "9"), "Stop-Process -Id 4242 -Force", "powershell"),
    T("kill 4242", CMD.format("kill"), "taskkill /PID 4242 /F", "cmd"),
    T(
        "head -n 20 app.log",
        PS51.format("head"),
        "Get-Content app.log -TotalCount 20",
        "powershell",
    ),
    T("tail -f app.log", PS7.format("tail"), "Get-Content app.log -Wait", "pwsh"),
    T(
        "curl -X POST https://api.example.com/x",
        param("Invoke-WebRequest", "X"),
        "curl.exe -X POST https://api.example.com/x",
        "powershell",
    ),
    T(
        "curl -H 'Accept: application/json' https://api.example.com",
        "Invoke-WebRequest : Cannot bind parameter 'Headers'. Cannot convert the \"Accept: application/json\" value",
        "curl.exe -H 'Accept: application/json' https://api.example.com",
        "powershell",
    ),
    T("npm i && npm start", AND_AND, "npm i; npm start", "powershell"),
    T("cd app && npm test", AND_AND, "cd app; if ($?) { npm test }", "powershell", first=False),
    T("./gradlew build", CMD.format("."), ".\\gradlew build", "cmd"),
    T(
        "./deploy.sh",
        "Program 'deploy.sh' failed to run: The specified executable is not a valid application for this OS platform.",
        "bash ./deploy.sh",
        "powershell",
    ),
]

CASES += [
    T("ll", PS51.format("ll"), "Get-ChildItem -Force", "powershell"),
    T(
        "du -sh node_modules",
        PS7.format("du"),
        "Get-ChildItem -Recurse node_modules | Measure-Object -Property Length -Sum",
        "pwsh",
    ),
    T(
        "sudo Stop-Service spooler",
        PS51.format("sudo"),
        "Start-Process powershell -Verb RunAs -ArgumentList '-NoExit', '-Command', 'Stop-Service spooler'",
        "powershell",
    ),
    T(
        "sudo systemctl start docker",
        PS51.format("sudo"),
        "wsl sudo systemctl start docker",
        "powershell",
    ),
    T(
        "systemctl start postgresql",
        PS51.format("systemctl"),
        "Start-Service postgresql",
        "powershell",
    ),
    T("service mysql stop", CMD.format("service"), "net stop mysql", "cmd"),
    T("lsof -i :3000", PS7.format("lsof"), "Get-NetTCPConnection -LocalPort 3000", "pwsh"),
    T("lsof -i :3000", CMD.format("lsof"), "netstat -ano | findstr :3000", "cmd"),
    T(
        "sudo apt install git",
        PS51.format("sudo"),
        "winget install -e --id Git.Git",
        "powershell",
        first=False,
    ),
    T("apt install nodejs", PS7.format("apt"), "winget install -e --id OpenJS.NodeJS.LTS", "pwsh"),
    T("brew install jq", CMD.format("brew"), "winget install -e --id jqlang.jq", "cmd"),
    T("source ~/.bashrc", PS51.format("source"), ". $PROFILE", "powershell"),
    T(
        "wget -O app.zip https://example.com/app.zip",
        param("Invoke-WebRequest", "O"),
        "Invoke-WebRequest https://example.com/app.zip -OutFile app.zip",
        "powershell",
    ),
]

# ...and the other way round: Windows habits in bash/zsh.
CASES += [
    T("ipconfig", "bash: ipconfig: command not found", "ip addr"),
    T("cls", "zsh: command not found: cls", "clear", "zsh"),
    T("del /f notes.txt", "bash: del: command not found", "rm notes.txt"),
    T("Get-ChildItem", "bash: Get-ChildItem: command not found", "ls -la"),
    T("taskkill /PID 4242 /F", "bash: taskkill: command not found", "kill 4242"),
    T("findstr TODO main.c", "bash: findstr: command not found", "grep TODO main.c"),
]

CASES += [
    T(
        '"C:\\Program Files\\nodejs\\node.exe" --version',
        "At line:1 char:36\n+ \"C:\\Program Files\\nodejs\\node.exe\" --version\n+                                    ~~~~~~~~~\nUnexpected token '--version' in expression or statement.",
        '& "C:\\Program Files\\nodejs\\node.exe" --version',
        "powershell",
    ),
    T(
        "rmdir /s /q node_modules",
        "Remove-Item : A positional parameter cannot be found that accepts argument '/q'.",
        "Remove-Item -Recurse -Force node_modules",
        "powershell",
    ),
    T(
        "dir /s *.log",
        "Get-ChildItem : Second path fragment must not be a drive or UNC name.",
        "Get-ChildItem -Recurse *.log",
        "pwsh",
    ),
    T("gti status", "", "git status", "cmd", exit_code=9009),
]

# The plain forms are offered too.
CASES += [
    T("ls -la", param("Get-ChildItem", "la"), "Get-ChildItem", "powershell", first=False),
    T("ls -la", CMD.format("ls"), "dir", "cmd", first=False),
    T(
        "grep error app.log",
        PS51.format("grep"),
        "Select-String error app.log",
        "powershell",
        first=False,
    ),
]

# winget cannot choose between several packages: install by the exact id.
CASES += [
    T(
        "winget install python",
        "Multiple packages found matching input criteria. Please refine the input.\n"
        "Name              Id                    Source\n"
        "------------------------------------------------\n"
        "Python 3.12       Python.Python.3.12    winget\n"
        "Python 3.11       Python.Python.3.11    winget\n",
        "winget install --id Python.Python.3.12 -e",
        shell="powershell",
    ),
    T(
        "ls -l",
        "Get-ChildItem : Missing an argument for parameter 'LiteralPath'. Specify a parameter of type 'System.String[]' and try again.",
        "Get-ChildItem",
        "powershell",
    ),
    T(
        "mkdir -p src\\app\\models",
        "mkdir : A positional parameter cannot be found that accepts argument 'src\\app\\models'.",
        "New-Item -ItemType Directory -Force -Path src\\app\\models",
        "powershell",
    ),
]
