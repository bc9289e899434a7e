"""Helpers to run a Windows installer under Wine and read what it left behind."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

WINE_TIMEOUT = 120.0


def require_tool(name: str) -> str:
    """The tool's path; skip the test without it, but fail on Linux CI, which installs it."""
    found = shutil.which(name)
    if found:
        return found
    message = f"{name} is not installed (apt-get install nsis wine wine64)"
    if os.environ.get("CI") == "true" and sys.platform.startswith("linux"):
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class WinePrefix:
    """A throwaway Wine prefix: run Windows programs in it and inspect its files/registry."""

    root: Path

    @property
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            WINEPREFIX=str(self.root),
            WINEDEBUG="-all",
            WINEARCH="win64",
            # No desktop menu entries in the real home, no Mono/Gecko prompts.
            WINEDLLOVERRIDES="winemenubuilder.exe=d;mscoree=d;mshtml=d",
            DISPLAY="",
        )
        return env

    def run(self, *args: str, wait_all: bool = True) -> None:
        """Run a program; with `wait_all`, also wait until every Wine process has exited.

        An uninstaller copies itself to a temporary folder and returns at once, so
        waiting for the wine command alone is not enough; `wineserver -w` waits for all.
        Exit codes are ignored: Wine reports 0 even when nothing ran.
        """
        subprocess.run(
            ["wine", *args],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=WINE_TIMEOUT,
        )
        if wait_all:
            self.wait()

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        """Start a program without waiting for it."""
        return subprocess.Popen(
            ["wine", *args], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def wait_for_process(
        self, image: str, process: subprocess.Popen[bytes], timeout: float
    ) -> bool:
        """Poll until the started program runs (Wine's tasklist lists nothing, so use ps)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            listing = subprocess.run(
                ["ps", "-eo", "args"], capture_output=True, text=True, timeout=10
            ).stdout
            if any(line.strip().lower().endswith(image.lower()) for line in listing.splitlines()):
                return True
            time.sleep(0.1)
        return False

    def wait(self) -> None:
        subprocess.run(["wineserver", "-w"], env=self.env, timeout=WINE_TIMEOUT)

    def kill(self) -> None:
        subprocess.run(["wineserver", "-k"], env=self.env, timeout=WINE_TIMEOUT)

    @property
    def user_dir(self) -> Path:
        users = [
            p for p in (self.root / "drive_c" / "users").iterdir() if p.name.lower() != "public"
        ]
        assert len(users) == 1, users
        return users[0]

    @property
    def user_name(self) -> str:
        return self.user_dir.name

    @property
    def local_appdata(self) -> Path:
        return self.user_dir / "AppData" / "Local"

    @property
    def roaming_appdata(self) -> Path:
        return self.user_dir / "AppData" / "Roaming"

    def registry(self) -> dict[str, dict[str, str]]:
        """HKEY_CURRENT_USER as saved in user.reg: lower-cased key -> value name -> text."""
        return parse_reg((self.root / "user.reg").read_text(encoding="utf-8", errors="replace"))

    def value(self, key: str, name: str) -> str | None:
        return self.registry().get(key.lower(), {}).get(name.lower())


_SECTION = re.compile(r"^\[(.+)\]\s+\d+")
_VALUE = re.compile(r'^"((?:[^"\\]|\\.)*)"=(?:str\(\d\):)?(.*)$')


def _unescape(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc.startswith("x"):
            return chr(int(esc[1:], 16))
        return {"n": "\n", "r": "\r", "t": "\t", "0": "\0"}.get(esc, esc)

    return re.sub(r"\\(x[0-9a-fA-F]{1,4}|.)", repl, text)


def parse_reg(text: str) -> dict[str, dict[str, str]]:
    """Parse Wine's registry file format (enough for string and dword values)."""
    keys: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            current = keys.setdefault(_unescape(m.group(1)).lower(), {})
            continue
        m = _VALUE.match(line)
        if m and current is not None:
            raw = m.group(2)
            value = _unescape(raw[1:-1]) if raw.startswith('"') else raw
            current[_unescape(m.group(1)).lower()] = value
    return keys
