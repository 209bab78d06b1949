"""Logging: a refused request is one line, a traceback means a real server error.

Django logs a 403 raised as PermissionDenied ("the protocol is secret until
the game ends") with the exception attached, i.e. a full traceback for an
ordinary refusal, and a 404 without saying who asked or why. This filter,
attached to the request loggers (settings.LOGGING), rewrites every record of
a response below 500 into one line —

    403 GET /games/7/log.json user=stranger reason=The protocol is secret until the game ends.

— and drops its traceback. Records of 5xx responses pass untouched, with
their traceback.
"""

from __future__ import annotations

import logging
from typing import Any


class OneLineClientErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        request = getattr(record, "request", None)
        # The database down, full or read-only (mafia_protocol/errors.py): one
        # line per request, since the cause is outside the code.
        unavailable = getattr(request, "database_unavailable", "") if status == 503 else ""
        if not isinstance(status, int) or (status >= 500 and not unavailable) or request is None:
            return True
        # A record may meet two instances of this filter: logging's dictConfig
        # adds a logger's filters again each time it runs on an existing logger
        # (a second django.setup() in one process), without removing the old
        # ones. Rewrite it once.
        if getattr(record, "one_line_client_error", False):
            return True
        record.one_line_client_error = True
        path = str(getattr(request, "path", "?"))
        reason = (
            ("database unavailable (" + unavailable + ")" if unavailable else "")
            or getattr(request, "refusal_reason", "")
            or _exception_text(record)
            or _first_line(record).removesuffix(f": {path}")
        )
        record.msg = "%s %s %s user=%s reason=%s"
        record.args = (status, getattr(request, "method", "?"), _safe(path), _user(request), _safe(reason))
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


def _exception_text(record: logging.LogRecord) -> str:
    if record.exc_info and record.exc_info[1] is not None:
        return str(record.exc_info[1])
    return ""


def _first_line(record: logging.LogRecord) -> str:
    try:
        return record.getMessage()
    except (TypeError, ValueError):
        return str(record.msg)


def _user(request: Any) -> str:
    user = getattr(request, "user", None)
    if user is None or not getattr(user, "is_authenticated", False):
        return "-"
    return str(getattr(user, "get_username", lambda: "?")())


def _safe(text: Any) -> str:
    """One line, bounded: a path or a reason may carry anything the client
    sent; an overlay token is masked (access_log.py)."""
    from mafia_protocol.access_log import mask_tokens

    value = mask_tokens(" ".join(str(text).split()))
    return value[:300]
