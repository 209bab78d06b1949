"""A damaged archive gets one line and writes nothing; users are checked as both databases would (issue 22-5).

Before: a traceback for a game id "abc", a missing host, a user given as a
string, 100,000-deep nesting, non-UTF-8 bytes and a 100k title; a 300-character
or NUL username imported on SQLite only; an archived superuser became one
silently; `Demo` was created beside `demo`.
"""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from games.models import Game

PLAYERS = [f"P{i}" for i in range(1, 11)]


def v1(games=None, users=None):
    return {
        "format": "mafia-protocol-archive/1",
        "users": users if users is not None else [{"username": "h"}],
        "games": games
        if games is not None
        else [{"id": 1, "title": "T", "host": "h", "created_at": "2026-01-01T10:00:00+00:00", "seq": 0, "actions": []}],
        "tournaments": [],
    }


def refused(tmp_path, content, *args):
    path = tmp_path / "a.json"
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    users_before = get_user_model().objects.count()
    with pytest.raises(CommandError) as failed:
        call_command("import_archive", str(path), *args, stdout=io.StringIO())
    message = str(failed.value)
    assert "\n" not in message and "Traceback" not in message and message.endswith("nothing was imported")
    assert not Game.objects.exists() and get_user_model().objects.count() == users_before
    return message


def game(**changes):
    return {
        "id": 1,
        "title": "T",
        "host": "h",
        "created_at": "2026-01-01T10:00:00+00:00",
        "seq": 0,
        "actions": [],
        **changes,
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (v1(games=[game(id="abc")]), "games[0].id: an integer id was expected, got 'abc'"),
        (v1(games=[{k: v for k, v in game().items() if k != "host"}]), "games[0]: no host"),
        (v1(users=["h"]), "users[0]: an object was expected"),
        (
            b'{"format": "mafia-protocol-archive/1", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
            "not JSON: nested deeper than 32 levels",
        ),
        (b'{"format": "mafia-protocol-archive/1", "users": [{"username": "\xff\xfe"}]}', "not JSON: not UTF-8 text"),
        (v1(games=[game(title="x" * 100_000)]), "games.game row 0, title: longer than 200 characters"),
        (v1(games=[game(seq="many")]), "games.game row 0, seq: a number was expected, got 'many'"),
        (v1(games=[game(seq=-1)]), "games.game row 0, seq:"),
        (v1(games=[game(created_at="2026-01-01T10:00:00")]), "a time without its UTC offset"),
        (v1(games=[game(created_at="yesterday")]), "games.game row 0, created_at:"),
        (v1(games=[game(host="nobody")]), "user 'nobody' is not in the archive's users"),
        (
            {"format": "mafia-protocol-archive/2", "users": [], "tables": {"games.game": "x"}},
            "games.game: a list was expected",
        ),
        (
            {"format": "mafia-protocol-archive/2", "users": [], "tables": {"players.reprimand": []}},
            "tables of a newer version: players.reprimand",
        ),
        (
            {
                "format": "mafia-protocol-archive/2",
                "users": [{"username": "h"}],
                "tables": {"games.game": [{"id": 1, "host": "h", "colour": "red"}]},
            },
            "unknown field 'colour'",
        ),
        (
            {"format": "mafia-protocol-archive/1", "users": [], "games": [], "tournaments": [{"scoring": {}}]},
            "damaged archive: KeyError: 'name'",
        ),
    ],
    ids=[
        "game-id-abc",
        "no-host",
        "user-as-string",
        "deep-nesting",
        "not-utf8",
        "long-title",
        "seq-text",
        "seq-negative",
        "naive-time",
        "bad-time",
        "unknown-user",
        "table-not-list",
        "newer-model",
        "unknown-field",
        "tournament-no-name",
    ],
)
def test_every_damaged_archive_is_one_line_and_writes_nothing(tmp_path, content, expected):
    assert expected in refused(tmp_path, content)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("u" * 300, "a username is 1 to 150 characters"),
        ("a\x00b", "a username is 1 to 150 characters"),
        ("two words", "is not a valid username"),
        ("", "a username is 1 to 150"),
    ],
    ids=["300-chars", "nul", "space", "empty"],
)
def test_usernames_the_schema_refuses_are_refused_on_both_databases(tmp_path, name, expected):
    assert expected in refused(tmp_path, v1(games=[], users=[{"username": name}]))


@pytest.mark.django_db
def test_staff_and_superusers_are_listed_and_refused_unless_allowed(tmp_path):
    users = [
        {"username": "h"},
        {"username": "root", "password": "pbkdf2_sha256$1$x$y", "is_superuser": True, "is_staff": True},
        {"username": "mod", "password": "pbkdf2_sha256$1$x$y", "is_staff": True},
    ]
    message = refused(tmp_path, v1(users=users))
    assert "would create staff or superuser accounts: root, mod; add --allow-superusers" in message
    out = io.StringIO()
    path = tmp_path / "a.json"
    call_command("import_archive", str(path), "--allow-superusers", stdout=out)
    assert "staff or superuser accounts created: root, mod" in out.getvalue()
    assert get_user_model().objects.get(username="root").is_superuser


@pytest.mark.django_db
def test_a_username_differing_only_in_case_from_an_existing_one_is_refused(tmp_path, django_user_model):
    django_user_model.objects.create_user(username="demo")
    message = refused(tmp_path, v1(games=[], users=[{"username": "Demo"}]))
    assert "'Demo' differs only in case from the account 'demo'" in message
    assert not django_user_model.objects.filter(username="Demo").exists()


@pytest.mark.django_db
def test_check_verifies_and_writes_nothing(tmp_path):
    path = tmp_path / "a.json"
    path.write_text(json.dumps(v1()))
    out = io.StringIO()
    call_command("import_archive", str(path), "--check", stdout=out)
    assert "would import 1 game(s)" in out.getvalue() and "nothing was written" in out.getvalue()
    assert not Game.objects.exists() and not get_user_model().objects.exists()
