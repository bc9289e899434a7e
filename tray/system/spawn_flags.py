"""How Termwise starts its background helpers: outliving the caller, with no console window."""

from __future__ import annotations

import sys
from typing import Any

# Win32 process creation flags (subprocess only defines them on Windows).
CREATE_NEW_PROCESS_GROUP = 0x00000200
DETACHED_PROCESS = 0x00000008
CREATE_NO_WINDOW = 0x08000000

# Helpers that host PTYs (the session host, the deploy and type-at-prompt helpers) get a
# console without a window. DETACHED_PROCESS would leave them with no console at all:
# pywinpty then calls AllocConsole and a console window flashes up (and CREATE_NO_WINDOW
# is ignored next to DETACHED_PROCESS). The new process group keeps the caller's Ctrl+C
# from reaching them.
HELPER_CREATION_FLAGS = CREATE_NO_WINDOW | CREATE_NEW_PROCESS_GROUP


def helper_popen_options(platform: str = sys.platform) -> dict[str, Any]:
    """Keyword arguments for `subprocess.Popen` of a helper that must outlive its caller."""
    if platform == "win32":
        return {"creationflags": HELPER_CREATION_FLAGS}
    # Its own session: the terminal's hang-up and Ctrl+C miss it.
    return {"start_new_session": True}
