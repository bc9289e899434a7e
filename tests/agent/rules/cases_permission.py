"""Permission failures on POSIX and Windows."""

from __future__ import annotations

from tests.agent.rules.table import T

CASES = [
    T(
        "apt-get install vim",
        "E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)\nE: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?",
        "sudo apt-get install vim",
    ),
    T(
        "apt install htop",
        "E: Could not open lock file /var/lib/dpkg/lock - open (13: Permission denied)\nE: Unable to lock the administration directory (/var/lib/dpkg/), are you root?",
        "sudo apt install htop",
    ),
    T(
        "systemctl restart nginx",
        "Failed to restart nginx.service: Interactive authentication required.\nSee system logs and 'systemctl status nginx.service' for details.",
        "sudo systemctl restart nginx",
    ),
    T(
        "mkdir /opt/app",
        "mkdir: cannot create directory ‘/opt/app’: Permission denied",
        "sudo mkdir /opt/app",
    ),
    T(
        "rm /etc/hosts.bak",
        "rm: cannot remove '/etc/hosts.bak': Permission denied",
        "sudo rm /etc/hosts.bak",
    ),
    T(
        "dnf install htop",
        "Error: This command has to be run with superuser privileges (under the root user on most systems).",
        "sudo dnf install htop",
    ),
    T(
        "pacman -S htop",
        "error: you cannot perform this operation unless you are root.",
        "sudo pacman -S htop",
    ),
    T(
        "npm install -g typescript",
        "npm ERR! code EACCES\nnpm ERR! syscall mkdir\nnpm ERR! path /usr/local/lib/node_modules/typescript\nnpm ERR! errno -13\nnpm ERR! Error: EACCES: permission denied, mkdir '/usr/local/lib/node_modules/typescript'",
        "sudo npm install -g typescript",
    ),
    T(
        "npm install -g typescript",
        "npm ERR! code EACCES\nnpm ERR! Error: EACCES: permission denied, mkdir '/usr/local/lib/node_modules/typescript'",
        "mkdir -p ~/.npm-global && npm config set prefix ~/.npm-global && npm install -g typescript",
        first=False,
    ),
    T("./deploy.sh", "bash: ./deploy.sh: Permission denied", "chmod +x deploy.sh && ./deploy.sh"),
    T(
        "./deploy.sh",
        "zsh: permission denied: ./deploy.sh",
        "chmod +x deploy.sh && ./deploy.sh",
        "zsh",
    ),
    T(
        "./gradlew build",
        "bash: ./gradlew: Permission denied",
        "chmod +x gradlew && ./gradlew build",
    ),
    T("scripts/run", "bash: scripts/run: Permission denied", "chmod +x scripts/run && scripts/run"),
    T(
        "echo 3 > /proc/sys/vm/drop_caches",
        "bash: /proc/sys/vm/drop_caches: Permission denied",
        "echo 3 | sudo tee /proc/sys/vm/drop_caches",
    ),
    T(
        "echo 'x' >> /etc/hosts",
        "zsh: permission denied: /etc/hosts",
        "echo 'x' | sudo tee -a /etc/hosts",
        "zsh",
    ),
    T(
        "pip install requests",
        "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/local/lib/python3.8/dist-packages/requests'\nConsider using the `--user` option or check the permissions.",
        "pip install --user requests",
    ),
    T(
        "choco install git",
        "Chocolatey detected you are not running from an elevated command shell\n (cmd/powershell).",
        "Start-Process powershell -Verb RunAs -ArgumentList '-NoExit', '-Command', 'choco install git'",
        "powershell",
    ),
    T(
        "Remove-Item C:\\Windows\\Temp\\x",
        "Remove-Item : Access to the path 'C:\\Windows\\Temp\\x' is denied.",
        "Start-Process pwsh -Verb RunAs -ArgumentList '-NoExit', '-Command', 'Remove-Item C:\\Windows\\Temp\\x'",
        "pwsh",
    ),
    T(
        "net stop wuauserv",
        "System error 5 has occurred.\n\nAccess is denied.",
        "powershell -Command \"Start-Process cmd -Verb RunAs -ArgumentList '/k net stop wuauserv'\"",
        "cmd",
    ),
    T("sudo apt update", "bash: sudo: command not found", "apt update"),
    T(
        "sudo ls",
        "sudo : The term 'sudo' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        "Start-Process powershell -Verb RunAs -ArgumentList '-NoExit', '-Command', 'ls'",
        "powershell",
    ),
    T(
        "sudo mytool --flag",
        "sudo: mytool: command not found",
        'sudo env "PATH=$PATH" mytool --flag',
    ),
    T("cat /var/log/syslog", "cat: /var/log/syslog: Permission denied", "sudo cat /var/log/syslog"),
]

CASES += [
    T(
        "npm install -g yarn",
        "npm ERR! Error: EACCES: permission denied, access '/usr/local/lib/node_modules'\nnpm ERR! Please try running this command again as root/Administrator.",
        "sudo npm install -g yarn",
    ),
    T(
        "npm install -g yarn",
        "npm ERR! code EPERM\nnpm ERR! Error: EPERM: operation not permitted, mkdir 'C:\\Program Files\\nodejs\\node_modules\\yarn'\nnpm ERR! Please try running this command again as root/Administrator.",
        "Start-Process powershell -Verb RunAs -ArgumentList '-NoExit', '-Command', 'npm install -g yarn'",
        "powershell",
    ),
    T(
        "python setup.py install",
        "error: could not create '/usr/local/lib/python3.10/dist-packages/x': Permission denied",
        "sudo python setup.py install",
    ),
    T("ufw enable", "ERROR: You need to be root to run this script", "sudo ufw enable"),
]

# Editors on a root-owned file.
CASES += [
    T("vim /etc/hosts", '"/etc/hosts" E212: Can\'t open file for writing\n', "sudoedit /etc/hosts"),
    T(
        "nano /etc/fstab",
        "[ Error writing /etc/fstab: Permission denied ]\n",
        "sudo nano /etc/fstab",
        first=False,
    ),
]
