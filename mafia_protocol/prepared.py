"""Statements PostgreSQL parses and plans once per connection.

A game's end reads and writes the ratings' stored rows in two queries of several
statements each (players/book.py: one round trip each; Django's default
psycopg cursor binds parameters on the client, so one query may hold several
statements). Sent as text, each of those statements is parsed, analysed and
planned again on every game's end. Here such a statement is written once with
its parameters (a fixed shape: a list of rows goes as one array parameter per
column), PREPAREd on a connection the first time that connection sends it (in
front of the same query: no round trip more) and run by name with its generic
plan. Measured at 100,000 games, one game's end: the reads' query 1.75 ms as
text, ~1.0 ms so; the writes' 1.55 ms and ~1.3 ms (README, "Ratings at
100,000 games").

PREPARE is not transactional: a statement prepared in a query that failed may
or may not exist afterwards. So while a query is in flight its connection's
list of prepared statements is unknown, and after a failure the next query
reads it back from ``pg_prepared_statements`` (one round trip, only then).
A pooler that resets sessions behind the application's back (PgBouncer's
transaction pooling, DISCARD ALL) drops prepared statements: this needs a
session of its own per connection, as Django's psycopg pool gives (README,
"PostgreSQL connections").
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from typing import Any
from weakref import WeakKeyDictionary

from django.db import connection

# A prefix of their own: psycopg names the statements it prepares itself "_pg3_…".
PREFIX = "mafia_"


def usable() -> bool:
    """Whether this connection sends several client-bound statements per query:
    PostgreSQL with Django's default cursor (not OPTIONS["server_side_binding"])."""
    return connection.vendor == "postgresql" and not connection.settings_dict.get("OPTIONS", {}).get(
        "server_side_binding"
    )


@functools.cache
def statement(label: str, sql: str) -> Prepared:
    """The prepared statement of this text, named by its label and a digest of
    the text: two texts never share a name (a connection that prepared one
    text under a name would run it for another)."""
    return Prepared(f"{label}_{hashlib.blake2b(sql.encode(), digest_size=6).hexdigest()}", sql)


@dataclass(frozen=True)
class Prepared:
    """A statement of a fixed shape, its parameters written ``%s`` (as for a
    cursor); made by ``statement``."""

    name: str
    sql: str

    @cached_property
    def prepare(self) -> str:
        numbers = iter(range(1, self.sql.count("%s") + 1))
        assert "%%" not in self.sql, "a prepared statement's text holds no literal %"
        return f"PREPARE {PREFIX}{self.name} AS " + re.sub(r"%s", lambda _m: f"${next(numbers)}", self.sql)

    @cached_property
    def parameters(self) -> int:
        return self.sql.count("%s")

    def call(self, params: Sequence[Any]) -> Call:
        assert len(params) == self.parameters, (self.name, len(params), self.parameters)
        return Call(self, params)


@dataclass(frozen=True)
class Call:
    """One run of a prepared statement with these parameters."""

    statement: Prepared
    params: Sequence[Any]

    def execute(self, mogrify: Any) -> str:
        args = ", ".join(literal(value, mogrify) for value in self.params)
        return f"EXECUTE {PREFIX}{self.statement.name}({args})" if args else f"EXECUTE {PREFIX}{self.statement.name}"


def literal(value: Any, mogrify: Any) -> str:
    """A parameter as an SQL literal (its type is the prepared statement's).
    Numbers, aware datetimes, dates, plain words and lists of them (nearly all
    of them) are written here, in PostgreSQL's input syntax; anything else by
    psycopg (``mogrify``)."""
    if type(value) is list or type(value) is tuple:
        kinds = set(map(type, value))
        if kinds <= _NUMBERS:
            # str of a float is its repr; "nan" and "inf" are float8 input too.
            return "'{" + ",".join(map(str, value)).replace("None", "NULL") + "}'"
        items = [_array_item(item) for item in value]
        if None in items:
            return mogrify("%s", [list(value)])  # type: ignore[no-any-return]
        return "'{" + ",".join(items) + "}'"  # type: ignore[arg-type]
    text = _array_item(value)
    if text is None:
        return mogrify("%s", [value])  # type: ignore[no-any-return]
    return text if text == "NULL" or type(value) in _BARE else f"'{text}'"


_BARE = (int, float)
_NUMBERS = {int, float, type(None)}
_WORD = re.compile(r"[A-Za-z0-9_.:+\-]+").fullmatch


def _array_item(value: Any) -> str | None:
    """The value as an element of an array literal (also a literal's text), or
    None when psycopg should write it."""
    kind = type(value)
    if value is None:
        return "NULL"
    if kind is int:
        return str(value)
    if kind is float:
        return repr(value) if math.isfinite(value) else None
    if kind is bool:
        return "t" if value else "f"
    if kind is datetime:
        # An aware time in ISO form (no space, no quote); a naive one would be read in the session's zone.
        return str(value.isoformat()) if value.utcoffset() is not None else None
    if kind is date:
        return str(value.isoformat())
    if kind is str and _WORD(value) and value.upper() != "NULL":
        return str(value)
    return None


# The statements each connection (a psycopg connection: the pool hands out
# the same ones again) has prepared; None while unknown (a query in flight, or
# one that failed).
_prepared_on: WeakKeyDictionary[Any, set[str] | None] = WeakKeyDictionary()


# The prepared statements run with their generic plan (planned once, no
# re-planning per run): they are lookups by key, whose plan does not depend on
# the values. Left to itself (plan_cache_mode "auto") PostgreSQL re-plans a
# statement on every run when its generic plan's estimate is worse than the
# custom plans' — for any range on a parameter ("month >= $2": a third of the
# table, it guesses), though the plan is the same index scan.
_GENERIC_PLANS = "SET LOCAL plan_cache_mode = force_generic_plan"
_OWN_PLANS = "RESET plan_cache_mode"


def send(cursor: Any, parts: Sequence[str | Call]) -> None:
    """Send the parts as one query on this Django cursor: a text as it is, a
    ``Call`` as EXECUTE of its statement, PREPAREd first when this connection
    has not yet. The PREPAREs and the plan settings around the EXECUTEs give
    result sets of no rows and no columns (``cursor.description`` None) in
    front and at the end: the caller reads its own between them."""
    raw = cursor.cursor
    conn = raw.connection
    known = _prepared_on.get(conn)
    if known is None:
        known = _read_prepared(raw) if conn in _prepared_on else set()
    new: dict[str, Prepared] = {}
    for part in parts:
        if isinstance(part, Call) and part.statement.name not in known:
            new.setdefault(part.statement.name, part.statement)
    mogrify = raw.mogrify
    texts = [p if isinstance(p, str) else p.execute(mogrify) for p in parts]
    if any(isinstance(p, Call) for p in parts):
        texts = [*(s.prepare for s in new.values()), _GENERIC_PLANS, *texts, _OWN_PLANS]
    _prepared_on[conn] = None
    # No parameters: Django's cursor passes the text as it is.
    cursor.execute(";\n".join(texts))
    _prepared_on[conn] = known | set(new)


def _read_prepared(raw: Any) -> set[str]:
    raw.execute("SELECT name FROM pg_prepared_statements WHERE name LIKE %s", [PREFIX + "%"])
    return {name[len(PREFIX) :] for (name,) in raw.fetchall()}
