"""The secret file is user-only and the challenge answer proves it."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from termwise.tray.ipc import auth


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="POSIX file modes; on Windows the secret is kept private by the profile folder's ACL",
)
def test_secret_file_is_user_only_and_reused(tmp_path: Path) -> None:
    """The host's secret is created 0600 and the same secret comes back next time."""
    secret = auth.ensure_secret(tmp_path)
    path = auth.secret_path(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert auth.ensure_secret(tmp_path) == secret
    assert auth.read_secret(tmp_path) == secret


@pytest.mark.skipif(
    sys.platform == "win32",
    reason="POSIX file modes; on Windows the secret is kept private by the profile folder's ACL",
)
def test_secret_readable_by_others_is_replaced(tmp_path: Path) -> None:
    """A secret file someone else could read is not trusted: a new one replaces it."""
    old = auth.ensure_secret(tmp_path)
    os.chmod(auth.secret_path(tmp_path), 0o644)
    new = auth.ensure_secret(tmp_path)
    assert new != old
    assert stat.S_IMODE(auth.secret_path(tmp_path).stat().st_mode) == 0o600


def test_missing_secret_is_reported(tmp_path: Path) -> None:
    """A client finds no secret when no host ever ran here."""
    with pytest.raises(auth.SecretMissing):
        auth.read_secret(tmp_path)


def test_only_the_right_secret_answers_the_challenge(tmp_path: Path) -> None:
    """The HMAC answer verifies for the right secret and fails for a wrong one or junk."""
    secret = auth.ensure_secret(tmp_path)
    nonce = auth.new_nonce()
    assert auth.verify(secret, nonce, auth.prove(secret, nonce))
    assert not auth.verify(secret, nonce, auth.prove(b"wrong", nonce))
    assert not auth.verify(secret, auth.new_nonce(), auth.prove(secret, nonce))
    assert not auth.verify(secret, nonce, None)
    assert not auth.verify(secret, nonce, 12345)


@pytest.mark.parametrize("key_size", [0, 1, 32, 64, 65, 200])
def test_our_hmac_is_the_standard_one(key_size: int) -> None:
    """The OpenSSL-free HMAC-SHA256 gives the same bytes as the standard library's."""
    import hashlib
    import hmac

    key = bytes(range(key_size % 256)) * (key_size // 256 + 1)
    key = key[:key_size]
    for message in (b"", b"nonce", b"x" * 1000):
        assert auth.hmac_sha256(key, message) == hmac.new(key, message, hashlib.sha256).digest()
