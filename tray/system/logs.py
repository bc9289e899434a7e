"""Logging set-up: a rotating file in the user log folder, JSON lines on stderr for tests.

Every handler redacts secrets with the same redactor that guards the model (a failed
`mysql -pSECRET` is logged as `mysql -p[REDACTED:password]`), and log files are created
readable by this user only (0600 on POSIX).
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

LOG_FILE = "termwise.log"
MAX_BYTES = 2 * 1024 * 1024
BACKUPS = 5
PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


def open_private(path: Path, mode: str = "ab") -> IO[Any]:
    """Open a file for appending, created 0600 (an existing file is narrowed to 0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE)
    if sys.platform != "win32":
        os.fchmod(fd, PRIVATE_FILE)
    if "b" in mode:
        return os.fdopen(fd, mode)
    return os.fdopen(fd, mode, encoding="utf-8")


class RedactingFilter(logging.Filter):
    """Replaces secrets in a record's message and traceback before any handler writes it."""

    def __init__(self) -> None:
        super().__init__()
        self._busy = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(self._busy, "on", False):
            return True  # the redactor's own warning, logged while it runs
        self._busy.on = True
        try:
            _redact_record(record)
        finally:
            self._busy.on = False
        return True


def _redact_record(record: logging.LogRecord) -> None:
    from termwise.agent.privacy.redact import redact

    if getattr(record, "_termwise_redacted", False):
        return  # a record reaches every handler; once is enough
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: let the handler report it as usual
        return
    clean = redact(message).text
    if clean != message:
        record.msg, record.args = clean, None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text).text
    if record.stack_info:
        record.stack_info = redact(record.stack_info).text
    record._termwise_redacted = True


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose files are readable by this user only."""

    def _open(self) -> Any:
        return open_private(Path(self.baseFilename), "a")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: machine-readable logs for the end-to-end harness."""

    def format(self, record: logging.LogRecord) -> str:
        data = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        extra = getattr(record, "event", None)
        if extra is not None:
            data["event"] = extra
        if record.exc_text:
            data["exception"] = record.exc_text
        elif record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


def setup_logging(log_dir: Path, *, json_lines: bool = False, level: int = logging.INFO) -> Path:
    """Send logs to a rotating file (and JSON lines to stderr when asked); returns the file."""
    log_dir.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)
    if sys.platform != "win32":
        os.chmod(log_dir, PRIVATE_FOLDER)
    path = log_dir / LOG_FILE
    root = logging.getLogger()
    root.setLevel(level)
    for handler in list(root.handlers):
        if getattr(handler, "_termwise", False):
            root.removeHandler(handler)
    file_handler = PrivateRotatingFileHandler(
        path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
    )
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handlers: list[logging.Handler] = [file_handler]
    if json_lines:
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(JsonFormatter())
        handlers.append(stream)
    redacting = RedactingFilter()
    from termwise.agent.privacy.redact import redact

    redact("warm-up")  # compile the patterns now, not inside the first (timed) log call
    for handler in handlers:
        handler.addFilter(redacting)
        handler._termwise = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    return path
