"""Usage slips: flags in the wrong place, doubled words, aliases and prerequisites tools name."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from pathlib import Path

from termwise.agent.rules import data, fuzzy
from termwise.agent.rules import shell as sh
from termwise.agent.rules.engine import Case, rule


def _sub(c: Case) -> str:
    words = [a for a in c.args if not a.startswith("-")]
    return words[0] if words else ""


@rule("git_flag_after_filename", "Git wants options before file names: move the flag.", 5)
def flag_after_filename(c: Case) -> list[str]:
    if not c.is_app("git"):
        return []
    m = c.search(
        r"fatal: (?:bad flag '(-[^']+)' used after filename"
        r"|option '(-[^']+)' must come before non-option arguments)"
    )
    if not m:
        return []
    flag = m.group(1) or m.group(2)
    words = c.script.split()
    if flag not in words:
        return []
    i = words.index(flag)
    # The file name is the nearest earlier word that is neither a flag nor the subcommand.
    sub = _sub(c)
    j = next(
        (k for k in range(i - 1, 0, -1) if not words[k].startswith("-") and words[k] != sub),
        None,
    )
    if j is None or words[j] in ("git", sub):
        return []
    words.insert(j, words.pop(i))
    return [" ".join(words)]


@rule(
    "git_help_aliased",
    "That name is an alias: ask for help on the command it stands for.",
    5,
    on_success=True,  # git prints the alias and exits 0
)
def help_aliased(c: Case) -> list[str]:
    m = c.search(r"[`'‘]git (\S+)['’] is aliased to [`'‘]([^'’\s]+)")
    if not (m and c.is_app("git")):
        return []
    return [c.replace_arg(m.group(1), m.group(2).split()[0])]


@rule("git_remote_seturl_add", "No remote by that name yet: add it instead.", 5)
def seturl_add(c: Case) -> list[str]:
    if not (c.is_app("git") and "set-url" in c.args):
        return []
    if not (c.has("no such remote") or (not c.output.strip() and c.exit_code != 0)):
        return []
    return [c.replace_arg("set-url", "add")]


@rule("git_branch_recreate", "Delete the existing branch and create it again here.", 45)
def branch_recreate(c: Case) -> list[tuple[str, str, str]]:
    m = c.search(r"fatal: [Aa] branch named '(.+?)' already exists")
    if not (m and c.is_app("git") and _sub(c) in ("branch", "checkout", "switch")):
        return []
    name = sh.escape(m.group(1), c.shell_name)
    again = c.script
    if _sub(c) != "branch":
        if not {"-b", "-c", "-B", "-C"} & set(c.args):
            return []
        again = f"git {_sub(c)} {'-b' if _sub(c) == 'checkout' else '-c'} {name}"
    lost = "The old branch's unmerged commits would stop being reachable by name."
    return [
        (
            c.then(f"git branch -d {name}", again),
            "Delete the old branch (if merged) and create it again.",
            lost,
        ),
        (
            c.then(f"git branch -D {name}", again),
            "Delete the old branch even if unmerged, and create it again.",
            lost,
        ),
    ]


@rule("man_without_space", "A space is missing after `man`.", priority=20)
def man_no_space(c: Case) -> list[str]:
    from termwise.agent.rules import env
    from termwise.agent.rules.not_found import missing_command

    name = missing_command(c) or ""
    glued = re.fullmatch(r"man([a-z][\w.-]+)", name)
    if glued and c.posix and c.script.startswith(name):
        page = glued.group(1)
        if page in env.path_program_set() or page in data.known_command_set("posix"):
            return ["man " + page + c.script[len(name) :]]
    m = c.search(r"(?:^|\s)(man([a-z][\w.-]+)): (?:command )?not found")
    if not (m and c.posix and c.script.startswith(m.group(1))):
        return []
    return ["man " + m.group(2) + c.script[len(m.group(1)) :]]


@rule("whois_url", "whois takes a domain name, not a URL.", priority=5)
def whois_url(c: Case) -> list[str]:
    if not c.is_app("whois"):
        return []
    for a in c.args:
        m = re.match(r"^[a-z][\w+.-]*://([^/:?#]+)", a)
        if m:
            return [c.replace_arg(a, m.group(1))]
    # A subdomain has no whois record of its own: ask about the parent domains.
    hosts = [a for a in c.args if re.fullmatch(r"[\w-]+(?:\.[\w-]+){2,}", a)]
    silent = not c.output.strip()
    if not hosts or not (
        silent or c.has("no match", "not found", "no data found", "no entries found")
    ):
        return []
    labels = hosts[0].split(".")
    return [c.replace_arg(hosts[0], ".".join(labels[i:])) for i in range(1, len(labels) - 1)]


@rule("terraform_needs_init", "The working folder is not initialised: run terraform init first.", 5)
def terraform_init(c: Case) -> list[str]:
    if not (c.is_app("terraform", "tofu") and _sub(c) != "init"):
        return []
    if not c.has(
        "initialization required",
        'run "terraform init"',
        "terraform init",
        'run "tofu init"',
        "please run init",
    ):
        return []
    return [c.then(f"{c.app} init", c.script)]


@rule("vagrant_not_running", "The machine is not running: start it, then retry.", priority=5)
def vagrant_up(c: Case) -> list[str]:
    if not (c.is_app("vagrant") and c.has("run `vagrant up`", "vm must be running")):
        return []
    if _sub(c) == "up":
        return []
    m = re.search(r"\bvagrant\s+\S+(?:\s+-\S+)*\s+([\w.-]+)\s*$", c.script)
    up = f"vagrant up {m.group(1)}" if m and m.group(1) != _sub(c) else "vagrant up"
    return [c.then(up, c.script)]


@rule("long_form_help", "The tool reads -h differently: ask for --help.", priority=20)
def long_help(c: Case) -> list[str]:
    if "-h" not in c.args:
        return []
    m = c.search(r"[Tt]ry [`'‘\"]?(" + re.escape(c.app) + r" --help)[`'’\"]? for more")
    if m:
        return [m.group(1)]
    if not c.output.strip() and c.args[-1] == "-h":  # -h meant something else and waited or failed
        return [c.script[: c.script.rfind("-h")] + "--help"]
    return []


@rule("ag_literal", "The pattern is not a valid regex: search for it literally.", priority=5)
def ag_literal(c: Case) -> list[str]:
    if not (c.is_app("ag") and c.has("run ag with -q")):
        return []
    return [c.replace_word("ag", "ag -Q")]


@rule("go_run_file", "go run takes a .go file or a package path.", priority=6)
def go_run_file(c: Case) -> list[str]:
    if not (c.is_app("go") and _sub(c) == "run"):
        return []
    if not c.has("is not in std", "cannot find package", "is not in goroot", "no required module"):
        return []
    words = [a for a in c.args[1:] if not a.startswith("-")]
    if not words or "." in words[0].rsplit("/", 1)[-1]:
        return []
    return [c.replace_arg(words[0], f"{words[0]}.go"), c.replace_arg(words[0], f"./{words[0]}")]


@rule("cloud_cli_maybe_meant", "The CLI names the group you meant.", priority=6)
def cloud_choice(c: Case) -> list[str]:
    m = c.search(r"Invalid choice: '([^']+)'")
    if not (m and c.is_app("gcloud", "gsutil", "aws", "az")):
        return []
    typo = m.group(1)
    hints = re.findall(r"^\s*(?:\$ |\* )(\S+(?: \S+)*)\s*$", c.output[m.end() :], re.M)
    out = []
    for h in hints[:3]:
        word = h.split()[-1]
        if word != typo:
            out.append(c.replace_arg(typo, word))
    return out


@rule("local_wrapper_script", "That program is a script in this folder: run it with ./", 12)
def local_script(c: Case) -> list[str]:
    from termwise.agent.rules.not_found import missing_command

    name = missing_command(c)
    if not (name and c.cwd and c.posix and "/" not in name):
        return []
    wrappers = {"gradle": "gradlew", "mvn": "mvnw"}
    for cand in (name, wrappers.get(name, "")):
        if cand and (Path(c.cwd) / cand).is_file():
            return [c.replace_word(name, f"./{cand}")]
    return []


@rule("dfs_flag_missing", "hdfs dfs needs -p to create parents, -r to remove folders.", priority=6)
def dfs_flag(c: Case) -> list[str]:
    m = re.search(r"(\s-(mkdir|rm))(\s)", c.script)
    if not m:
        return []
    flag = {"mkdir": "-p", "rm": "-r"}[m.group(2)]
    wanted = "no such file or directory" if flag == "-p" else "is a directory"
    if flag in c.args or not c.has(wanted):
        return []
    return [c.script[: m.end(1)] + f" {flag}" + c.script[m.end(1) :]]


@rule("usage_command_list", "The nearest of the commands the usage text lists.", priority=9)
def usage_command_list(c: Case) -> list[str]:
    """`docker swarm int` printing `Usage: docker swarm COMMAND` and a `Commands:` list."""
    m = c.search(r"^Usage:\s+([\w.-]+(?: [\w.-]+)*) COMMAND\b")
    if not m:
        return []
    prefix = m.group(1).split()
    words = c.script.split()
    n = len(prefix)
    if words[:n] != prefix or len(words) <= n or words[n].startswith("-"):
        return []
    block = re.search(r"^Commands:\n((?:[ \t]+[\w-]+[^\n]*\n?)+)", c.output[m.end() :], re.M)
    if not block:
        return []
    names = [ln.split()[0] for ln in block.group(1).splitlines() if ln.strip()]
    wrong = words[n]
    if wrong in names:
        return []
    close = sorted(
        (x for x in names if SequenceMatcher(None, wrong, x).ratio() >= 0.5 or x.startswith(wrong)),
        key=lambda x: (
            not x.startswith(wrong),
            fuzzy.distance(wrong, x),
            -SequenceMatcher(None, wrong, x).ratio(),
        ),
    )
    return [" ".join([*words[:n], x, *words[n + 1 :]]) for x in close[:3]]


@rule("formula_did_you_mean", "The package names the manager suggests.", priority=6)
def formula_did_you_mean(c: Case) -> list[str]:
    m = c.search(
        r"with the name \"([^\"]+)\"\.?\s*Did you mean ([\w@.+/-]+(?:, [\w@.+/-]+)*(?:,? or [\w@.+/-]+)?)\?"
    )
    if not m:
        return []
    names = re.split(r",\s*(?:or\s+)?|\s+or\s+", m.group(2))
    return [c.replace_arg(m.group(1), n) for n in names[:3] if n]


@rule("where_command_is_one_of", "The nearest of the commands the usage text lists.", priority=9)
def command_is_one_of(c: Case) -> list[str]:
    """Old npm: `Usage: npm <command>` then `where <command> is one of:` and a word list."""
    m = c.search(r"where <command> is one of:\s*\n((?:[ \t]+[\w-]+,[^\n]*\n?)+)")
    if not m:
        return []
    names = [w.strip() for w in m.group(1).replace("\n", " ").split(",") if w.strip()]
    words = [a for a in c.args if not a.startswith("-")]
    if not words or words[0] in names:
        return []
    return [c.replace_arg(words[0], n) for n in fuzzy.closest(words[0], names, n=3, limit=3)]


@rule("npm_script_without_run", "That name is a package.json script: run it with npm run.", 5)
def npm_script_without_run(c: Case) -> list[str]:
    from termwise.agent.rules.env import package_scripts

    if not (c.is_app("npm") and c.cwd):
        return []
    if not c.has("where <command> is one of", "unknown command", "usage: npm <command>"):
        return []
    words = [a for a in c.args if not a.startswith("-")]
    if not words or words[0] not in package_scripts(c.cwd):
        return []
    at = c.script.index("npm") + 3
    head, tail = c.script[:at], c.script[at:]
    return [f"{head} run{tail}", f"{head} run-script{tail}"]


@rule("git_diff_outside_repo", "Outside a repository, compare two files with --no-index.", 6)
def git_diff_no_index(c: Case) -> list[str]:
    if not (c.is_app("git") and c.args[:1] == ["diff"] and "--no-index" not in c.args):
        return []
    if not c.has(
        "git diff --no-index",
        "not a git repository",
        "no such path in the working tree",
        "is outside repository",
    ):
        return []
    paths = [a for a in c.args[1:] if not a.startswith("-")]
    if len(paths) != 2:
        return []
    return [c.replace_arg("diff", "diff --no-index")]


_PKG_MISSING = (
    (r"E: Unable to locate package (\S+)", "apt"),
    (r"No match for argument: (\S+)", "dnf"),
    (r"error: target not found: (\S+)", "pacman"),
    (r"No available formula with the name \"([^\"]+)\"", "brew"),
    (r"No provider of '([^']+)' found", "zypper"),
)


def _package_names(mgr: str) -> list[str]:
    names: list[str] = []
    for tool, per in data.tools().items():
        pkg = per.get(mgr) or per.get("all") or tool
        names += [p for p in str(pkg).split() if not p.startswith("-")]
        names.append(tool)
    if mgr == "apt":
        names += list(data.apt_renames().values())
    return [n for n in dict.fromkeys(names) if n != "none"]


@rule("package_name_typo", "A package with a very similar name exists.", priority=5)
def package_typo(c: Case) -> list[tuple[str, str]]:
    hit = next(((c.search(p), mgr) for p, mgr in _PKG_MISSING if c.search(p)), None)
    if hit is None or hit[0] is None:
        return []
    m, mgr = hit
    wrong = m.group(1).strip(".")
    if wrong not in c.args or len(wrong) < 6:
        return []  # short names (htop, http, btop) are too close to each other to guess
    near = fuzzy.closest(wrong, _package_names(mgr), n=2, limit=2 if len(wrong) > 7 else 1)
    return [(c.replace_arg(wrong, n), f"Did you mean the package {n}?") for n in near]


# Keys of the Russian (ЙЦУКЕН) layout and the Latin letters at the same places.
_RU = "ёйцукенгшщзхъфывапролджэячсмитьбю.ЁЙЦУКЕНГШЩЗХЪФЫВАПРОЛДЖЭЯЧСМИТЬБЮ,"
_EN = "`qwertyuiop[]asdfghjkl;'zxcvbnm,./~QWERTYUIOP{}ASDFGHJKL:\"ZXCVBNM<>?"
# Greek and Hebrew (SI-1452) letter keys and the Latin letters at the same places.
_GR = "ςερτυθιοπασδφγηξκλζχψωβνμΕΡΤΥΘΙΟΠΑΣΔΦΓΗΞΚΛΖΧΨΩΒΝΜ"
_GR_EN = "wertyuiopasdfghjklzxcvbnmERTYUIOPASDFGHJKLZXCVBNM"
_HE = "קראטוןםפשדגכעיחלךףזסבהנמצתץ"
_HE_EN = "ertyuiopasdfghjkl;zxcvbnm,."
_TO_LATIN = str.maketrans(_RU + _GR + _HE, _EN + _GR_EN + _HE_EN)
_FOREIGN_KEYS = re.compile("[" + re.escape(_RU + _GR + _HE) + "]")
_FOREIGN_WORD = re.compile("[" + re.escape(_RU + _GR + _HE) + r".,\-]+")


# Korean 2-set (Dubeolsik): each jamo and the Latin key(s) that type it.
_KO_KEYS = dict(
    zip(
        "ㅂㅈㄷㄱㅅㅛㅕㅑㅐㅔㅁㄴㅇㄹㅎㅗㅓㅏㅣㅋㅌㅊㅍㅠㅜㅡㅃㅉㄸㄲㅆㅒㅖ",
        "qwertyuiopasdfghjklzxcvbnmQWERTOP",
        strict=True,
    )
)
_KO_KEYS.update(
    {"ㅘ": "hk", "ㅙ": "ho", "ㅚ": "hl", "ㅝ": "nj", "ㅞ": "np", "ㅟ": "nl", "ㅢ": "ml"}
    | {"ㄳ": "rt", "ㄵ": "sw", "ㄶ": "sg", "ㄺ": "fr", "ㄻ": "fa", "ㄼ": "fq", "ㄽ": "ft"}
    | {"ㄾ": "fx", "ㄿ": "fv", "ㅀ": "fg", "ㅄ": "qt"}
)
_KO_LEAD = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
_KO_VOWEL = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ"
_KO_TAIL = " ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"


def _hangul_keys(text: str) -> str:
    """Hangul as the Latin keys that typed it (syllables split into their jamo first)."""
    out = []
    for ch in text:
        code = ord(ch) - 0xAC00
        if 0 <= code < 11172:
            lead, rest = divmod(code, 21 * 28)
            vowel, tail = divmod(rest, 28)
            jamo = _KO_LEAD[lead] + _KO_VOWEL[vowel] + (_KO_TAIL[tail] if tail else "")
            out.append("".join(_KO_KEYS.get(j, j) for j in jamo))
        else:
            out.append(_KO_KEYS.get(ch, ch))
    return "".join(out)


@rule("keyboard_layout", "Typed with another keyboard layout active.", priority=4)
def keyboard_layout(c: Case) -> list[str]:
    if c.parts and re.fullmatch(r"[\uac00-\ud7a3\u3131-\u318e.,\-]+", c.parts[0]):
        latin = _hangul_keys(c.script)
        return [latin] if re.fullmatch(r"[\x20-\x7e]+", latin) else []
    if not _FOREIGN_KEYS.search(c.script) or not c.parts:
        return []
    first = c.parts[0]
    if not _FOREIGN_WORD.fullmatch(first):
        return []  # the command name itself must be typed all on the other layout
    latin = c.script.translate(_TO_LATIN)
    return [latin] if re.fullmatch(r"[\x20-\x7e]+", latin) else []


@rule("success_next_step", "The obvious next step the tool points to.", 30, on_success=True)
def success_next_step(c: Case) -> list[str]:
    """Curated follow-ups printed by commands that succeeded (no general hint scraping)."""
    if c.is_app("apt", "apt-get") and "update" in c.args:
        if c.search(r"can be upgraded\. Run 'apt list --upgradable'"):
            listing = "apt list --upgradable"  # listing needs no root, even after `sudo apt update`
            as_root = [f"sudo {listing}"] if c.script.startswith("sudo ") else []
            return [listing, c.sudo("apt upgrade"), *as_root]
    if c.is_app("apt") and c.args[:2] == ["list", "--upgradable"]:
        if "[upgradable from:" in c.output:
            return ["sudo apt upgrade", "apt upgrade"]
    if c.is_app("brew"):
        m = c.search(r"To reinstall [^,\n]+, run `(brew reinstall [^`]+)`")
        if m:
            return [m.group(1)]
    # `git branch list` made a branch called "list" (git branch has no such subcommand).
    if c.is_app("git") and c.exit_code == 0 and len(c.args) == 2 and c.args[0] == "branch":
        if c.args[1] in ("list", "delete", "rename", "remove", "show", "ls", "rm") and not c.output:
            return [c.then(f"git branch --delete {c.args[1]}", "git branch")]
    return []


_FLAG_TOOLS = ("ls", "grep", "ps", "df", "du", "rm", "cp", "mv", "mkdir", "tail", "head", "uname")


@rule("hyphen_for_space", "A hyphen took the place of the space before the flags.", priority=9)
def hyphen_for_space(c: Case) -> list[str]:
    from termwise.agent.rules.not_found import missing_command

    name = missing_command(c) or ""
    m = re.fullmatch(r"([a-z]+)-([a-zA-Z]{1,4})", name)
    if not (m and m.group(1) in _FLAG_TOOLS and c.posix):
        return []
    return [c.replace_word(name, f"{m.group(1)} -{m.group(2)}")]


@rule("rails_pending_migrations", "Run the pending migrations, then the command again.", 6)
def rails_migrations(c: Case) -> list[str]:
    if "Migrations are pending" not in c.output:
        return []
    m = c.search(r"^\s+((?:bin/)?rails db:migrate[^\n]*?)\s*$")
    fix = m.group(1) if m else "bin/rails db:migrate"
    return [c.then(fix, c.script)] if c.script else [fix]


@rule("git_commit_message_without_m", "The message needs -m in front of it.", priority=5)
def commit_without_m(c: Case) -> list[str]:
    if not (c.is_app("git") and c.args[:1] == ["commit"]):
        return []
    m = c.search(r"error: pathspec '([^']+)' did not match any file\(s\) known to git")
    if not m or "-m" in c.args or "--message" in " ".join(c.args):
        return []
    words = [a for a in c.args[1:] if not a.startswith("-")]
    if not words or words[0] != m.group(1) or c.has("did you forget to 'git add'"):
        return []
    if len(words) == 1 and re.fullmatch(r"[\w./\\-]*(?:[/\\]|\.\w{1,5}$)[\w./\\-]*", words[0]):
        return []  # a file name (`app.py`, `src/`): a path, not a message
    msg = " ".join(words)
    quoted = '"' + msg.replace('"', '\\"') + '"'
    flags = " ".join(a for a in c.args[1:] if a.startswith("-"))
    return [" ".join(p for p in ("git commit", flags, "-m", quoted) if p)]


@rule("tar_wrong_compression", "The archive is not compressed the way the flag says.", 6)
def tar_wrong_compression(c: Case) -> list[str]:
    if not (c.is_app("tar") and c.has("not in gzip format", "not a bzip2 file", "format violated")):
        return []
    # On extraction GNU and BSD tar detect the compression themselves: drop the z/j/J.
    m = re.search(
        r"(?<!\S)(-?)([A-Za-z]*[xt][A-Za-z]*)(?!\S)", c.script[c.script.find("tar") + 3 :]
    )
    if not m or not re.search(r"[zjJ]", m.group(2)):
        return []
    flags = re.sub(r"[zjJ]", "", m.group(2))
    at = c.script.find("tar") + 3 + m.start(2)
    return [c.script[:at] + flags + c.script[at + len(m.group(2)) :]]
