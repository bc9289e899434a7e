"""A real local model for tests: llama.cpp's server with SmolLM2-135M-Instruct on loopback.

`setup.sh` beside this file builds it into a cache outside the repository (`.ci/run`
calls it before the tests). `local_model()` starts the server on a free loopback port
and stops it again; `require_local_model()` skips a test on a developer's machine where
the build is absent, and fails it under `CI=true`, where its absence is a broken set-up.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.tools import strict

MODEL_NAME = "smollm2-135m-instruct"
SETUP = Path(__file__).with_name("setup.sh")
START_TIMEOUT = 120.0
STOP_GRACE = 5.0


# Read when the test session imports this, before fixtures point HOME at temp folders.
_CACHE = (
    Path(os.environ["TERMWISE_LLAMA_HOME"])
    if os.environ.get("TERMWISE_LLAMA_HOME")
    else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "termwise-llama"
)


def cache_dir() -> Path:
    """Where setup.sh puts the build (TERMWISE_LLAMA_HOME, else ~/.cache/termwise-llama)."""
    return _CACHE


def server_path() -> Path:
    return cache_dir() / "bin" / "llama-server"


def model_path() -> Path:
    return cache_dir() / "models" / f"{MODEL_NAME}.gguf"


def require_local_model() -> None:
    """Skip (or, on Linux CI, fail) unless setup.sh has built the server and the model."""
    lacking = [str(p) for p in (server_path(), model_path()) if not p.is_file()]
    if not lacking:
        return
    message = f"the local model is not built ({', '.join(lacking)} missing); run {SETUP}"
    if strict():  # Linux CI: .ci/run builds it there (a Linux binary: not under Wine)
        pytest.fail(f"{message}; .ci/run builds it, so its absence is a failure")
    pytest.skip(message)


@dataclass
class LocalModel:
    """A running llama-server: its OpenAI-compatible base URL and the model id it serves."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path
    model: str = MODEL_NAME

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as r:
            return bool(r.status == 200)
    except (OSError, urllib.error.URLError):
        return False


@contextmanager
def local_model(log_dir: Path, *, ctx: int = 4096, parallel: int = 1) -> Iterator[LocalModel]:
    """Start llama-server on loopback, wait until it answers, stop it afterwards."""
    port = _free_port()
    log = log_dir / f"llama-server-{port}.log"
    args = [
        str(server_path()),
        "--model", str(model_path()),
        "--alias", MODEL_NAME,
        "--host", "127.0.0.1",
        "--port", str(port),
        "--ctx-size", str(ctx),
        "--parallel", str(parallel),
        "--threads", "1",  # under load, two threads wait on each other
    ]  # fmt: skip
    with open(log, "wb") as out:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    server = LocalModel(port, proc, log)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"llama-server did not start on port {port}:\n{tail}")
            time.sleep(0.25)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(STOP_GRACE)
