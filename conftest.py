"""Root test set-up: offscreen Qt by default and a throwaway user home for every test."""

from __future__ import annotations

import os
import signal

# Tests play a person at a terminal, where Ctrl+C is never ignored. A suite started in the
# background of a script inherits SIGINT ignored, and so would every command it starts.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Must happen before anything imports Qt: without a display a Qt import aborts pytest.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from hypothesis import HealthCheck, settings

# Property tests over hostile bytes: a few hundred examples each in the normal suite,
# 100,000 in the nightly job (TERMWISE_HYPOTHESIS_PROFILE=nightly). No per-example
# deadline: a loaded CI machine is not a slow parser; linearity is asserted on sizes
# and checked by the benchmarks.
settings.register_profile(
    "default", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "nightly", max_examples=100_000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("TERMWISE_HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def termwise_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point all user data at a temp folder and keep model settings from leaking in."""
    home = tmp_path_factory.mktemp("twhome")
    monkeypatch.setenv("TERMWISE_HOME", str(home))
    # Shells started by tests read HOME's rc files; the machine's own (pyenv init and
    # the like) make them slow and can hang them on a stale lock. Tests that need rc
    # files write them into this empty home.
    user_home = home / "home"
    user_home.mkdir()
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.delenv("ZDOTDIR", raising=False)
    # A `termwise shell` with no host running starts a headless host in tests, not the
    # tray (pytest-xvfb gives every test a DISPLAY); tests of the tray start it themselves.
    monkeypatch.setenv("TERMWISE_HOST", "serve")
    for name in ("TERMWISE_BASE_URL", "TERMWISE_MODEL", "TERMWISE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def memory_keyring():
    """An in-memory keyring per test, so tests never touch the user's real one."""
    import keyring
    from keyring.backend import KeyringBackend

    class MemoryKeyring(KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.store: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.store.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.store[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.store.pop((service, username), None)

    old = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(old)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under Wine (the Windows lane) tests marked wine_limit skip with their listed reason."""
    from tests.support import wine_limits

    wine_limits.apply(items)


@pytest.fixture(autouse=True)
def private_run_key(monkeypatch: pytest.MonkeyPatch):
    """On Windows, start-at-login writes to a key of the tests' own, never the real Run key."""
    import sys

    if sys.platform != "win32":
        yield None
        return
    import os
    import winreg

    from termwise.tray.system import autostart

    key = rf"Software\Termwise-tests\Run-{os.getpid()}"
    winreg.CreateKey(winreg.HKEY_CURRENT_USER, key).Close()
    monkeypatch.setattr(autostart, "RUN_KEY", key)
    yield key
    winreg.DeleteKey(winreg.HKEY_CURRENT_USER, key)
