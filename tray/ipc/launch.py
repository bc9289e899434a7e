"""Reaching the session host from a client process: start the tray or `termwise serve` if none answers."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from termwise.tray.errors import HostUnavailable
from termwise.tray.ipc.client import HostClient

if TYPE_CHECKING:
    from termwise.agent.base.paths import Paths

HOST_START_TIMEOUT = 15.0
HOST_MODE_ENV = "TERMWISE_HOST"  # serve | tray | auto (default): what `termwise shell` starts
HOST_OUTPUT_FILE = "serve.out"


def desktop_available(env: Mapping[str, str]) -> bool:
    """Whether a tray can be shown: always on Windows and macOS, with X11 or Wayland elsewhere."""
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def host_argv(env: Mapping[str, str]) -> list[str]:
    """What to start when no host answers: the tray on a desktop, `termwise serve` elsewhere.

    Starting the tray (not a headless host) keeps a later `termwise` from finding the
    sessions owned by another process. `TERMWISE_HOST=serve|tray` overrides the guess.
    """
    from termwise.tray.system.selfcmd import self_argv

    mode = env.get(HOST_MODE_ENV, "auto").strip().lower()
    tray = mode == "tray" or (mode not in ("serve", "tray") and desktop_available(env))
    return self_argv() if tray else [*self_argv(), "serve"]


def ensure_host(paths: Paths, timeout: float = HOST_START_TIMEOUT) -> HostClient:
    """A client of the running host, starting the tray or `termwise serve` (detached) if none answers."""
    from termwise.tray.system.spawn_flags import helper_popen_options

    client = HostClient(paths)
    try:
        client.ping()
        return client
    except HostUnavailable:
        pass
    paths.ensure()
    out_path = paths.log_dir / HOST_OUTPUT_FILE
    argv = host_argv(os.environ)
    # Outlives this terminal and its signals; on Windows without a console window.
    options = helper_popen_options()
    from termwise.tray.system.logs import open_private

    with open_private(out_path, "ab") as out:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=os.path.expanduser("~"),  # never keep the caller's folder busy
            **options,
        )
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.ping()
            return client
        except HostUnavailable:
            pass
        if proc.poll() is not None:
            try:  # another `termwise shell` may have started one at the same moment
                client.ping()
                return client
            except HostUnavailable:
                raise HostUnavailable(
                    f"the host did not start (exit code {proc.returncode}); see {out_path}"
                ) from None
        if time.monotonic() > deadline:
            raise HostUnavailable(f"the host did not answer within {timeout:.0f} s; see {out_path}")
        time.sleep(0.05)
