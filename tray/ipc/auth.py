"""The shared secret in a user-only file, and the challenge–response that proves it."""

from __future__ import annotations

import os
import stat
import sys
from _operator import _compare_digest as compare_digest
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _builtin_sha256() -> Callable[..., Any]:
    """SHA-256 without OpenSSL: `hashlib`/`hmac` load libcrypto (3.5 MiB of RSS in the
    host, milliseconds in every client); CPython's own module is enough here."""
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # Python >= 3.12
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef]
        except ImportError:  # a build without it: OpenSSL's
            from hashlib import sha256  # type: ignore[assignment]
    return sha256  # type: ignore[no-any-return]


_sha256 = _builtin_sha256()
_BLOCK = 64
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))

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
    secret = os.urandom(SECRET_BYTES).hex().encode("ascii")
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
    return os.urandom(NONCE_BYTES).hex()


def prove(secret: bytes, nonce: str) -> str:
    """The answer to a challenge: HMAC-SHA256 of the nonce under the secret."""
    return hmac_sha256(secret, nonce.encode("ascii")).hex()


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    """HMAC-SHA256 (RFC 2104), the same bytes as `hmac.new(key, message, sha256).digest()`."""
    if len(key) > _BLOCK:
        key = _sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = _sha256(key.translate(_IPAD) + message).digest()
    return bytes(_sha256(key.translate(_OPAD) + inner).digest())


def verify(secret: bytes, nonce: str, answer: object) -> bool:
    """Whether `answer` proves the secret (constant-time comparison)."""
    if not isinstance(answer, str):
        return False
    return compare_digest(prove(secret, nonce).encode(), answer.encode("utf-8", "replace"))
