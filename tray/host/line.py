"""Replacing a prompt's line: the private keys each shell's integration binds, and its reports.

Typing a command must never add to half-typed text, and Enter must only be pressed when
the line holds exactly the judged command. The integration scripts (resources/shell/*)
bind keys no terminal sends: one clears the line, one makes the shell print
`OSC 633;TermwiseBuffer;<percent-encoded line>[;changed]` ("changed": the shell would
rewrite the line before running it, e.g. history expansion). They announce what they
support with `OSC 633;P;TermwiseLine=clear|report`.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import unquote_to_bytes

LINE_PROPERTY = "TermwiseLine"

# bash and zsh: function-key shaped sequences with numbers no terminal uses.
READLINE_CLEAR = b"\x1b[9271~"
READLINE_REPORT = b"\x1b[9272~"
READLINE_REDRAW = b"\x1b[9274~"  # draw the prompt and line again (after a notice)
# PowerShell: PSReadLine sees key chords, so these are Ctrl+Alt+Shift+F12 / F11.
PSREADLINE_CLEAR = b"\x1b[24;8~"
PSREADLINE_REPORT = b"\x1b[23;8~"
# cmd.exe's line editor empties the line on Esc; it has nothing to report with.
CMD_CLEAR = b"\x1b"

MAX_COMMAND = 16 * 1024  # longer than any command line a person would check by eye


def line_keys(shell: str) -> tuple[bytes, bytes]:
    """The (clear, report) keys for a shell; report is empty where there is none."""
    if shell in ("pwsh", "powershell"):
        return PSREADLINE_CLEAR, PSREADLINE_REPORT
    if shell == "cmd":
        return CMD_CLEAR, b""
    return READLINE_CLEAR, READLINE_REPORT


def refusal_for_text(text: object) -> str:
    """Why `text` cannot be typed as one command line as it is ("" when it can).

    Nothing is stripped: the bytes typed are the bytes that were judged and shown.
    """
    if not isinstance(text, str):
        return "the command must be text"
    if not text.strip():
        return "the command is empty"
    if len(text) > MAX_COMMAND:
        return f"the command is longer than {MAX_COMMAND} characters"
    for ch in text:
        if ch in "\r\n":
            return "the command has more than one line; run its lines one by one"
        if unicodedata.category(ch) == "Cc":  # C0, DEL and C1 controls (U+0080 …)
            return (
                f"the command holds a control character (U+{ord(ch):04X}) that the shell "
                "would act on instead of showing"
            )
    return ""


def parse_line_report(payload: bytes) -> tuple[bytes, bool]:
    """The line's bytes and whether the shell would change it, from a report's payload."""
    encoded, _, flags = payload.partition(b";")
    return unquote_to_bytes(encoded), b"changed" in flags.split(b";")
