"""Log records as one JSON object a line.

Apart from the HTTP layer: gunicorn's master loads this to configure logging, and must not import the
app (psycopg, once imported, keeps the way of waiting it chose, which must be the one gevent patched).
"""

from __future__ import annotations

import json
import logging
from typing import Any


class JsonFormatter(logging.Formatter):
    """One JSON object a line; fields passed with `extra={"fields": {...}}` are merged in."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)
