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


if sys.platform == "win32":
    import ctypes
    from ctypes import wintypes
    from functools import cache

    STD_OUTPUT_HANDLE = 0xFFFFFFF5  # (DWORD)-11

    @cache
    def _kernel32() -> ctypes.WinDLL:
        """This module's own kernel32 with declared prototypes (ctypes.windll is shared by
        every module, and its default int prototypes would cut a 64-bit HANDLE)."""
        k32 = ctypes.WinDLL("kernel32", use_last_error=True)
        k32.GetStdHandle.restype = wintypes.HANDLE
        k32.GetStdHandle.argtypes = [wintypes.DWORD]
        k32.GetConsoleMode.restype = wintypes.BOOL
        k32.GetConsoleMode.argtypes = [wintypes.HANDLE, ctypes.POINTER(wintypes.DWORD)]
        k32.SetConsoleMode.restype = wintypes.BOOL
        k32.SetConsoleMode.argtypes = [wintypes.HANDLE, wintypes.DWORD]
        return k32


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
            k32 = _kernel32()
            handle = k32.GetStdHandle(STD_OUTPUT_HANDLE)
            mode = wintypes.DWORD()
            if not k32.GetConsoleMode(handle, ctypes.byref(mode)):
                raise RawModeUnavailable("stdout is not a console")
            self._win_out_mode = mode.value
            # ENABLE_PROCESSED_OUTPUT | ENABLE_VIRTUAL_TERMINAL_PROCESSING: ANSI redraws work.
            if not k32.SetConsoleMode(handle, mode.value | 0x0001 | 0x0004):
                raise RawModeUnavailable("the console cannot do ANSI sequences")
            # msvcrt.getwch reads keys unbuffered and unechoed: nothing to switch for input.

    def _leave_windows(self) -> None:
        if sys.platform == "win32" and self._win_out_mode is not None:
            k32 = _kernel32()
            k32.SetConsoleMode(k32.GetStdHandle(STD_OUTPUT_HANDLE), self._win_out_mode)
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
