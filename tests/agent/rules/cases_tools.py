"""Docker, OS package managers, misspelled subcommands of common CLIs, build tools, SSH."""

from __future__ import annotations

from tests.agent.rules.table import T

DAEMON = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"
DAEMON_WIN = (
    "error during connect: this error may indicate that the docker daemon is not running: Get "
    '"http://%2F%2F.%2Fpipe%2Fdocker_engine/v1.24/containers/json": open //./pipe/docker_engine: '
    "The system cannot find the file specified."
)
SOCK = (
    "permission denied while trying to connect to the Docker daemon socket at "
    'unix:///var/run/docker.sock: Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.24/containers/json": '
    "dial unix /var/run/docker.sock: connect: permission denied"
)

CASES = [
    T("docker ps", DAEMON, "sudo systemctl start docker && docker ps"),
    T("docker compose up", DAEMON, "sudo service docker start && docker compose up", first=False),
    T(
        "docker ps",
        DAEMON_WIN,
        'Start-Process "$env:ProgramFiles\\Docker\\Docker\\Docker Desktop.exe"',
        "powershell",
    ),
    T(
        "docker ps",
        DAEMON_WIN,
        'start "" "%ProgramFiles%\\Docker\\Docker\\Docker Desktop.exe"',
        "cmd",
    ),
    T("docker ps", SOCK, "sudo docker ps"),
    T("docker ps", SOCK, "sudo usermod -aG docker $USER && newgrp docker", first=False),
    T(
        "docker ps",
        "Got permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: connect: permission denied",
        "sudo docker ps",
    ),
    T(
        "docker imgaes",
        "docker: 'imgaes' is not a docker command.\nSee 'docker --help'",
        "docker images",
    ),
    T(
        "docker biuld -t app .",
        "docker: unknown command: docker biuld\n\nRun 'docker --help' for more information",
        "docker build -t app .",
    ),
    T(
        "docker compose up -d",
        "docker: 'compose' is not a docker command.\nSee 'docker --help'",
        "docker-compose up -d",
    ),
    T("docker-compose up", "bash: docker-compose: command not found", "docker compose up"),
    T(
        "docker run --name db postgres",
        'docker: Error response from daemon: Conflict. The container name "/db" is already in use by container "3f2a". You have to remove (or rename) that container to be able to reuse that name.',
        "docker rm -f db && docker run --name db postgres",
    ),
    T(
        "sudo apt install python-pip",
        "Reading package lists... Done\nBuilding dependency tree... Done\nE: Unable to locate package python-pip",
        "sudo apt install python3-pip",
    ),
    T(
        "sudo apt install htop",
        "Reading package lists... Done\nE: Unable to locate package htop",
        "sudo apt update && sudo apt install htop",
    ),
    T(
        "sudo apt-get install nodejs-npm",
        "E: Unable to locate package nodejs-npm",
        "sudo apt-get install npm",
    ),
    T(
        "sudo apt install python",
        "Package python is not available, but is referred to by another package.\nE: Package 'python' has no installation candidate",
        "sudo apt install python3",
    ),
    T(
        "sudo apt install vim",
        "E: dpkg was interrupted, you must manually run 'sudo dpkg --configure -a' to correct the problem.",
        "sudo dpkg --configure -a && sudo apt install vim",
    ),
    T(
        "sudo apt install vim",
        "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 2280 (unattended-upgr)\nN: Be aware that removing the lock file is not a solution and may break your system.",
        "ps -p 2280 -o pid,etime,cmd",
    ),
    T(
        "brew install pyton",
        'Warning: No available formula with the name "pyton". Did you mean python?',
        "brew search pyton",
        first=False,
    ),
    T(
        "kubectl gt pods",
        'error: unknown command "gt" for "kubectl"\n\nDid you mean this?\n\tget\n\nRun \'kubectl --help\' for usage.',
        "kubectl get pods",
    ),
    T(
        "kubectl descrbe pod web",
        'error: unknown command "descrbe" for "kubectl"\nRun \'kubectl --help\' for usage.',
        "kubectl describe pod web",
    ),
    T(
        "gh prr list",
        'unknown command "prr" for "gh"\n\nDid you mean this?\n\tpr\n\nUsage:  gh <command> <subcommand> [flags]',
        "gh pr list",
    ),
    T(
        "helm isntall app ./chart",
        'Error: unknown command "isntall" for "helm"\n\nDid you mean this?\n\tinstall\n\nRun \'helm --help\' for usage.',
        "helm install app ./chart",
    ),
    T(
        "cargo buid",
        "error: no such subcommand: `buid`\n\n\tDid you mean `build`?\n",
        "cargo build",
    ),
    T(
        "cargo tset",
        "error: no such command: `tset`\n\n  tip: a command with a similar name exists: `test`\n\n  tip: view all installed commands with `cargo --list`\n  tip: find a package to install `tset` with `cargo search cargo-tset`",
        "cargo test",
    ),
    T("go bulid ./...", "go bulid: unknown command\nRun 'go help' for usage.", "go build ./..."),
    T("go tets", "go tets: unknown command\nRun 'go help' for usage.", "go test"),
    T(
        "az grop list",
        "az: 'grop' is not in the 'az' command group. See 'az --help'. If the command is from an extension, please make sure the corresponding extension is installed. To learn more about extensions, please visit https://docs.microsoft.com/cli/azure/azure-cli-extensions-overview\n\nThe most similar choices to 'grop':\n    group\n",
        "az group list",
    ),
    T(
        "az providers",
        "az: 'providers' is not in the 'az' command group. See 'az --help'.\n\nThe most similar choice to 'providers' is:\n    provider\n",
        "az provider",
    ),
    T(
        "az vm lsit",
        "az vm: 'lsit' is not in the 'az vm' command group. See 'az vm --help'.\n\nThe most similar choices to 'lsit':\n    list\n    list-sizes\n",
        "az vm list",
        "powershell",
    ),
    T(
        "aws dynamdb scan --table-name t",
        "usage: aws [options] <command> <subcommand> [<subcommand> ...] [parameters]\nTo see help text, you can run:\n\n  aws help\n\naws: error: argument command: Invalid choice, valid choices are:\n\nInvalid choice: 'dynamdb', maybe you meant:\n\n  * dynamodb\n",
        "aws dynamodb scan --table-name t",
    ),
    T(
        "pip instal requests",
        'ERROR: unknown command "instal" - maybe you meant "install"',
        "pip install requests",
    ),
    T(
        "python -m pip isntall x",
        'ERROR: unknown command "isntall" - maybe you meant "install"',
        "python -m pip install x",
    ),
    T("brew instal wget", "Error: Unknown command: instal", "brew install wget"),
    T(
        "conda lst",
        "\n\nCommandNotFoundError: No command 'conda lst'.\nDid you mean 'conda list'?\n\n",
        "conda list",
    ),
    T(
        "conda isntall numpy",
        "usage: conda [-h] [-v] [--no-plugins] [-V] COMMAND ...\nconda: error: argument COMMAND: invalid choice: 'isntall' (choose from 'clean', 'compare', 'config', 'create', 'info', 'init', 'install', 'list', 'package', 'remove', 'uninstall', 'rename', 'run', 'search', 'update', 'upgrade', 'notices')",
        "conda install numpy",
    ),
    T(
        "terraform aply",
        'Terraform has no command named "aply". Did you mean "apply"?\n\nTo see all of Terraform\'s top-level commands, run:\n  terraform -help',
        "terraform apply",
    ),
    T(
        "terraform plan",
        "╷\n│ Error: Inconsistent dependency lock file\n│ \n│ To make the initial dependency selections that will initialize the dependency lock file, run:\n│   terraform init\n╵",
        "terraform init && terraform plan",
    ),
    T("systemctl statu nginx", "Unknown operation 'statu'.", "systemctl status nginx"),
    T("systemctl nginx restart", "Unknown command verb 'nginx'.", "systemctl restart nginx"),
    T("apt isntall vim", "E: Invalid operation isntall", "apt install vim"),
    T("make biuld", "make: *** No rule to make target 'biuld'.  Stop.", "make build"),
    T(
        "make",
        "make: *** No targets specified and no makefile found.  Stop.",
        "cmake -S . -B build && cmake --build build",
    ),
    T("mvn clean package", "bash: mvn: command not found", "./mvnw clean package"),
    T(
        "gradle build",
        "gradle : The term 'gradle' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        ".\\gradlew.bat build",
        "powershell",
    ),
    T(
        "mvn",
        "[ERROR] No goals have been specified for this build. You must specify a valid lifecycle phase or a goal",
        "mvn clean install",
    ),
    T(
        "ssh deploy@10.0.0.5",
        "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\nOffending ECDSA key in /home/me/.ssh/known_hosts:3\n  remove with:\n  ssh-keygen -f '/home/me/.ssh/known_hosts' -R '10.0.0.5'\nHost key verification failed.",
        "ssh-keygen -f '/home/me/.ssh/known_hosts' -R '10.0.0.5'",
    ),
    T(
        "ssh me@example.com",
        "ssh: connect to host example.com port 22: Connection refused",
        "nc -zv example.com 22",
    ),
    T(
        "ssh -i key.pem ubuntu@host",
        "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n@         WARNING: UNPROTECTED PRIVATE KEY FILE!          @\n@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\nPermissions 0644 for 'key.pem' are too open.",
        "chmod 600 key.pem && ssh -i key.pem ubuntu@host",
    ),
    T(
        "pip install mysqlclient",
        "    src/MySQLdb/_mysql.c:46:10: fatal error: Python.h: No such file or directory",
        "sudo apt install python3-dev",
    ),
    T(
        "gcc app.c -lssl",
        "app.c:1:10: fatal error: openssl/ssl.h: No such file or directory\n    1 | #include <openssl/ssl.h>",
        "sudo apt install libssl-dev",
    ),
    T(
        "cargo build",
        "error: linker `cc` not found\n  |\n  = note: No such file or directory (os error 2)",
        "sudo apt install build-essential",
    ),
    T(
        "go build",
        "go: go.mod file not found in current directory or any parent directory; see 'go help modules'",
        "go mod init example.com/app && go build",
    ),
    T(
        "cargo run",
        "error: could not find `Cargo.toml` in `/home/me` or any parent directory",
        "cargo init",
    ),
    T(
        "tar archive.tar.gz",
        "tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\nTry 'tar --help' or 'tar --usage' for more information.",
        "tar -xf archive.tar.gz",
    ),
    T(
        "unzip data.tar.gz",
        "Archive:  data.tar.gz\n  End-of-central-directory signature not found.",
        "tar -xf data.tar.gz",
    ),
    T(
        "java -jar app.jar",
        "Error: LinkageError occurred while loading main class Main\n\tjava.lang.UnsupportedClassVersionError: Main has been compiled by a more recent version of the Java Runtime (class file version 65.0)",
        "sudo apt install openjdk-21-jdk",
    ),
]

CASES += [
    T(
        "kubectl get deploymnets",
        'error: the server doesn\'t have a resource type "deploymnets"',
        "kubectl get deployments",
    ),
    T(
        "kubectl describe deployment web",
        'Error from server (NotFound): deployments.apps "web" not found',
        "kubectl get deployments -A | grep web",
    ),
    T(
        "helm install web ./chart",
        "Error: INSTALLATION FAILED: cannot re-use a name that is still in use",
        "helm upgrade --install web ./chart",
    ),
    T(
        "terraform apply",
        "╷\n│ Error: Error acquiring the state lock\n│ \n│ Lock Info:\n│   ID:        8f3c1a2b-1111-2222-3333-444455556666\n│   Path:      tfstate",
        "terraform force-unlock 8f3c1a2b-1111-2222-3333-444455556666",
    ),
    T(
        "aws s3 ls",
        "An error occurred (ExpiredToken) when calling the ListBuckets operation: The security token included in the request is expired",
        "aws sso login && aws s3 ls",
    ),
    T(
        "aws s3 ls --profile dev",
        "The config profile (dev) could not be found",
        "aws configure --profile dev",
    ),
    T(
        "docker exec -it web bash",
        'OCI runtime exec failed: exec failed: unable to start container process: exec: "bash": executable file not found in $PATH: unknown',
        "docker exec -it web sh",
    ),
    T(
        "kubectl exec -it web-0 -- bash",
        'error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "x": OCI runtime exec failed: exec failed: unable to start container process: exec: "bash": executable file not found in $PATH: unknown',
        "kubectl exec -it web-0 -- sh",
    ),
    T(
        "docker run --network backend api",
        "docker: Error response from daemon: network backend not found.",
        "docker network create backend && docker run --network backend api",
    ),
    T("docker logs web", "Error response from daemon: No such container: web", "docker ps -a"),
    T(
        "ssh me@host",
        "Received disconnect from 10.0.0.5 port 22:2: Too many authentication failures",
        "ssh -o IdentitiesOnly=yes me@host",
    ),
    T(
        "curl https://internal.local/api",
        "curl: (60) SSL certificate problem: self-signed certificate\nMore details here: https://curl.se/docs/sslcerts.html",
        "curl -k https://internal.local/api",
    ),
    T(
        "pip install flask",
        "Could not fetch URL https://pypi.org/simple/flask/: There was a problem confirming the ssl certificate: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/flask/ (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed')))",
        "pip install flask --trusted-host pypi.org --trusted-host files.pythonhosted.org",
    ),
    T(
        "./run.sh",
        "/usr/bin/env: 'bash\r': No such file or directory",
        "sed -i 's/\\r$//' ./run.sh && ./run.sh",
    ),
    T(
        "mvn package",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.8.1:compile (default-compile) on project app: Fatal error compiling: invalid target release: 17 -> [Help 1]",
        "sudo apt install openjdk-17-jdk",
    ),
    T(
        "./gradlew build",
        "Error: Could not find or load main class org.gradle.wrapper.GradleWrapperMain\nCaused by: java.lang.ClassNotFoundException: org.gradle.wrapper.GradleWrapperMain",
        "gradle wrapper && ./gradlew build",
    ),
]

CASES += [
    T(
        "apt install wget",
        "zsh: command not found: apt\n/Users/me/.zshrc loaded",
        "brew install wget",
        "zsh",
    ),
    T("sudo dnf install htop", "sudo: dnf: command not found", "sudo apt install htop"),
]
