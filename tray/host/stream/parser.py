"""The stream parser: finds shell-integration marks in PTY output and cuts it into blocks.

The hot path only looks for `ESC ]` (OSC: marks, cwd) and `ESC [ ?` (alternate screen)
with `bytes.find`; everything else is appended as raw bytes. Cleaning happens on demand.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from enum import Enum
from urllib.parse import unquote

from termwise.tray.host.stream.blocks import CommandBlock
from termwise.tray.host.stream.clean import clean_text
from termwise.tray.host.stream.ring import ByteRing, HeadTailBuffer

log = logging.getLogger(__name__)

RING_BYTES = 4 * 1024 * 1024
MAX_BLOCKS = 200
BLOCK_BYTES = 256 * 1024  # per block: head and tail of a bigger output
SCREEN_BYTES = 256 * 1024  # normal-screen text kept for the no-marks fallback
ALT_BYTES = 64 * 1024
INPUT_BYTES = 64 * 1024  # echoed command line between B and C
MAX_OSC = 64 * 1024  # an OSC longer than this is not ours: pass it through
MAX_CSI = 32

_ALT_MODES = {b"1049", b"1047", b"47"}
_ESCAPED = re.compile(rb"\\(\\|x[0-9a-fA-F]{2})")
_DIGITS = frozenset(b"0123456789;")
PATH_PROPERTY = b"TermwisePath="  # OSC 633;P: the shell's PATH, sent when it changes
MAX_PROPERTIES = 32  # OSC 633;P;Key=Value pairs kept (a noisy stream cannot grow it)


class State(Enum):
    IDLE = "idle"  # after D, before the next prompt
    PROMPT = "prompt"  # after A: the prompt is being drawn
    INPUT = "input"  # after B: the user types the command line
    OUTPUT = "output"  # after C: the command runs


def unescape_command(raw: bytes) -> str:
    """Decode a command line sent as `\\\\` and `\\xHH` escapes (VS Code's OSC 633;E form)."""

    def sub(match: re.Match[bytes]) -> bytes:
        token = match.group(1)
        return b"\\" if token == b"\\" else bytes([int(token[1:], 16)])

    return _ESCAPED.sub(sub, raw).decode("utf-8", errors="replace")


def path_from_file_url(raw: bytes) -> str | None:
    """The local path of an OSC 7 `file://host/path` URL, percent-decoded; None if malformed."""
    text = raw.decode("utf-8", errors="replace").strip()
    if not text.startswith("file:"):
        return None
    rest = text[5:]
    if rest.startswith("//"):  # file://host/path: the host part is ours to skip, not to parse
        slash = rest.find("/", 2)
        rest = rest[slash:] if slash >= 0 else ""
    path = unquote(rest.split("?", 1)[0].split("#", 1)[0])
    # file://host/C:/Users → /C:/Users: a Windows drive path loses its leading slash.
    if len(path) >= 3 and path[0] == "/" and path[2] == ":" and path[1].isalpha():
        path = path[1:]
    return path or None


class StreamParser:
    """Feeds on PTY output; keeps a raw ring, finished command blocks and the cwd.

    `feed` runs on the session's reader thread; the query methods may be called from
    any thread.
    """

    def __init__(
        self,
        *,
        max_blocks: int = MAX_BLOCKS,
        ring_bytes: int = RING_BYTES,
        block_bytes: int = BLOCK_BYTES,
        clock: Callable[[], float] = time.time,
        on_block: Callable[[CommandBlock], None] | None = None,
        on_line_report: Callable[[bytes], None] | None = None,
    ) -> None:
        self._clock = clock
        self._on_block = on_block
        self._on_line_report = on_line_report
        self._block_bytes = block_bytes
        self._lock = threading.Lock()
        self._raw = ByteRing(ring_bytes)
        self._screen = ByteRing(SCREEN_BYTES)
        self._alt = ByteRing(ALT_BYTES)
        self._blocks: deque[CommandBlock] = deque(maxlen=max_blocks)
        self._next_index = 0
        self._pending = b""
        self._state = State.IDLE
        self._input = bytearray()
        self._explicit: str | None = None
        self._out: HeadTailBuffer | None = None
        self._command = ""
        self._started = 0.0
        self._finished: list[CommandBlock] = []
        self.cwd: str | None = None
        self.shell_path: str | None = None  # the shell's PATH as it last reported it
        # What the integration announced about itself (OSC 633;P;Key=Value), e.g.
        # TermwiseLine=report: the shell can clear its line and report it on request.
        self.properties: dict[str, str] = {}
        self.has_marks = False
        self.in_alt_screen = False
        self.dropped_sequences = 0  # sequences whose handler failed; reported, never fatal

    # -- hot path -------------------------------------------------------------------

    def feed(self, chunk: bytes) -> list[CommandBlock]:
        """Take the next bytes read from the PTY (any split, even one byte at a time).

        Returns the blocks this chunk finished (they also go to `on_block`). Never raises:
        a sequence that breaks a handler is dropped and counted in `dropped_sequences`.
        """
        if not chunk:
            return []
        with self._lock:
            self._raw.append(chunk)
            data = self._pending + chunk if self._pending else chunk
            self._pending = b""
            try:
                if b"\x1b" not in data:
                    self._emit(data)
                else:
                    self._scan(data)
            except Exception:  # a parser bug costs this chunk's marks, not the session
                self.dropped_sequences += 1
                self._pending = b""
                log.exception("stream parser failed on a %d-byte chunk", len(data))
            finished, self._finished = self._finished, []
        for block in finished:
            self._notify(block)
        return finished

    def _scan(self, data: bytes) -> None:
        n = len(data)
        pos = 0
        osc = data.find(b"\x1b]")
        alt = data.find(b"\x1b[?")
        while osc >= 0 or alt >= 0:
            if osc >= 0 and (alt < 0 or osc < alt):
                start = osc
                bel = data.find(b"\x07", start + 2)
                st = data.find(b"\x1b\\", start + 2)
                if bel >= 0 and (st < 0 or bel < st):
                    end, after = bel, bel + 1
                elif st >= 0:
                    end, after = st, st + 2
                elif n - start <= MAX_OSC:  # the rest comes with the next read
                    self._emit(data[pos:start])
                    self._pending = data[start:]
                    return
                else:
                    end = after = -1
                # One that never ends (or ends megabytes later) is not ours: the bytes
                # stay output instead of vanishing into a sequence.
                if 0 <= end - start <= MAX_OSC:
                    self._emit(data[pos:start])
                    self._osc_isolated(data[start + 2 : end])
                    pos = after
                else:
                    after = start + 2
                osc = data.find(b"\x1b]", max(after, start + 2))
                if 0 <= alt < pos:
                    alt = data.find(b"\x1b[?", pos)
            else:
                start = alt
                j = start + 3
                while j < n and data[j] in _DIGITS:
                    j += 1
                if j == n and n - start <= MAX_CSI:
                    self._emit(data[pos:start])
                    self._pending = data[start:]
                    return
                if j < n and data[j] in b"hl" and _ALT_MODES & set(data[start + 3 : j].split(b";")):
                    self._emit(data[pos:start])
                    self._set_alt(data[j] == ord("h"))
                    pos = j + 1
                alt = data.find(b"\x1b[?", j)
                if 0 <= osc < pos:
                    osc = data.find(b"\x1b]", pos)
        rest = data[pos:]
        # A sequence split right after its ESC (or ESC [) is held back for the next read.
        if rest.endswith(b"\x1b"):
            self._pending, rest = b"\x1b", rest[:-1]
        elif rest.endswith(b"\x1b["):
            self._pending, rest = b"\x1b[", rest[:-2]
        self._emit(rest)

    def _emit(self, data: bytes) -> None:
        if not data:
            return
        if self.in_alt_screen:
            self._alt.append(data)
            return
        self._screen.append(data)
        if self._state is State.OUTPUT and self._out is not None:
            self._out.append(data)
        elif self._state is State.INPUT and len(self._input) < INPUT_BYTES:
            self._input += data[: INPUT_BYTES - len(self._input)]

    def _set_alt(self, on: bool) -> None:
        if on and not self.in_alt_screen:
            self._alt.clear()
        self.in_alt_screen = on

    # -- marks ----------------------------------------------------------------------

    def _osc_isolated(self, body: bytes) -> None:
        """One sequence's handler failing costs that sequence, never the session's reader."""
        try:
            self._osc(body)
        except Exception:
            self.dropped_sequences += 1
            if self.dropped_sequences <= 3:  # the first few are enough to debug from
                log.warning("dropped a malformed OSC sequence (%d bytes)", len(body), exc_info=True)

    def _osc(self, body: bytes) -> None:
        if body.startswith((b"133;", b"633;")):
            self._mark(body[4:])
        elif body.startswith(b"7;"):
            self.cwd = path_from_file_url(body[2:]) or self.cwd
        elif body.startswith(b"9;9;"):  # ConEmu / Windows Terminal cwd
            path = body[4:].decode("utf-8", errors="replace").strip().strip('"')
            self.cwd = path or self.cwd
        elif body.startswith(b"1337;CurrentDir="):  # iTerm2
            self.cwd = body[16:].decode("utf-8", errors="replace") or self.cwd

    def _mark(self, body: bytes) -> None:
        kind, _, rest = body.partition(b";")
        if kind == b"A":
            self.has_marks = True
            self.in_alt_screen = False  # a program that died in full screen left it on
            if self._state is State.OUTPUT:
                self._finish(None)
            self._state = State.PROMPT
        elif kind == b"B":
            self.has_marks = True
            self._state = State.INPUT
            self._input = bytearray()
            self._explicit = None
        elif kind == b"E":
            self._explicit = unescape_command(rest.split(b";", 1)[0])
        elif kind == b"C":
            self.has_marks = True
            self._explicit = _command_property(rest) or self._explicit
            if self._state is State.OUTPUT:
                self._finish(None)
            self._start(self._command_text())
        elif kind == b"D":
            code = _exit_code(rest)
            if self._state is State.OUTPUT:
                self._finish(code)
            elif self._state is State.INPUT:
                self._finish_without_c(code)
            self._state = State.IDLE
        elif kind == b"P" and rest.startswith(PATH_PROPERTY):
            self.shell_path = unescape_command(rest[len(PATH_PROPERTY) :])
        elif kind == b"P" and rest.startswith(b"Cwd="):
            self.cwd = rest[4:].decode("utf-8", errors="replace") or self.cwd
        elif kind == b"P":
            key, _, value = rest.partition(b"=")
            name = key.decode("utf-8", errors="replace")
            if name in self.properties or len(self.properties) < MAX_PROPERTIES:
                self.properties[name] = value.decode("utf-8", errors="replace")
        elif kind == b"TermwiseBuffer" and self._on_line_report is not None:
            # The shell's answer to "what is on your line?" (Session.run_command).
            try:
                self._on_line_report(rest)
            except Exception:  # a listener's bug must not stop the reader thread
                log.exception("line report listener failed")

    def _command_text(self) -> str:
        if self._explicit is not None:
            return self._explicit.strip()
        lines = clean_text(bytes(self._input)).strip().splitlines()
        return "\n".join(line.strip() for line in lines)

    def _start(self, command: str) -> None:
        self._state = State.OUTPUT
        self._command = command
        self._started = self._clock()
        self._out = HeadTailBuffer(self._block_bytes)
        self._explicit = None

    def _finish(self, code: int | None) -> None:
        out = self._out
        block = CommandBlock(
            index=self._next_index,
            command=self._command,
            output=out.getvalue() if out is not None else b"",
            exit_code=code,
            cwd=self.cwd,
            started=self._started,
            ended=self._clock(),
            dropped=out.dropped if out is not None else 0,
        )
        self._next_index += 1
        self._blocks.append(block)
        self._finished.append(block)
        self._out = None
        self._state = State.IDLE

    def _finish_without_c(self, code: int | None) -> None:
        """Shells that cannot mark "command starts" (cmd.exe): the first echoed line is
        the command, what follows it is the output."""
        raw = bytes(self._input)
        text = clean_text(raw)
        command = text.split("\n", 1)[0].strip()
        if not command:
            return
        newline = raw.find(b"\n")
        self._start(self._explicit or command)
        if newline >= 0 and self._out is not None:
            self._out.append(raw[newline + 1 :])
        self._finish(code)

    def _notify(self, block: CommandBlock) -> None:
        if self._on_block is None:
            return
        try:
            self._on_block(block)
        except Exception:  # a listener's bug must not stop the reader thread
            log.exception("on_block listener failed")

    def end_of_stream(self, exit_code: int | None = None) -> CommandBlock | None:
        """The shell has ended: a command still running (`exit 3`, a crash) becomes a
        finished block with the shell's exit status. Returns that block, if any."""
        with self._lock:
            if self._pending and not self.in_alt_screen:
                self._emit(self._pending)
            self._pending = b""
            block = None
            if self._state is State.OUTPUT:
                self._finish(exit_code)
                block = self._blocks[-1]
            finished, self._finished = self._finished, []
        for done in finished:
            self._notify(done)
        return block

    # -- queries --------------------------------------------------------------------

    def blocks(self, n: int | None = None) -> list[CommandBlock]:
        """Finished blocks, oldest first; the last `n` when given."""
        with self._lock:
            items = list(self._blocks)
        if n is not None:
            items = items[-n:] if n > 0 else []
        return items

    def running_block(self) -> CommandBlock | None:
        """The command that runs now (output so far, `ended` None), if any."""
        with self._lock:
            if self._state is not State.OUTPUT or self._out is None:
                return None
            return CommandBlock(
                index=self._next_index,
                command=self._command,
                output=self._out.getvalue(),
                exit_code=None,
                cwd=self.cwd,
                started=self._started,
                ended=None,
                dropped=self._out.dropped,
            )

    def retained(self) -> int:
        """Bytes of output this parser holds (rings and finished blocks)."""
        with self._lock:
            rings = len(self._raw) + len(self._screen) + len(self._alt)
            return rings + sum(len(b.output) for b in self._blocks)

    def limit(self, ring_bytes: int) -> None:
        """Hold at most `ring_bytes` of raw output from now on (a memory budget)."""
        with self._lock:
            self._raw.set_capacity(ring_bytes)

    def drop_oldest_block(self) -> bool:
        """Forget the oldest finished block but never the last (a memory budget); whether
        one went."""
        with self._lock:
            if len(self._blocks) < 2:
                return False
            self._blocks.popleft()
            return True

    @property
    def prompt_up(self) -> bool:
        """The shell's prompt is being drawn or waits for input (A or B since the command
        ended): its line editor reads the keys, not the terminal driver, which would echo them."""
        return self._state in (State.PROMPT, State.INPUT)

    @property
    def command_running(self) -> bool:
        """A command started (C mark) and has not finished: its program reads the input."""
        return self._state is State.OUTPUT

    def raw_tail(self, n: int) -> bytes:
        """The last `n` raw bytes read, alternate screen included."""
        with self._lock:
            return self._raw.tail(n)

    def screen_text(self, rows: int = 24, cols: int = 80) -> str:
        """The last screenful of clean text (what is on screen, roughly), for shells
        without marks; while a full-screen program runs, the text it drew."""
        with self._lock:
            ring = self._alt if self.in_alt_screen else self._screen
            want = max(4096, rows * cols * 8)
            raw = ring.tail(want)
            cut = len(ring) > want
        if cut:  # the start may be inside a line or a sequence
            newline = raw.find(b"\n")
            if 0 <= newline < len(raw) - 1:  # one huge line: keep its tail
                raw = raw[newline + 1 :]
        cols = max(1, cols)
        lines: list[str] = []
        for line in clean_text(raw).split("\n"):
            line = line.rstrip()
            # Wrapped as the terminal would; each slice once, so linear in the text.
            lines.extend(line[i : i + cols] for i in range(0, len(line), cols))
            if not line:
                lines.append(line)
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines[-rows:])


def _command_property(rest: bytes) -> str | None:
    """The command line some integrations (kitty, WezTerm) put on the C mark itself:
    `cmdline_url=<percent-encoded>` or `cmdline=<text>`."""
    for field in rest.split(b";"):
        key, _, value = field.partition(b"=")
        if key == b"cmdline_url":
            return unquote(value.decode("utf-8", errors="replace"))
        if key == b"cmdline":
            return value.decode("utf-8", errors="replace")
    return None


def _exit_code(rest: bytes) -> int | None:
    field = rest.split(b";", 1)[0].strip()
    try:
        return int(field)
    except ValueError:
        return None
