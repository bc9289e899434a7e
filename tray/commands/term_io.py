"""Key-at-a-time terminal input for the picker: termios on POSIX, msvcrt on Windows."""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType

from termwise.tray.commands.picker import Key, KeyDecoder, windows_key

# A lone ESC followed by nothing for this long is the Esc key, not an arrow's start.
ESC_WAIT = 0.05
HIDE_CURSOR = "\x1b[?25l"
SHOW_CURSOR = "\x1b[?25h"


class RawModeUnavailable(Exception):
    """This terminal cannot deliver single keys (not a console, a dumb terminal …)."""


class KeyReader:
    """While open: keys arrive one by one, unechoed; Ctrl+C still interrupts."""

    def __init__(self, stdin_fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
        self._saved: object = None
        self._decoder = KeyDecoder()
        self._win_out_mode: int | None = None

    def __enter__(self) -> KeyReader:
        if os.environ.get("TERM") == "dumb":
            raise RawModeUnavailable("TERM=dumb")
        if sys.platform == "win32":
            self._enter_windows()
        else:
            import termios
            import tty

            try:
                self._saved = termios.tcgetattr(self.fd)
                tty.setcbreak(self.fd)  # no line editing, no echo; signals still work
            except (termios.error, OSError) as exc:
                raise RawModeUnavailable(str(exc)) from None
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if sys.platform == "win32":
            self._leave_windows()
        elif self._saved is not None:
            import termios

            try:
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)  # type: ignore[arg-type]
            except (termios.error, OSError):
                pass
            self._saved = None

    def read(self, timeout: float) -> list[Key]:
        """Keys pressed within `timeout` seconds (maybe none)."""
        if sys.platform == "win32":
            return self._read_windows(timeout)
        import select

        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return self._decoder.flush() if self._decoder.pending else []
        data = os.read(self.fd, 1024)
        if not data:
            return [Key("esc")]  # the terminal went away: leave
        keys = self._decoder.feed(data)
        if self._decoder.pending:
            more, _, _ = select.select([self.fd], [], [], ESC_WAIT)
            keys += self._decoder.feed(os.read(self.fd, 1024)) if more else self._decoder.flush()
        return keys

    # -- Windows console ---------------------------------------------------------------------
    def _enter_windows(self) -> None:
        if sys.platform == "win32":
            import ctypes
            import msvcrt

            kernel32 = ctypes.windll.kernel32
            handle = kernel32.GetStdHandle(-11)  # STD_OUTPUT_HANDLE
            mode = ctypes.c_uint32()
            if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
                raise RawModeUnavailable("stdout is not a console")
            self._win_out_mode = mode.value
            # ENABLE_PROCESSED_OUTPUT | ENABLE_VIRTUAL_TERMINAL_PROCESSING: ANSI redraws work.
            if not kernel32.SetConsoleMode(handle, mode.value | 0x0001 | 0x0004):
                raise RawModeUnavailable("the console cannot do ANSI sequences")
            del msvcrt  # getwch reads keys unbuffered and unechoed; nothing to switch

    def _leave_windows(self) -> None:
        if sys.platform == "win32" and self._win_out_mode is not None:
            import ctypes

            kernel32 = ctypes.windll.kernel32
            kernel32.SetConsoleMode(kernel32.GetStdHandle(-11), self._win_out_mode)
            self._win_out_mode = None

    def _read_windows(self, timeout: float) -> list[Key]:
        if sys.platform != "win32":
            return []
        import msvcrt

        deadline = time.monotonic() + timeout
        while not msvcrt.kbhit():
            if time.monotonic() >= deadline:
                return []
            time.sleep(0.02)
        keys: list[Key] = []
        while msvcrt.kbhit():
            first = msvcrt.getwch()
            second = msvcrt.getwch() if first in ("\xe0", "\x00") else ""
            keys.append(windows_key(first, second))
        return keys
