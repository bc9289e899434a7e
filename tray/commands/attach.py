"""`termwise attach`: the small, stdlib-only client that puts a terminal on a session.

It sets the terminal to raw mode, relays bytes both ways, forwards size changes
(SIGWINCH on POSIX, polling the console size on Windows) and exits with the shell's
exit code when the shell ends. Closing the terminal window only detaches: the
session keeps running in the host.

Detach chord: Ctrl+] then d. Ctrl+] twice sends one Ctrl+]; Ctrl+] followed by any
other key sends both keys.

Several clients may attach to one session; the newest attach or resize sets the
terminal size (last one wins).
"""

from __future__ import annotations

import argparse
import codecs
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from termwise.tray.commands.chord import CHORD_HELP, ChordFilter
from termwise.tray.commands.host_frames import HostFrames, Outcome, handle_frame
from termwise.tray.errors import TrayError
from termwise.tray.ipc.client import Channel, open_channel
from termwise.tray.ipc.client_terminal import terminal_name
from termwise.tray.ipc.protocol import encode_data, encode_json

if TYPE_CHECKING:
    from termwise.agent.base.paths import Paths

READ_SIZE = 65536
SIZE_POLL = 0.25  # seconds between console size checks (Windows only)
EXIT_LOST = 1


def exit_status(code: Any) -> int:
    """The shell's exit code as this process's exit status."""
    if isinstance(code, int) and not isinstance(code, bool):
        return code & 0xFF
    return EXIT_LOST


def terminal_size(*fds: int) -> tuple[int, int] | None:
    """(rows, cols) of the first descriptor that is a terminal."""
    for fd in fds:
        try:
            size = os.get_terminal_size(fd)
        except OSError:
            continue
        if size.lines > 0 and size.columns > 0:
            return size.lines, size.columns
    return None


class ConsoleText:
    """UTF-16 from ReadConsoleW as UTF-8 bytes; a surrogate pair split between two
    reads comes out whole with the second one."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-16-le")(errors="replace")

    def feed(self, raw: bytes) -> bytes:
        return self._decoder.decode(raw).encode("utf-8")


class _Stop(Exception):
    """A signal that ends the attach (SIGHUP, SIGTERM)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


if sys.platform == "win32":
    import ctypes
    from ctypes import wintypes

    _k32 = ctypes.WinDLL("kernel32", use_last_error=True)
    # Declared prototypes: a HANDLE must not be squeezed through the default C int.
    _k32.GetStdHandle.restype = wintypes.HANDLE
    _k32.GetStdHandle.argtypes = [wintypes.DWORD]
    _k32.GetConsoleMode.argtypes = [wintypes.HANDLE, ctypes.POINTER(wintypes.DWORD)]
    _k32.SetConsoleMode.argtypes = [wintypes.HANDLE, wintypes.DWORD]
    _k32.ReadFile.argtypes = [
        wintypes.HANDLE,
        ctypes.c_void_p,
        wintypes.DWORD,
        ctypes.POINTER(wintypes.DWORD),
        ctypes.c_void_p,
    ]
    _k32.ReadConsoleW.argtypes = _k32.ReadFile.argtypes
    _k32.GetConsoleMode.restype = wintypes.BOOL
    _k32.SetConsoleMode.restype = wintypes.BOOL
    _k32.ReadFile.restype = wintypes.BOOL
    _k32.ReadConsoleW.restype = wintypes.BOOL
    _k32.GetConsoleCP.restype = wintypes.UINT
    _k32.GetConsoleCP.argtypes = []
    _k32.GetConsoleOutputCP.restype = wintypes.UINT
    _k32.GetConsoleOutputCP.argtypes = []
    _k32.SetConsoleCP.restype = wintypes.BOOL
    _k32.SetConsoleCP.argtypes = [wintypes.UINT]
    _k32.SetConsoleOutputCP.restype = wintypes.BOOL
    _k32.SetConsoleOutputCP.argtypes = [wintypes.UINT]
    CONSOLE_READ_CHARS = 4096
    STD_INPUT_HANDLE = 0xFFFFFFF6  # (DWORD)-10
    STD_OUTPUT_HANDLE = 0xFFFFFFF5  # (DWORD)-11
    ENABLE_PROCESSED_INPUT = 0x0001
    ENABLE_LINE_INPUT = 0x0002
    ENABLE_ECHO_INPUT = 0x0004
    ENABLE_VIRTUAL_TERMINAL_INPUT = 0x0200
    ENABLE_PROCESSED_OUTPUT = 0x0001
    ENABLE_VIRTUAL_TERMINAL_PROCESSING = 0x0004
    DISABLE_NEWLINE_AUTO_RETURN = 0x0008
    CP_UTF8 = 65001

    @contextmanager
    def raw_terminal(in_fd: int, out_fd: int) -> Iterator[None]:
        """Console VT modes: keys arrive as VT sequences, output escapes are interpreted."""
        hin = _k32.GetStdHandle(STD_INPUT_HANDLE)
        hout = _k32.GetStdHandle(STD_OUTPUT_HANDLE)
        in_mode, out_mode = wintypes.DWORD(), wintypes.DWORD()
        have_in = bool(_k32.GetConsoleMode(hin, ctypes.byref(in_mode)))
        have_out = bool(_k32.GetConsoleMode(hout, ctypes.byref(out_mode)))
        old_cp, old_out_cp = _k32.GetConsoleCP(), _k32.GetConsoleOutputCP()
        try:
            if have_in:
                mode = in_mode.value & ~(
                    ENABLE_ECHO_INPUT | ENABLE_LINE_INPUT | ENABLE_PROCESSED_INPUT
                )
                _k32.SetConsoleMode(hin, mode | ENABLE_VIRTUAL_TERMINAL_INPUT)
            if have_out:
                _k32.SetConsoleMode(
                    hout,
                    out_mode.value
                    | ENABLE_PROCESSED_OUTPUT
                    | ENABLE_VIRTUAL_TERMINAL_PROCESSING
                    | DISABLE_NEWLINE_AUTO_RETURN,
                )
            _k32.SetConsoleCP(CP_UTF8)
            _k32.SetConsoleOutputCP(CP_UTF8)
            yield
        finally:
            if have_in:
                _k32.SetConsoleMode(hin, in_mode.value)
            if have_out:
                _k32.SetConsoleMode(hout, out_mode.value)
            _k32.SetConsoleCP(old_cp)
            _k32.SetConsoleOutputCP(old_out_cp)

    _user32 = ctypes.WinDLL("user32", use_last_error=True)
    _k32.GetConsoleWindow.restype = wintypes.HWND
    _k32.GetConsoleWindow.argtypes = []
    _user32.GetAncestor.restype = wintypes.HWND
    _user32.GetAncestor.argtypes = [wintypes.HWND, wintypes.UINT]
    GA_ROOTOWNER = 3

    def own_window() -> dict[str, int]:
        """The window the user sees this console in: the root owner of its console window.

        Under Windows Terminal the console window is a hidden pseudo-console window
        owned by the terminal's window, which is what the foreground check sees.
        """
        hwnd = _k32.GetConsoleWindow()
        if not hwnd:
            return {"pid": os.getpid()}
        root = _user32.GetAncestor(hwnd, GA_ROOTOWNER) or hwnd
        return {"pid": os.getpid(), "console_window": int(root)}

    def _read_input(size: int, console: ConsoleText | None) -> bytes:
        """Typed (or redirected) input as UTF-8 bytes; b"" at its end."""
        handle = _k32.GetStdHandle(STD_INPUT_HANDLE)
        count = wintypes.DWORD(0)
        if console is None:  # a file or pipe: its bytes as they are
            buf = ctypes.create_string_buffer(size)
            if not _k32.ReadFile(handle, buf, size, ctypes.byref(count), None):
                return b""
            return buf.raw[: count.value]
        # A console: ReadConsoleW, since ReadFile under code page 65001 hands back NUL
        # for every non-ASCII character on many Windows builds (microsoft/terminal#4551).
        wide = ctypes.create_unicode_buffer(CONSOLE_READ_CHARS)
        while True:
            if not _k32.ReadConsoleW(handle, wide, CONSOLE_READ_CHARS, ctypes.byref(count), None):
                return b""
            data = console.feed(ctypes.string_at(wide, count.value * 2))
            if data:  # empty: half a surrogate pair, the rest comes with the next read
                return data

    def _stdin_is_console() -> bool:
        mode = wintypes.DWORD()
        return bool(_k32.GetConsoleMode(_k32.GetStdHandle(STD_INPUT_HANDLE), ctypes.byref(mode)))

    def relay(
        channel: Channel,
        in_fd: int,
        out_fd: int,
        size: tuple[int, int] | None,
        read_keys: bool = True,  # the host never reads a Windows console itself
    ) -> Outcome:
        """Threads: console input → host, size polling → host; host → console here."""
        send_lock = threading.Lock()
        done = threading.Event()
        detached = threading.Event()

        def send(frame: bytes) -> None:
            with send_lock:
                channel.stream.sendall(frame)

        def pump_input() -> None:
            chord = ChordFilter()
            console = ConsoleText() if _stdin_is_console() else None
            try:
                while not done.is_set():
                    data = _read_input(READ_SIZE, console)
                    if not data:
                        return
                    out, detach = chord.feed(data)
                    if out:
                        send(encode_data(out))
                    if detach:
                        detached.set()
                        send(encode_json({"op": "detach"}))
                        return
            except OSError:
                return

        def poll_size() -> None:
            last = size
            while not done.wait(SIZE_POLL):
                now = terminal_size(out_fd, in_fd)
                if now is not None and now != last:
                    last = now
                    try:
                        send(encode_json({"op": "resize", "rows": now[0], "cols": now[1]}))
                    except OSError:
                        return

        for target in (pump_input, poll_size):
            threading.Thread(target=target, daemon=True).start()
        try:
            for kind, payload in channel.reader.take_buffered():
                outcome = handle_frame(kind, payload, out_fd)
                if outcome is not None:
                    return outcome
            while True:
                try:
                    frame = channel.reader.read()
                except OSError:
                    frame = None
                if frame is None:
                    return Outcome("detached" if detached.is_set() else "lost")
                kind, payload = frame
                outcome = handle_frame(kind, payload, out_fd)
                if outcome is not None:
                    return outcome
        finally:
            done.set()

    def stop_signals() -> AbstractContextManager[None]:
        """Windows ends a console program without a signal we could turn into a detach."""
        return nullcontext()

else:
    import selectors
    import signal
    import termios
    import tty

    def own_window() -> dict[str, int]:
        """Our pid: the host finds the terminal window among our ancestors."""
        return {"pid": os.getpid()}

    @contextmanager
    def raw_terminal(in_fd: int, out_fd: int) -> Iterator[None]:
        """Raw mode on a terminal stdin (a pipe is left alone), restored afterwards."""
        if not os.isatty(in_fd):
            yield
            return
        saved = termios.tcgetattr(in_fd)
        tty.setraw(in_fd, termios.TCSANOW)
        try:
            yield
        finally:
            try:
                termios.tcsetattr(in_fd, termios.TCSADRAIN, saved)
            except termios.error:
                pass  # the terminal has gone away

    def relay(
        channel: Channel,
        in_fd: int,
        out_fd: int,
        size: tuple[int, int] | None,
        read_keys: bool = True,
    ) -> Outcome:
        """One select loop over stdin (unless the host reads the keys from the terminal
        itself), the host socket and a SIGWINCH wake-up pipe."""
        sock = channel.stream
        frames = HostFrames(out_fd)
        for kind, payload in channel.reader.take_buffered():
            outcome = handle_frame(kind, payload, out_fd)
            if outcome is not None:
                return outcome
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        previous = signal.signal(signal.SIGWINCH, lambda signum, frame: _poke(wake_w))
        selector = selectors.DefaultSelector()
        selector.register(sock, selectors.EVENT_READ, "host")  # type: ignore[arg-type]
        file_input = False
        try:
            if read_keys:
                selector.register(in_fd, selectors.EVENT_READ, "input")
        except PermissionError:  # epoll refuses regular files and /dev/null: read them at once
            file_input = True
        selector.register(wake_r, selectors.EVENT_READ, "resize")
        chord = ChordFilter()
        last = size
        detaching = False
        # Once the host stops taking input (the shell exited, or we were dropped), keys
        # typed are dropped and we keep reading: the rest of the output and the exit
        # code are still on their way.
        taking = True

        def send(frame: bytes) -> None:
            nonlocal taking
            if not taking:
                return
            try:
                sock.sendall(frame)
            except OSError:
                taking = False

        try:
            while file_input and not detaching:
                data = os.read(in_fd, READ_SIZE)
                if not data:
                    break
                out, detaching = chord.feed(data)
                if out:
                    send(encode_data(out))
                if detaching:
                    send(encode_json({"op": "detach"}))
            while True:
                for key, _ in selector.select():
                    if key.data == "host":
                        try:
                            outcome = frames.receive(sock)
                        except OSError:  # reset: nothing more will come
                            outcome = Outcome("eof")
                        if outcome is None:
                            continue
                        if outcome.kind == "eof":
                            return Outcome("detached" if detaching else "lost")
                        return outcome
                    elif key.data == "input":
                        data = os.read(in_fd, READ_SIZE)
                        if not data:
                            selector.unregister(in_fd)  # stdin ended: keep showing output
                            continue
                        out, detach = chord.feed(data)
                        if out:
                            send(encode_data(out))
                        if detach:
                            detaching = True
                            send(encode_json({"op": "detach"}))
                            selector.unregister(in_fd)
                    else:
                        os.read(wake_r, 512)
                        now = terminal_size(out_fd, in_fd)
                        if now is not None and now != last:
                            last = now
                            send(encode_json({"op": "resize", "rows": now[0], "cols": now[1]}))
        except OSError:
            return Outcome("detached" if detaching else "lost")
        finally:
            signal.signal(signal.SIGWINCH, previous)
            selector.close()
            os.close(wake_r)
            os.close(wake_w)

    @contextmanager
    def stop_signals() -> Iterator[None]:
        """Terminal closed or asked to stop: leave through the finally clauses so the
        terminal mode is restored. Installed before raw mode, so no moment is left where
        SIGTERM would end us with the terminal still raw."""

        def _raise_stop(signum: int, frame: object) -> None:
            raise _Stop(signum)

        stoppers = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGHUP, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in stoppers.items():
                signal.signal(sig, handler)

    def _poke(fd: int) -> None:
        try:
            os.write(fd, b"w")
        except OSError:
            pass  # the pipe is full: a wake-up is already pending


def run_attach(
    paths: Paths, session_id: str | None = None, *, in_fd: int = 0, out_fd: int = 1
) -> int:
    """Attach this terminal to a session until detach or exit; returns the exit status."""
    info: dict[str, Any] = {"id": session_id or "?"}
    with stop_signals():
        try:
            channel = open_channel(paths)
            try:
                size = terminal_size(out_fd, in_fd)
                fields: dict[str, Any] = {"session": session_id}
                if size is not None:
                    fields.update(rows=size[0], cols=size[1])
                fields["window"] = own_window()
                terminal = terminal_name(out_fd)
                if terminal is not None:  # the host may write output straight to it
                    fields["terminal"] = terminal
                    # ... and read the keys from it, when they are typed there too
                    fields["keys"] = terminal_name(in_fd) == terminal and (
                        os.environ.get("TERMWISE_DIRECT_KEYS") != "0"  # for comparing paths
                    )
                # Raw first: output the host writes to the terminal itself must meet the
                # same terminal settings as what we write.
                with raw_terminal(in_fd, out_fd):
                    reply = channel.request("attach", **fields)
                    info = reply["session"]
                    host_reads = reply.get("keys") is True  # then we leave our input alone
                    outcome = relay(channel, in_fd, out_fd, size, read_keys=not host_reads)
            finally:
                channel.close()
        except _Stop as stop:  # SIGHUP/SIGTERM, at any point: the finally clauses ran
            outcome = Outcome("signal", 128 + stop.signum)
    sid = info.get("id")
    if outcome.kind == "exit":
        return exit_status(outcome.code)
    if outcome.kind == "dropped":
        behind = f" by {max(1, round(outcome.code / 2**20))} MB" if outcome.code else ""
        _tell(f"[dropped: this terminal fell behind{behind}; `termwise attach {sid}` re-attaches]")
        return EXIT_LOST
    if outcome.kind in ("detached", "signal"):
        _tell(f"[detached from session {sid}; `termwise attach {sid}` re-attaches]")
        return 0 if outcome.kind == "detached" else exit_status(outcome.code)
    _tell(f"[lost the connection to the Termwise host; session {sid}]")
    return EXIT_LOST


def _tell(message: str) -> None:
    try:
        print(f"\r\n{message}", file=sys.stderr)
    except OSError:
        pass  # no terminal left to tell


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="termwise attach",
        description=f"Attach this terminal to a session. {CHORD_HELP}.",
        allow_abbrev=False,
    )
    parser.add_argument("session", nargs="?", help="session id (default: the active one)")
    args = parser.parse_args(argv)
    from termwise.agent.base.paths import resolve_paths

    try:
        return run_attach(resolve_paths(), args.session)
    except TrayError as exc:
        print(f"termwise: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 1))


if __name__ == "__main__":
    sys.exit(main())
