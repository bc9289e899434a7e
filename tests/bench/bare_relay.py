"""The least a relay between two terminals can do, as the floor for attached relays.

`python bare_relay.py PROGRAM [ARG ...]` runs PROGRAM on a PTY of its own, the size of
this one, and copies its output to this terminal with one read and one write per
chunk: no socket, no parsing, no second process. Keys go the other way from a thread.
Whatever a relay through a second PTY costs beyond this, it adds itself. The benchmark
uses bare_relay.c, the same in C, where a compiler is found; this one otherwise.
"""

from __future__ import annotations

import fcntl
import os
import pty
import sys
import termios
import threading
import tty


def _keys(master: int) -> None:
    while True:
        try:
            data = os.read(0, 4096)
            if not data:
                return
            os.write(master, data)
        except OSError:
            return


def main(argv: list[str]) -> int:
    size = fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8)
    pid, master = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    fcntl.ioctl(master, termios.TIOCSWINSZ, size)
    tty.setraw(0)
    threading.Thread(target=_keys, args=(master,), daemon=True).start()
    read, write = os.read, os.write
    while True:
        try:
            data = read(master, 65536)
        except OSError:  # EIO: the program ended
            break
        if not data:
            break
        view = memoryview(data)
        while view:
            view = view[write(1, view) :]
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
