"""Files and folders: cd, mkdir, cp/mv into missing folders, rm/cat/grep on folders."""

from __future__ import annotations

from tests.agent.rules.table import T

CASES = [
    T(
        "cd projcts",
        "bash: cd: projcts: No such file or directory",
        "mkdir -p projcts && cd projcts",
    ),
    T("cd build", "cd: no such file or directory: build", "mkdir -p build && cd build", "zsh"),
    T("cd src", "cd: The directory 'src' does not exist", "mkdir -p src && cd src", "fish"),
    T("cd docs", "sh: 1: cd: can't cd to docs", "mkdir -p docs && cd docs", "sh"),
    T(
        "cd dist",
        "cd : Cannot find path 'C:\\proj\\dist' because it does not exist.\nAt line:1 char:1",
        "New-Item -ItemType Directory -Path dist; Set-Location dist",
        "powershell",
    ),
    T("cd dist", "The system cannot find the path specified.", "mkdir dist && cd dist", "cmd"),
    T(
        "mkdir a/b/c",
        "mkdir: cannot create directory ‘a/b/c’: No such file or directory",
        "mkdir -p a/b/c",
    ),
    T("mkdir a/b/c", "mkdir: a/b: No such file or directory", "mkdir -p a/b/c", "zsh"),
    T(
        "cp app.conf backup/2024/",
        "cp: cannot create regular file 'backup/2024/': Not a directory",
        "mkdir -p backup/2024/ && cp app.conf backup/2024/",
    ),
    T(
        "cp app.conf backup/app.conf",
        "cp: cannot create regular file 'backup/app.conf': No such file or directory",
        "mkdir -p backup && cp app.conf backup/app.conf",
    ),
    T(
        "mv report.pdf archive/2023/",
        "mv: cannot move 'report.pdf' to 'archive/2023/': No such file or directory",
        "mkdir -p archive/2023/ && mv report.pdf archive/2023/",
    ),
    T(
        "touch src/utils/helpers.py",
        "touch: cannot touch 'src/utils/helpers.py': No such file or directory",
        "mkdir -p src/utils && touch src/utils/helpers.py",
    ),
    T(
        "Copy-Item a.txt out\\sub\\a.txt",
        "Copy-Item : Could not find a part of the path 'C:\\p\\out\\sub\\a.txt'.",
        "New-Item -ItemType Directory -Force -Path out\\sub; Copy-Item a.txt out\\sub\\a.txt",
        "powershell",
    ),
    T("cp src dst", "cp: -r not specified; omitting directory 'src'", "cp -r src dst"),
    T("cp src dst", "cp: omitting directory 'src'", "cp -r src dst"),
    T("rm build", "rm: cannot remove 'build': Is a directory", "rm -r build"),
    T("rm build", "rm: build: is a directory", "rm -rf build", "zsh", first=False),
    T(
        "rmdir node_modules",
        "rmdir: failed to remove 'node_modules': Directory not empty",
        "rm -r node_modules",
    ),
    T("cat src", "cat: src: Is a directory", "ls src"),
    T("grep TODO src", "grep: src: Is a directory", "grep -r TODO src"),
    T(
        "./run.sh",
        "bash: ./run.sh: /bin/bash^M: bad interpreter: No such file or directory",
        "sed -i 's/\\r$//' ./run.sh && ./run.sh",
    ),
]
