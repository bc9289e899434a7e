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
]
