"""Logging set-up: a rotating file in the user log folder, JSON lines on stderr for tests."""

from __future__ import annotations

import json
import logging
import logging.handlers
import sys
import time
from pathlib import Path

LOG_FILE = "termwise.log"
MAX_BYTES = 2 * 1024 * 1024
BACKUPS = 5


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
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


def setup_logging(log_dir: Path, *, json_lines: bool = False, level: int = logging.INFO) -> Path:
    """Send logs to a rotating file (and JSON lines to stderr when asked); returns the file."""
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / LOG_FILE
    root = logging.getLogger()
    root.setLevel(level)
    for handler in list(root.handlers):
        if getattr(handler, "_termwise", False):
            root.removeHandler(handler)
    file_handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
    )
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handlers: list[logging.Handler] = [file_handler]
    if json_lines:
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(JsonFormatter())
        handlers.append(stream)
    for handler in handlers:
        handler._termwise = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    return path
