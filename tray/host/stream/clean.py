"""Turn raw terminal output into the text a user saw: colours dropped, rewrites applied."""

from __future__ import annotations

import re

# Escape sequences that only style or position the whole screen: dropped in one C-speed
# pass. CSI with final A-G (cursor moves within/between lines) and K (erase line) is
# kept for the line emulator, since progress bars are drawn with them.
_DROP = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@H-JL-~]"  # CSI, except A-G and K
    rb"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC (titles, marks, links); a broken one ends at \n
    rb"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS / SOS / PM / APC strings
    rb"|\x1b[ -/]*[0-Z\\^-~]"  # two-byte escapes (charsets, keypad modes, ...)
)
# C0 controls other than TAB, LF, CR, BS and ESC carry no text.
_C0 = bytes(b for b in range(32) if b not in (0x08, 0x09, 0x0A, 0x0D, 0x1B)) + b"\x7f"
# What the emulator acts on, after decoding.
_OPS = re.compile(r"\x1b\[([0-?]*)[ -/]*([A-GK])|\r|\x08|\n")
_VERTICAL = re.compile(r"\x1b\[[0-?]*[ -/]*[ABEF]")
# After these the line is empty and the cursor at column 0: what came before is moot.
_LINE_RESETS = ("\r\x1b[2K", "\x1b[2K\r", "\r\x1b[K", "\r\x1b[0K")
_LINE_RESETS_B = tuple(reset.encode() for reset in _LINE_RESETS)
# With digits and ';' deleted and B, E, F read as A, every cursor up/down sequence
# (CSI n A/B/E/F) becomes ESC [ A.
_AS_UP = bytes.maketrans(b"BEF", b"AAA")
# Cursor counts come from bytes anyone can print (`printf '\e[400000000C'`): moves stop
# at the edge of any plausible screen, never at the count.
MAX_COLUMNS = 4096
MAX_ROWS = 1000
# The replay may cost at most this many steps per input character, then the text is
# shown with its controls dropped instead: rendering stays linear in the output size.
WORK_PER_CHAR = 16
MIN_WORK = 1 << 20


def clean_text(raw: bytes) -> str:
    """Text as it would show on screen: colours and cursor sequences dropped, `\\r`
    progress rewrites collapsed to their final state, backspace and erase-line applied,
    `\\r\\n` as `\\n`; invalid UTF-8 becomes U+FFFD."""
    if not raw:
        return ""
    data = raw
    if b"\r\n" in data:
        data = data.replace(b"\r\n", b"\n")
    if b"\r" in data:
        data = _skip_overdrawn(data)
    if b"\x1b" in data:
        data = _DROP.sub(b"", data)
    data = data.translate(None, _C0)
    text = data.decode("utf-8", errors="replace")
    if "\r" in text or "\x08" in text or "\x1b" in text:
        text = _render(text)
    return text


def _moves_vertically(data: bytes) -> bool:
    # A regex over escape-dense output costs ~80 ns per ESC; two C passes cost far less.
    return b"\x1b[A" in data.translate(_AS_UP, b"0123456789;")


def _skip_overdrawn(data: bytes) -> bytes:
    """Cut each line to what follows its last "clear this line" (a progress bar's last
    redraw), before the costlier passes; only where nothing moved to another line."""
    if not any(reset in data for reset in _LINE_RESETS_B):
        return data
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        if b"\r" not in line:
            continue
        cut = 0
        for reset in _LINE_RESETS_B:
            found = line.rfind(reset)
            if found >= 0:
                cut = max(cut, found + len(reset))
        if cut and not _moves_vertically(line[:cut]):
            lines[i] = line[cut:]
    return b"\n".join(lines)


def _render(text: str) -> str:
    """Replay carriage returns, backspaces, erase-line and cursor moves."""
    if _VERTICAL.search(text):  # cursor up/down: lines interact, replay the whole grid
        return "\n".join(line.replace("\x1b", "").rstrip() for line in _emulate(text))
    out: list[str] = []
    for line in text.split("\n"):
        if "\r" not in line and "\x08" not in line and "\x1b" not in line:
            out.append(line)
            continue
        start = 0
        for reset in _LINE_RESETS:
            found = line.rfind(reset)
            if found >= 0:
                start = max(start, found + len(reset))
        line = line[start:]
        if "\x08" in line or "\x1b" in line:
            line = _emulate(line)[0]
        elif "\r" in line:
            line = _overlay(line.split("\r"))
        # Rewrites pad with spaces (zsh's PROMPT_SP draws a line of them); trailing
        # blanks are invisible on screen, so they go.
        out.append(line.replace("\x1b", "").rstrip())
    return "\n".join(out)


def _overlay(segments: list[str]) -> str:
    """The line left after writing each segment from column 0 over the previous ones."""
    shown = segments[-1]
    for seg in reversed(segments[:-1]):
        if len(seg) > len(shown):
            shown += seg[len(shown) :]
    return shown


class _Budget(Exception):
    """The replay ran past its work budget."""


def _emulate(text: str) -> list[str]:
    """A small line grid: text overwrites at the cursor; controls move it or erase."""
    try:
        return _replay(text)
    except _Budget:  # hostile or pathological: keep the characters, drop the controls
        return [_OPS_ONLY.sub("", line) for line in text.split("\n")]


_OPS_ONLY = re.compile(r"\x1b\[[0-?]*[ -/]*[A-GK]|[\r\x08\x1b]")


def _replay(text: str) -> list[str]:
    grid: list[list[str]] = [[]]
    budget = [max(MIN_WORK, WORK_PER_CHAR * len(text))]
    row = col = 0
    pos = 0
    for match in _OPS.finditer(text):
        start = match.start()
        if start > pos:
            col = _write(grid[row], col, text[pos:start], budget)
        pos = match.end()
        op = match.group(0)
        if op == "\n":
            row += 1
            col = 0
            if row == len(grid):
                grid.append([])
        elif op == "\r":
            col = 0
        elif op == "\x08":
            col = max(0, col - 1)
        else:
            row, col = _csi(grid, row, col, match.group(1), match.group(2), budget)
    if pos < len(text):
        _write(grid[row], col, text[pos:], budget)
    return ["".join(line) for line in grid]


def _spend(budget: list[int], cost: int) -> None:
    budget[0] -= cost
    if budget[0] < 0:
        raise _Budget


def _write(line: list[str], col: int, seg: str, budget: list[int]) -> int:
    _spend(budget, len(seg) + max(0, col - len(line)))
    if col > len(line):
        line.extend(" " * (col - len(line)))
    line[col : col + len(seg)] = seg
    return col + len(seg)


def _number(param: str, default: int) -> int:
    head = param.split(";", 1)[0].lstrip("?")
    if not head.isdigit():
        return default
    # Past nine digits the count is off any screen (and int() refuses > 4300 digits).
    return int(head) if len(head) <= 9 else 10**9


def _csi(
    grid: list[list[str]], row: int, col: int, param: str, final: str, budget: list[int]
) -> tuple[int, int]:
    line = grid[row]
    if final == "K":
        mode = _number(param, 0)
        if mode == 0:
            _spend(budget, 1)
            del line[col:]
        elif mode == 1:
            _spend(budget, min(col + 1, len(line)))
            line[: col + 1] = " " * min(col + 1, len(line))
        else:
            _spend(budget, 1)
            line.clear()
        return row, col
    count = max(1, _number(param, 1))
    edge = max(MAX_COLUMNS, len(line))
    if final == "A":  # up
        return max(0, row - count), col
    if final in "BE":  # down (E: and to column 1)
        row = min(row + count, len(grid) - 1 + MAX_ROWS)
        _spend(budget, row - len(grid) + 1)
        while row >= len(grid):
            grid.append([])
        return row, 0 if final == "E" else col
    if final == "F":  # up, to column 1
        return max(0, row - count), 0
    if final == "C":
        return row, min(col + count, max(edge, col))
    if final == "D":
        return row, max(0, col - count)
    return row, min(max(0, _number(param, 1) - 1), edge)  # G: column, 1-based
