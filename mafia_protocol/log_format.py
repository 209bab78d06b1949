"""Log lines a club's administrator can read and a log shipper can parse.

Every line carries its time with the UTC offset (a server's local time alone is
ambiguous across a DST change or when logs of two machines are compared). With
`LOG_FORMAT=json` each record is one JSON object per line — time, level, logger,
message and, for an exception, its type and traceback — the plain "structured
logs" form of error reporting that journald, Loki or any collector ingests without
a vendor's SDK.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
PLAIN = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class OffsetFormatter(logging.Formatter):
    """The plain line, its time in ISO 8601 with milliseconds and the UTC offset."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 (logging's name)
        moment = datetime.fromtimestamp(record.created).astimezone()
        return moment.isoformat(timespec="milliseconds")


class JsonFormatter(OffsetFormatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and record.exc_info[0] is not None:
            entry["exception"] = record.exc_info[0].__name__
            entry["traceback"] = self.formatException(record.exc_info)
        status = getattr(record, "status_code", None)
        if status is not None:
            entry["status"] = status
        return json.dumps(entry, ensure_ascii=False, default=str)
