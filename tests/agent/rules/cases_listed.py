"""Tools that list what you may have meant: hint blocks, abbreviations, task lists, logins."""

from __future__ import annotations

from tests.agent.rules.table import T

COMPOSER = (
    "\n  [Symfony\\Component\\Console\\Exception\\CommandNotFoundException]  \n"
    '  Command "instal" is not defined.                                   \n'
    "  Did you mean one of these?                                         \n"
    "      install                                                        \n"
    "      reinstall                                                      \n"
)
ADB_HELP = (
    "Android Debug Bridge version 1.0.41\nVersion 34.0.4-10411341\n\n"
    "global options:\n -a         listen on all network interfaces, not just localhost\n"
    " -d         use USB device (error if multiple devices connected)\n"
)
FAB = (
    "\nWarning: Command(s) not found:\n    deplyo\n\nAvailable commands:\n\n"
    "    build_assets\n    deploy         Ship the current release.\n    rollback\n"
)
CASES = [
    T(
        "tsuru app-lgo -a shop",
        'tsuru: "app-lgo" is not a tsuru command. See "tsuru help".\n\n'
        "Did you mean?\n\tapp-log\n\tapp-list\n",
        "tsuru app-log -a shop",
    ),
    T("composer instal", COMPOSER, "composer install"),
    T(
        "hg res --all",
        "hg: command 'res' is ambiguous:\n    resolve revert\n",
        "hg resolve --all",
    ),
    T(
        "hg cmomit -m fix",
        "hg: unknown command 'cmomit'\n(did you mean one of commit?)\n",
        "hg commit -m fix",
    ),
    T("fab deplyo:env=prod", FAB, "fab deploy:env=prod"),
    T("adb instal app-debug.apk", ADB_HELP, "adb install app-debug.apk"),
    T("adb -s emulator-5554 shel", ADB_HELP, "adb -s emulator-5554 shell"),
    T(
        "tsuru app-list",
        "Error: you're not authenticated or your session has expired.\n",
        "tsuru login && tsuru app-list",
    ),
    T(
        "vercel deploy",
        "Error: You are not logged in. Please run `vercel login` to log in.\n",
        "vercel login && vercel deploy",
        first=False,
    ),
    T(
        "heroku logs --tail",
        " ▸    Multiple apps in git remotes\n ▸    Usage: --remote staging\n"
        " ▸    or: --app shop-staging\n ▸    Heroku remotes in repo:\n"
        " ▸    shop (heroku)\n ▸    shop-staging (staging)\n",
        "heroku logs --tail --app shop",
    ),
    T(
        "prove -v tests",
        "Files=0, Tests=0,  0 wallclock secs ( 0.00 usr +  0.00 sys =  0.00 CPU)\nResult: NOTESTS\n",
        "prove -r -v tests",
    ),
    T(
        "open github.com/me/app",
        "The file /Users/me/src/github.com/me/app does not exist.\n",
        "open http://github.com/me/app",
    ),
    T(
        "open notes.md",
        "The file /Users/me/notes.md does not exist.\n",
        "touch notes.md && open notes.md",
    ),
    # Package managers that name the right verb or a dependency.
    T(
        "brew install node@20 yarn",
        "Warning: node@20 20.11.0 is already installed and up-to-date.\n"
        "To reinstall 20.11.0, run:\n  brew reinstall node@20\n",
        "brew reinstall node@20",
    ),
    T(
        "brew update wget",
        "Error: This command updates brew itself, and does not take formula names.\n"
        "Use `brew upgrade wget` instead.\n",
        "brew upgrade wget",
    ),
    T(
        "brew install ntfs-3g",
        "ntfs-3g: MacfuseRequirement unsatisfied!\n\nYou can install with Homebrew-Cask:\n"
        "  brew install --cask macfuse\n\nError: An unsatisfied requirement failed this build.\n",
        "brew install --cask macfuse && brew install ntfs-3g",
    ),
    T(
        "brew install sshfs",
        "sshfs: OsxfuseRequirement unsatisfied!\n\nYou can install with Homebrew-Cask:\n"
        "  brew cask install osxfuse\n\nError: An unsatisfied requirement failed this build.\n",
        "brew cask install osxfuse && brew install sshfs",
    ),
    T("choco install vlc -y", "", "choco install vlc.install -y", shell="powershell"),
    T(
        "cinst 7zip",
        "7zip not installed. The package was not found with the source(s) listed.\n",
        "cinst 7zip.install",
        shell="cmd",
        first=False,
    ),
    # Files: BSD messages, a destination folder that does not exist yet.
    T(
        "touch logs/2024/app.log",
        "touch: logs/2024/app.log: No such file or directory\n",
        "mkdir -p logs/2024 && touch logs/2024/app.log",
    ),
    T(
        "mv build.zip releases/",
        "mv: rename build.zip to releases/: No such file or directory\n",
        "mkdir -p releases/ && mv build.zip releases/",
    ),
    # Silent failures where the first word cannot have run, or the script is not executable.
    T("./deploy.sh --dry-run", "", "chmod +x deploy.sh && ./deploy.sh --dry-run", exit_code=126),
    T("./manage.py check", "", "python3 ./manage.py check", exit_code=126, first=False),
    T("mangrep", "", "man grep", exit_code=None),
    T(
        "hostscli block facebok",
        "No Domain list found for website: facebok\n\n"
        "type `hostscli websites` to see a list of websites that you can block/unblock\n",
        "hostscli websites",
    ),
    # Windows: opening an address that is not a file.
    T(
        "Invoke-Item example.org",
        "Invoke-Item : Cannot find path 'C:\\Users\\me\\example.org' because it does not exist.\n",
        "Start-Process http://example.org",
        shell="powershell",
    ),
    T(
        "start docs.python.org",
        "The system cannot find the file docs.python.org.\n",
        "start http://docs.python.org",
        shell="cmd",
    ),
    # clap-based tools name a similar subcommand; hint lines may be subcommand paths.
    T(
        "uv pip instal requests",
        "error: unrecognized subcommand 'instal'\n\n  tip: a similar subcommand exists: 'install'\n\n"
        "Usage: uv pip [OPTIONS] <COMMAND>\n",
        "uv pip install requests",
    ),
    T(
        "poetry instal",
        '\nThe command "instal" does not exist.\n\nDid you mean one of these?\n'
        "    install\n    self install\n",
        "poetry install",
    ),
    T(
        "gem install rials",
        "ERROR:  Could not find a valid gem 'rials' (>= 0) in any repository\n"
        "ERROR:  Possible alternatives: rails, rials_admin\n",
        "gem install rails",
    ),
]
