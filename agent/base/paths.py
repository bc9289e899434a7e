"""Where Termwise keeps user data; `TERMWISE_HOME` moves all of it into one folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NamedTuple

APP = "termwise"
PRIVATE_FOLDER = 0o700  # user data holds commands, output and memories: this user only


class Paths(NamedTuple):
    """The user folders, resolved once and passed around (never read at import time).

    A NamedTuple rather than a frozen dataclass: every client command resolves these, and
    importing dataclasses (with inspect, ast, dis …) was a tenth of `termwise context`'s start.
    """

    config_dir: Path
    data_dir: Path
    log_dir: Path
    cache_dir: Path
    runtime_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.yaml"

    @property
    def memory_dir(self) -> Path:
        return self.data_dir / "memory"

    @property
    def approvals_file(self) -> Path:
        return self.config_dir / "approvals.yaml"

    @property
    def deploy_dir(self) -> Path:
        return self.data_dir / "deploy"

    def ensure(self) -> Paths:
        """Create the folders, readable by this user only (existing ones are narrowed)."""
        for folder in (
            self.config_dir,
            self.data_dir,
            self.log_dir,
            self.cache_dir,
            self.runtime_dir,
        ):
            folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)
            if sys.platform != "win32" and folder.stat().st_mode & 0o777 != PRIVATE_FOLDER:
                os.chmod(folder, PRIVATE_FOLDER)
        return self


def resolve_paths(env: dict[str, str] | None = None) -> Paths:
    """Resolve the folders from the environment; `TERMWISE_HOME` wins over platform defaults."""
    env = dict(os.environ) if env is None else env
    home = env.get("TERMWISE_HOME")
    if home:
        root = Path(home).expanduser()
        return Paths(
            config_dir=root / "config",
            data_dir=root / "data",
            log_dir=root / "logs",
            cache_dir=root / "cache",
            runtime_dir=root / "run",
        )
    import platformdirs

    if sys.platform.startswith("linux") and not env.get("XDG_RUNTIME_DIR"):
        # Without XDG_RUNTIME_DIR platformdirs falls back to a shared /tmp path (and
        # warns); keep the socket inside a folder only this user can enter.
        runtime = Path(platformdirs.user_cache_dir(APP, appauthor=False)) / "run"
    else:
        runtime = Path(platformdirs.user_runtime_dir(APP, appauthor=False))
    return Paths(
        config_dir=Path(platformdirs.user_config_dir(APP, appauthor=False)),
        data_dir=Path(platformdirs.user_data_dir(APP, appauthor=False)),
        log_dir=Path(platformdirs.user_log_dir(APP, appauthor=False)),
        cache_dir=Path(platformdirs.user_cache_dir(APP, appauthor=False)),
        runtime_dir=runtime,
    )
