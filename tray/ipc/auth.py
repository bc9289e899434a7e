"""The shared secret in a user-only file, and the challenge–response that proves it."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import sys
from pathlib import Path

SECRET_FILE = "ipc.secret"
SECRET_BYTES = 32
NONCE_BYTES = 32


class SecretMissing(Exception):
    """No secret file: no host has run with this runtime folder."""


def secret_path(runtime_dir: Path) -> Path:
    return runtime_dir / SECRET_FILE


def ensure_secret(runtime_dir: Path) -> bytes:
    """The host's secret, created (mode 0600) if missing or if anyone else could read it."""
    path = secret_path(runtime_dir)
    if path.exists():
        too_open = sys.platform != "win32" and stat.S_IMODE(path.stat().st_mode) & 0o077
        secret = path.read_bytes().strip()
        if not too_open and len(secret) >= 2 * SECRET_BYTES:
            return secret
    secret = secrets.token_hex(SECRET_BYTES).encode("ascii")
    tmp = path.with_name(f"{SECRET_FILE}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, secret)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return secret


def read_secret(runtime_dir: Path) -> bytes:
    """The secret a client proves (raises SecretMissing when there is none)."""
    try:
        return secret_path(runtime_dir).read_bytes().strip()
    except FileNotFoundError:
        raise SecretMissing(str(secret_path(runtime_dir))) from None


def new_nonce() -> str:
    return secrets.token_hex(NONCE_BYTES)


def prove(secret: bytes, nonce: str) -> str:
    """The answer to a challenge: HMAC-SHA256 of the nonce under the secret."""
    return hmac.new(secret, nonce.encode("ascii"), hashlib.sha256).hexdigest()


def verify(secret: bytes, nonce: str, answer: object) -> bool:
    """Whether `answer` proves the secret (constant-time comparison)."""
    if not isinstance(answer, str):
        return False
    return hmac.compare_digest(prove(secret, nonce).encode(), answer.encode("utf-8", "replace"))
