"""A keyring backend storing passwords in a JSON file under TERMWISE_HOME (subprocess tests only)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend


class FileKeyring(KeyringBackend):
    """Lets `termwise config set-key` run for real in a subprocess without touching the user's keyring."""

    priority = 1  # type: ignore[assignment]

    def _path(self) -> Path:
        return Path(os.environ["TERMWISE_HOME"]) / "test-keyring.json"

    def _load(self) -> dict[str, str]:
        try:
            return dict(json.loads(self._path().read_text()))
        except (OSError, ValueError):
            return {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._path().write_text(json.dumps(data))

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        data.pop(f"{service}/{username}", None)
        self._path().write_text(json.dumps(data))
