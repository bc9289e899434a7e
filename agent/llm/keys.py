"""API keys: from the provider's environment variable or the system keyring, never from config."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from termwise.agent.base.errors import AgentError

log = logging.getLogger(__name__)

SERVICE = "termwise"


class KeyStoreError(AgentError):
    """The key could not be stored or read in the system keyring."""


def get_key(provider: str, key_env: str, env: Mapping[str, str]) -> tuple[str | None, str]:
    """The key and where it came from ("env:NAME", "keyring" or "" when there is none)."""
    if key_env and env.get(key_env):
        return env[key_env], f"env:{key_env}"
    try:
        import keyring

        value = keyring.get_password(SERVICE, provider)
    except Exception as exc:  # no backend, locked store …: a missing key, not a crash
        log.debug("keyring lookup for %s failed: %s", provider, type(exc).__name__)
        value = None
    return (value, "keyring") if value else (None, "")


def set_key(provider: str, key: str, key_env: str = "") -> None:
    """Store a key in the keyring (service `termwise`, username = provider name)."""
    import keyring
    from keyring.errors import KeyringError, NoKeyringError

    try:
        keyring.set_password(SERVICE, provider, key)
    except NoKeyringError as exc:
        hint = f" set {key_env} in your environment" if key_env else " set TERMWISE_API_KEY"
        raise KeyStoreError(
            f"no system keyring is available to store the key for {provider!r};{hint} instead"
        ) from exc
    except KeyringError as exc:
        raise KeyStoreError(f"the system keyring refused the key for {provider!r}: {exc}") from exc


def delete_key(provider: str) -> bool:
    """Remove a stored key; False when there was none (or no keyring)."""
    import keyring
    from keyring.errors import KeyringError, PasswordDeleteError

    try:
        keyring.delete_password(SERVICE, provider)
    except (PasswordDeleteError, KeyringError):
        return False
    return True


def mask(key: str | None) -> str:
    """Show enough of a key to recognise it, never enough to use it."""
    if not key:
        return "not set"
    if len(key) <= 8:
        return "****"
    return f"{key[:3]}…{key[-4:]}"
