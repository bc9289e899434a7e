"""Entry point of the frozen executables: the same command line as `termwise`."""

from __future__ import annotations

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from termwise.tray.cli import main

    sys.exit(main())
