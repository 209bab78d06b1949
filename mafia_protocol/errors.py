"""The site's own 500 and 503 pages (issue 22, finding 5).

Django calls `server_error` (urls.handler500) for every uncaught exception,
still inside the ``except`` block, so the exception is at hand. When it is
the database's — PostgreSQL unreachable or out of connections, SQLite full,
read-only or locked — the answer is a **503** in the reader's language that
says which, with Retry-After, and the log gets one line
(log_filters.OneLineClientErrors reads ``request.database_unavailable``)
instead of a traceback per request: the cause is outside the code, and a
hundred readers would otherwise write a hundred tracebacks a second. Any
other exception is a 500 in the site's template; its traceback stays.

Neither page may touch the database (it may be the thing that is down): both
render without the request's context processors, so no session, no user.
"""

from __future__ import annotations

import sys
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

# Kinds of "the database cannot serve this now", by what the driver said.
FULL, READ_ONLY, BUSY, UNREACHABLE = "full", "read-only", "busy", "unreachable"
_SIGNS = (
    (FULL, ("database or disk is full", "disk full", "no space left", "could not extend file")),
    (READ_ONLY, ("readonly database", "read-only", "read only")),
    (
        BUSY,
        (
            "database is locked",
            "database table is locked",
            "too many clients",
            "couldn't get a connection",
            "pool timeout",
            # A page's wait for a table being rewritten (players.views.reads_ratings) ran out.
            "lock timeout",
        ),
    ),
)


def _chain(exc: BaseException | None) -> list[BaseException]:
    out: list[BaseException] = []
    while exc is not None and exc not in out and len(out) < 10:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__
    return out


def database_unavailable(exc: BaseException | None) -> str | None:
    """FULL, READ_ONLY, BUSY or UNREACHABLE when `exc` means the database
    cannot serve the request now; None for any other error (a real bug)."""
    chain = _chain(exc)
    if not any(isinstance(e, OperationalError | InterfaceError) or type(e).__name__ == "PoolTimeout" for e in chain):
        return None
    text = " ".join(str(e).casefold() for e in chain)
    if any(type(e).__name__ == "PoolTimeout" for e in chain) and not _pool_holds_connections():
        # The pool waited in vain because it cannot open a single connection:
        # the server is down, not busy.
        return UNREACHABLE
    for kind, signs in _SIGNS:
        if any(sign in text for sign in signs):
            return kind
    if any(isinstance(e, InterfaceError) for e in chain) or any(
        w in text for w in ("connect", "connection", "server closed", "unable to open database", "terminating")
    ):
        return UNREACHABLE
    return None


def _pool_holds_connections() -> bool:
    """After a pool timeout: can the server be reached at all? One direct
    connection attempt (1 s) tells a server that is down from a pool that is
    merely all lent out or a server that is full ("too many clients")."""
    import psycopg
    from django.db import connection

    try:
        params = connection.get_connection_params()
        params.pop("cursor_factory", None)
        params.pop("context", None)
        params["connect_timeout"] = 1
        with psycopg.connect(**params):
            return True
    except psycopg.OperationalError as exc:
        return "too many clients" in str(exc)
    except Exception:  # another backend, or params it cannot give: say nothing more
        return True


def _reason(kind: str) -> str:
    return {
        FULL: _(
            "На сервере закончилось место для базы данных, поэтому изменения сейчас не записываются. Администратор увидит это в журнале сервера."
        ),
        READ_ONLY: _("База данных сейчас открыта только для чтения, поэтому изменения не записываются."),
        BUSY: _("База данных сейчас перегружена. Повторите через несколько секунд."),
        UNREACHABLE: _("База данных сейчас недоступна. Повторите через минуту."),
    }[kind]


def server_error(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    exc = sys.exc_info()[1]
    kind = database_unavailable(exc)
    if kind is not None:
        request.database_unavailable = f"{kind}: {' '.join(str(exc).split())[:200]}"  # type: ignore[attr-defined]
        body = render_to_string("503.html", {"reason": _reason(kind), "kind": kind})
        response = HttpResponse(body, status=503)
        response["Retry-After"] = "10" if kind == BUSY else "60"
        return response
    return HttpResponse(render_to_string("500.html", {}), status=500)
