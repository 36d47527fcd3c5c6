"""Logging set-up: plain text for people, or one JSON object per line for log collectors."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal


class JsonFormatter(logging.Formatter):
    """`{"time", "level", "logger", "message", ...}` per line, with the exception when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(level: str, style: Literal["text", "json"] = "text") -> None:
    """Logs go to stderr (stdout carries the protocol under stdio); uvicorn's loggers follow the same format."""
    handler = logging.StreamHandler(sys.stderr)
    if style == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
