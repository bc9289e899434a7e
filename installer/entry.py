"""Entry point of the frozen executables: the same command line as `termwise`."""

from __future__ import annotations

import multiprocessing
import os
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    # The windowed tray executable has no console: a stray print must not crash it.
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    from termwise.tray.commands.cli import main

    sys.exit(main())
