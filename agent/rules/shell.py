"""Shell syntax helpers: shell families, word splitting, chaining, quoting and elevation."""

from __future__ import annotations

import re
import shlex

Family = str  # "posix" | "powershell" | "cmd"

_ALIASES = {
    "powershell.exe": "powershell",
    "windowspowershell": "powershell",
    "ps": "powershell",
    "ps1": "powershell",
    "pwsh.exe": "pwsh",
    "cmd.exe": "cmd",
    "command": "cmd",
    "wsl.exe": "wsl",
    "sh": "sh",
    "dash": "sh",
}


def normalize_shell(name: str | None) -> str:
    """A shell name or path reduced to a known name; anything unknown is treated as bash."""
    base = re.split(r"[\\/]", (name or "bash").strip().lower())[-1]
    base = _ALIASES.get(base, base)
    if base.endswith(".exe"):
        base = base[:-4]
    known = {"bash", "zsh", "fish", "sh", "ksh", "wsl", "pwsh", "powershell", "cmd"}
    return base if base in known else "bash"


def family(shell: str) -> Family:
    """`posix`, `powershell` or `cmd`."""
    if shell in ("pwsh", "powershell"):
        return "powershell"
    if shell == "cmd":
        return "cmd"
    return "posix"


def split(script: str, fam: Family = "posix") -> list[str]:
    """Words of a script; never raises (unbalanced quotes fall back to whitespace)."""
    if fam == "posix":
        try:
            return shlex.split(script)
        except ValueError:
            return script.split()
    # PowerShell and cmd: quotes group words, backslashes are path separators.
    words = re.findall(r'"[^"]*"|\'[^\']*\'|\S+', script)
    return [w[1:-1] if len(w) >= 2 and w[0] == w[-1] and w[0] in "\"'" else w for w in words]


_PREFIXES = {"sudo", "doas", "env", "nohup", "time", "command", "exec", "builtin", "&"}


def _prefix_len(parts: list[str]) -> int:
    i = 0
    while i < len(parts):
        w = parts[i]
        if w in _PREFIXES or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", w):
            i += 1
        elif i > 0 and parts[i - 1] in ("sudo", "doas") and w.startswith("-"):
            i += 1
        else:
            break
    return i


def program_name(parts: list[str]) -> str:
    """The program's base name (no directory, no `.exe`), lower-cased."""
    i = _prefix_len(parts)
    if i >= len(parts):
        return parts[0].lower() if parts else ""
    name = re.split(r"[\\/]", parts[i])[-1].lower()
    for ext in (".exe", ".cmd", ".bat"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    return name


def after_program(parts: list[str]) -> list[str]:
    return parts[_prefix_len(parts) + 1 :]


def replace_word(script: str, old: str, new: str) -> str:
    """`script` with the first occurrence of the whole word `old` replaced by `new`."""
    pattern = r"(?<![\w.\-/\\])" + re.escape(old) + r"(?![\w\-])"
    return re.sub(pattern, lambda _m: new, script, count=1)


def quote(word: str, shell: str) -> str:
    """Quote one word for `shell` (only when needed)."""
    fam = family(shell)
    if fam == "posix":
        return shlex.quote(word)
    if word and re.fullmatch(r"[\w@%+=:,./\\-]+", word):
        return word
    if fam == "powershell":
        return "'" + word.replace("'", "''") + "'"
    return '"' + word + '"'


def escape(word: str, shell: str) -> str:
    """A word made safe to paste back into a command: backslashes on POSIX (`test\\'s`)."""
    if family(shell) != "posix":
        return quote(word, shell)
    return re.sub(r"""([\s'"`$\\!&|;<>()*?#~{}\[\]])""", r"\\\1", word)


def and_then(shell: str, *commands: str) -> str:
    """Commands chained so each runs only after the previous one succeeded."""
    cmds = [c for c in commands if c]
    if shell == "powershell":  # Windows PowerShell 5.1 has no `&&`
        return "; ".join(cmds)
    return " && ".join(cmds)


def elevate(shell: str, command: str) -> str:
    """`command` run with administrator rights: `sudo` on POSIX, an elevated shell on Windows."""
    fam = family(shell)
    if fam == "posix":
        if re.search(r"&&|\|\||;|\||>|<", command):
            return "sudo sh -c " + sh_c_quote(command)
        return command if command.startswith("sudo ") else "sudo " + command
    if fam == "powershell":
        exe = "pwsh" if shell == "pwsh" else "powershell"
        inner = command.replace("'", "''")
        return f"Start-Process {exe} -Verb RunAs -ArgumentList '-NoExit', '-Command', '{inner}'"
    inner = command.replace("'", "''")
    return f"powershell -Command \"Start-Process cmd -Verb RunAs -ArgumentList '/k {inner}'\""


def sh_c_quote(command: str) -> str:
    """`command` quoted as one argument for `sh -c`: double quotes when nothing inside
    would expand there, else single quotes (which keep everything literal)."""
    if re.search(r"[$`\\!]", command):
        return shlex.quote(command)
    return '"' + command.replace('"', '\\"') + '"'


def strip_sudo(script: str) -> str:
    return re.sub(r"^\s*(sudo|doas)(\s+-\S+)*\s+", "", script)


def segments(script: str) -> list[str]:
    """The simple commands of a chain, split at `&&`, `||`, `;` and `|` outside quotes."""
    out: list[str] = []
    buf: list[str] = []
    quote_char = ""
    i = 0
    while i < len(script):
        ch = script[i]
        if quote_char:
            if ch == quote_char:
                quote_char = ""
            buf.append(ch)
        elif ch in "\"'":
            quote_char = ch
            buf.append(ch)
        elif script.startswith(("&&", "||"), i) or ch in ";|":
            out.append("".join(buf).strip())
            buf = []
            i += 2 if script.startswith(("&&", "||"), i) else 1
            continue
        else:
            buf.append(ch)
        i += 1
    out.append("".join(buf).strip())
    return [seg for seg in out if seg]
