"""Log lines carry their UTC offset; LOG_FORMAT=json gives one JSON object a line (issue 27)."""

from __future__ import annotations

import json
import logging
import re

from mafia_protocol.log_format import PLAIN, JsonFormatter, OffsetFormatter

OFFSET = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d")


def record(msg: str = "game %s: recorded", exc: bool = False) -> logging.LogRecord:
    info = None
    if exc:
        try:
            raise ValueError("boom")
        except ValueError:
            import sys

            info = sys.exc_info()
    return logging.LogRecord("games.services", logging.WARNING, __file__, 1, msg, (7,), info)


def test_the_plain_line_has_the_time_with_its_offset():
    line = OffsetFormatter(PLAIN).format(record())
    assert OFFSET.match(line) and line.endswith("WARNING games.services: game 7: recorded")


def test_json_lines_parse_and_carry_the_exception():
    entry = json.loads(JsonFormatter().format(record(exc=True)))
    assert OFFSET.fullmatch(entry["time"]) and entry["level"] == "WARNING" and entry["message"] == "game 7: recorded"
    assert entry["exception"] == "ValueError" and "boom" in entry["traceback"]
    assert "\n" not in JsonFormatter().format(record(exc=True))  # one line, whatever the traceback


def test_settings_pick_the_format_from_the_environment():
    from django.conf import settings

    assert settings.LOGGING["handlers"]["console"]["formatter"] in ("plain", "json")
