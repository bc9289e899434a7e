"""API keys in the Windows Credential Manager: the keyring backend Termwise uses on Windows."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

pytestmark = [
    pytest.mark.windows,
    pytest.mark.skipif(sys.platform != "win32", reason="Windows Credential Manager"),
]

READ = (
    "import sys; from keyring.backends.Windows import WinVaultKeyring; "
    "print(WinVaultKeyring().get_password(sys.argv[1], sys.argv[2]))"
)


def test_credential_manager_set_read_back_in_another_process_delete() -> None:
    """A key set through WinVaultKeyring is read back by another process, then deleted."""
    from keyring.backends.Windows import WinVaultKeyring

    ring = WinVaultKeyring()
    assert ring.priority > 0  # the backend keyring picks by default on Windows
    service, user, secret = f"termwise-test-{uuid.uuid4().hex}", "openai", "sk-test-\u2713-123"
    ring.set_password(service, user, secret)
    try:
        assert ring.get_password(service, user) == secret
        other = subprocess.run(
            [sys.executable, "-c", READ, service, user],
            capture_output=True,
            encoding="utf-8",
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
            timeout=60,
        )
        assert other.stdout.strip() == secret, other.stderr
    finally:
        ring.delete_password(service, user)
    assert ring.get_password(service, user) is None
