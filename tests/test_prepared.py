"""Statements PostgreSQL prepares once per connection (mafia_protocol/prepared.py):
the values written as literals read back as they were, a connection prepares a
statement once, a failed query leaves nothing wrong behind, and the plan is the
generic one. PostgreSQL only: SQLite runs in the process, there is nothing to
prepare."""

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from mafia_protocol import prepared

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        "not __import__('django.db', fromlist=['connection']).connection.vendor == 'postgresql'",
        reason="PostgreSQL only: SQLite has no round trips to save",
    ),
]

COLUMNS = "i bigint, f double precision, s text, b boolean, d date, t timestamptz, n double precision"
KINDS = ["bigint", "double precision", "text", "boolean", "date", "timestamptz", "double precision"]
ROWS = [
    (
        1,
        0.1 + 0.2,
        'O\'Brien \\ %s, {a} "q"',
        True,
        date(2026, 12, 1),
        datetime(2026, 12, 2, 1, 2, 3, 456789, tzinfo=UTC),
        None,
    ),
    (-7, float("inf"), "", False, date(2026, 1, 31), datetime(2026, 1, 1, tzinfo=UTC), 2.5),
    (
        2**40,
        -1519.987654321012,
        "NULL",
        None,
        None,
        datetime(2026, 6, 1, 3, 0, tzinfo=timezone(timedelta(hours=3))),
        1e-300,
    ),
    (0, float("-inf"), "Ведущий — судья", True, date(1999, 12, 31), None, -0.0),
    (5, 1.0, "civilian", False, date(2026, 2, 28), datetime(2026, 2, 28, 23, 59, 59, 999999, tzinfo=UTC), 7.0),
]


def send(parts):
    with connection.cursor() as cursor:
        prepared.send(cursor, parts)
        out = []
        while True:
            if cursor.description is not None:
                out.append(cursor.fetchall())
            if not cursor.nextset():
                return out


@pytest.fixture
def check_table():
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE prepared_check ({COLUMNS})")
    yield
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE prepared_check")


def test_values_read_back_as_written_as_arrays_and_as_single_parameters(check_table):
    """Numbers written by hand (floats to the last bit, ±infinity, a big int),
    dates, aware moments in any offset, plain words by hand; a quote, a
    backslash, a brace, a comma, a "NULL" text or Cyrillic by psycopg."""
    arrays = ", ".join(f"%s::{k}[]" for k in KINDS)
    by_arrays = prepared.statement("test_arrays", f"INSERT INTO prepared_check SELECT * FROM unnest({arrays})")
    single = ", ".join(f"%s::{k}" for k in KINDS)
    by_values = prepared.statement("test_values", f"INSERT INTO prepared_check VALUES ({single})")
    with transaction.atomic():
        send([by_arrays.call([list(column) for column in zip(*ROWS, strict=True)])])
        read = prepared.statement("test_read", "SELECT * FROM prepared_check ORDER BY i, s")
        (got,) = send([read.call([])])
        assert [tuple(r) for r in got] == sorted(ROWS, key=lambda r: (r[0], r[2]))
        send([prepared.statement("test_empty", "DELETE FROM prepared_check").call([])])
        send([by_values.call(list(row)) for row in ROWS])
        (got,) = send([read.call([])])
        assert [tuple(r) for r in got] == sorted(ROWS, key=lambda r: (r[0], r[2]))


def test_a_connection_prepares_a_statement_once_and_a_new_connection_again():
    statement = prepared.statement("test_once", "SELECT %s::int + 1")
    with transaction.atomic(), CaptureQueriesContext(connection) as first:
        assert send([statement.call([41])]) == [[(42,)]]
    with transaction.atomic(), CaptureQueriesContext(connection) as second:
        assert send([statement.call([1]), statement.call([2])]) == [[(2,)], [(3,)]]
    assert first.captured_queries[0]["sql"].startswith(f"PREPARE {statement.prepare.split()[1]} AS SELECT $1::int + 1")
    assert "PREPARE" not in second.captured_queries[0]["sql"]
    connection.close()
    with transaction.atomic(), CaptureQueriesContext(connection) as third:
        assert send([statement.call([9])]) == [[(10,)]]
    assert third.captured_queries[0]["sql"].startswith("PREPARE ")


def test_after_a_failed_query_the_prepared_statements_are_read_back():
    """PREPARE is not undone by a rollback: the statement prepared in front of a
    query that failed exists, though the query failed. The next query learns
    which ones exist (pg_prepared_statements) and neither prepares one twice
    (an error) nor runs one that is missing."""
    first = prepared.statement("test_failed_a", "SELECT %s::int * 2")
    with pytest.raises(Exception, match="division by zero"), transaction.atomic():
        send([first.call([1]), "SELECT 1 / 0"])
    second = prepared.statement("test_failed_b", "SELECT %s::int * 3")
    with transaction.atomic(), CaptureQueriesContext(connection) as after:
        assert send([first.call([2]), second.call([2])]) == [[(4,)], [(6,)]]
    texts = [q["sql"] for q in after.captured_queries]
    assert f"PREPARE {prepared.PREFIX}{first.name} " not in texts[-1]
    assert f"PREPARE {prepared.PREFIX}{second.name} " in texts[-1]


def test_the_statements_run_their_generic_plan_and_the_setting_is_left_as_it_was():
    """A lookup by key planned once: never re-planned per run, even for a range
    on a parameter (left to "auto", PostgreSQL keeps re-planning those: their
    generic estimate is a third of the table)."""
    statement = prepared.statement("test_plan", "SELECT count(*) FROM django_migrations WHERE id >= %s")
    with transaction.atomic():
        for n in range(8):
            send([statement.call([n])])
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = %s",
                [prepared.PREFIX + statement.name],
            )
            assert cursor.fetchone() == (8, 0)
            cursor.execute("SHOW plan_cache_mode")
            assert cursor.fetchone() == ("auto",)


def test_two_texts_never_share_a_name():
    a = prepared.statement("same_label", "SELECT 1")
    b = prepared.statement("same_label", "SELECT 2")
    assert a.name != b.name and prepared.statement("same_label", "SELECT 1") is a
