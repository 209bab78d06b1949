"""The last 500s (issue 22, finding 5; issue 27: SQLite full or read-only).

The probe: with PostgreSQL down every request was a 500 with a traceback in
the log, and with DEBUG off the body was Django's bare English «Server Error
(500)». Now a database that cannot serve (unreachable, out of connections,
full, read-only, locked) answers 503 in the reader's language naming why,
logged as one line; any other error is a 500 in the site's own template.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import OperationalError, connection
from django.test import Client

from mafia_protocol import errors

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def anyone() -> Client:
    # Like a real server: the handler's answer, not the exception, reaches the client.
    return Client(raise_request_exception=False)


def _fail_with(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    """The ratings page fails with `exc` where it renders."""
    from players import views

    def broken(*args: object, **kwargs: object) -> None:
        raise exc

    monkeypatch.setattr(views, "render", broken)


def _new_game(title: str, players: list[str]) -> dict[str, str]:
    """The seating form's confirmed submit: ten new players, the game is written."""
    data = {"title": title, "players": "\n".join(players), "seating": "typed", "players_confirmed": "1"}
    for i, nick in enumerate(players):
        data |= {f"player-nick-{i}": nick, f"player-{i}": "new"}
    return data


@pytest.mark.django_db
def test_sqlite_read_only_is_a_503_naming_it_and_one_log_line(anyone, host, caplog):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's query_only pragma")
    anyone.force_login(host)
    with connection.cursor() as c:
        c.execute("PRAGMA query_only = ON")
    try:
        with caplog.at_level(logging.WARNING, logger="django.request"):
            r = anyone.post("/games/new/", _new_game("t", [f"P{i}" for i in range(10)]))
    finally:
        with connection.cursor() as c:
            c.execute("PRAGMA query_only = OFF")
    body = r.content.decode()
    assert r.status_code == 503 and "только для чтения" in body and 'data-reason="read-only"' in body
    assert "Протокол мафии" in body  # the site's own template
    records = [rec for rec in caplog.records if rec.name == "django.request"]
    assert len(records) == 1 and records[0].exc_info is None
    assert "database unavailable (read-only" in records[0].getMessage() and "\n" not in records[0].getMessage()


@pytest.mark.django_db
def test_sqlite_full_is_a_503_naming_it(anyone, host):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's max_page_count pragma")
    anyone.force_login(host)
    with connection.cursor() as c:
        c.execute("PRAGMA page_count")
        pages = c.fetchone()[0]
        c.execute(f"PRAGMA max_page_count = {pages}")
    try:
        players = [f"Игрок с длинным ником {i} " + "я" * 30 for i in range(10)]
        for _ in range(20):  # until the file has no free page left
            r = anyone.post("/games/new/", _new_game("Т" * 200, players))
            if r.status_code == 503:
                break
    finally:
        # On the driver's own connection: a write refused as "full" may leave the
        # test's transaction unusable for Django, and the limit must never
        # outlive this test (every later test shares this database).
        connection.ensure_connection()
        connection.connection.execute("PRAGMA max_page_count = 1073741823")
    assert r.status_code == 503 and "закончилось место" in r.content.decode()
    assert r["Retry-After"] == "60"


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        (
            'connection failed: connection to server at "127.0.0.1", port 5999 failed: Connection refused',
            errors.UNREACHABLE,
        ),
        ("FATAL:  sorry, too many clients already", errors.BUSY),
        ("database is locked", errors.BUSY),
        ("database or disk is full", errors.FULL),
        ("attempt to write a readonly database", errors.READ_ONLY),
    ],
)
def test_the_database_errors_are_told_apart(message, kind):
    assert errors.database_unavailable(OperationalError(message)) == kind


def test_a_bug_is_not_taken_for_the_database():
    assert errors.database_unavailable(RuntimeError("connection")) is None
    assert errors.database_unavailable(OperationalError("no such column: foo")) is None


@pytest.mark.django_db
def test_the_503_speaks_english_when_the_reader_chose_it(anyone, monkeypatch):
    _fail_with(monkeypatch, OperationalError("connection failed: Connection refused"))
    anyone.cookies["django_language"] = "en"
    r = anyone.get("/ratings/")
    assert r.status_code == 503 and "The database is unavailable right now" in r.content.decode()
    assert '<html lang="en">' in r.content.decode()


@pytest.mark.django_db
def test_a_real_bug_is_a_500_in_the_sites_template_with_its_traceback_logged(anyone, monkeypatch, caplog):
    _fail_with(monkeypatch, RuntimeError("a real bug"))
    with caplog.at_level(logging.ERROR, logger="django.request"):
        r = anyone.get("/ratings/")
    body = r.content.decode()
    assert r.status_code == 500 and "Ошибка сервера" in body and "Протокол мафии" in body
    assert any(rec.exc_info for rec in caplog.records if rec.name == "django.request")


@pytest.mark.live
def test_postgresql_down_is_a_503_per_request_without_tracebacks(tmp_path):
    """A real daphne with DEBUG off whose PostgreSQL port answers nobody."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import db_load
    from board_fanout import Daphne, free_port

    env = db_load.base_env("nowhere")
    env.update(
        {
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:{free_port()}/nowhere",
            "DATABASE_POOL_TIMEOUT": "2",
            "LOG_LEVEL": "WARNING",
        }
    )
    if not (db_load.STATIC_ROOT / "staticfiles.json").exists():
        subprocess.run(
            [str(db_load.PYTHON), "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=600,
        )
    log = tmp_path / "daphne.log"
    server = Daphne(env, log)
    server.start()
    try:
        answers = []
        for lang in ("ru", "en", "ru"):
            req = urllib.request.Request(
                f"http://127.0.0.1:{server.port}/ratings/", headers={"Cookie": f"django_language={lang}"}
            )
            try:
                urllib.request.urlopen(req, timeout=30)
            except urllib.error.HTTPError as e:
                answers.append((e.code, e.read().decode()))
        time.sleep(0.5)
    finally:
        server.stop()
    assert [code for code, _ in answers] == [503, 503, 503]
    assert "База данных сейчас недоступна" in answers[0][1] and "The database is unavailable right now" in answers[1][1]
    text = log.read_text()
    assert "Traceback" not in text
    assert text.count("503 GET /ratings/ user=- reason=database unavailable (unreachable") == 3, text[-3000:]
