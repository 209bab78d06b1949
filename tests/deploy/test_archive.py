"""export_archive / import_archive in-process: passwords, refusals, undos (issue 15).

The exact SQLite -> PostgreSQL round trip of the demo database is
test_archive_roundtrip.py.
"""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from games import services
from games.models import Game, GameAction
from tournaments import archive
from tournaments.models import Tournament

PLAYERS = [f"P{i}" for i in range(1, 11)]


def played_game(host):
    game = services.game_create(host=host, title="Archived", players=PLAYERS)
    for action in ({"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, {"do": "start"}, {"do": "next"}):
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
    services.game_record_action(game=game, action={"do": "next"}, expected_seq=game.seq, by=host)
    services.game_set_overlay(game=game, by=host, enabled=True, delay_seconds=30)
    return Game.objects.get(pk=game.pk)


@pytest.mark.django_db
def test_usernames_only_unless_passwords_are_asked_for(host, tmp_path):
    played_game(host)
    plain, secret = tmp_path / "plain.json", tmp_path / "secret.json"
    call_command("export_archive", str(plain))
    call_command("export_archive", str(secret), "--with-passwords")
    assert json.loads(plain.read_text())["users"] == [{"username": "host"}]
    assert host.password not in plain.read_text()
    assert json.loads(secret.read_text())["users"][0]["password"] == host.password


@pytest.mark.django_db
def test_import_replays_undos_where_they_were_and_keeps_overlay_and_times(host, tmp_path):
    game = played_game(host)
    payloads, times = game.action_payloads(), list(game.actions.order_by("seq").values_list("seq", "created_at", "undone_at"))
    before = archive.export_archive(with_passwords=True)
    Game.objects.all().delete()
    archive.import_archive(before)
    rebuilt = Game.objects.get()
    assert rebuilt.seq == game.seq and rebuilt.action_payloads() == payloads
    assert list(rebuilt.actions.order_by("seq").values_list("seq", "created_at", "undone_at")) == times
    assert GameAction.objects.filter(game=rebuilt, undone_at__isnull=False).count() == 1
    assert (rebuilt.overlay_token, rebuilt.overlay_delay_seconds) == (game.overlay_token, 30)
    assert rebuilt.created_at == game.created_at and rebuilt.public_state == game.public_state
    after = archive.export_archive(with_passwords=True)
    for g in (*before["games"], *after["games"]):
        g.pop("id")
    assert after == before


@pytest.mark.django_db
def test_a_log_the_engine_refuses_is_not_imported_and_nothing_is_written(tmp_path):
    data = {
        "format": archive.FORMAT,
        "users": [{"username": "h"}],
        "games": [
            {"id": 7, "title": "Bad", "host": "h", "created_at": "2026-01-01T10:00:00+00:00", "seq": 2,
             "actions": [{"seq": 1, "payload": {"do": "seat", "players": PLAYERS}, "created_at": "2026-01-01T10:00:00+00:00"},
                         {"seq": 2, "payload": {"do": "vote_for_nobody"}, "created_at": "2026-01-01T10:01:00+00:00"}]},
        ],
        "tournaments": [],
    }  # fmt: skip
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CommandError) as refused:
        call_command("import_archive", str(path))
    assert "game 7 «Bad»: the engine refuses action 2" in str(refused.value) and "nothing was imported" in str(refused.value)
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_import_into_a_database_with_games_is_refused(host, tmp_path):
    played_game(host)
    path = tmp_path / "a.json"
    call_command("export_archive", str(path))
    with pytest.raises(CommandError, match="empty database"):
        call_command("import_archive", str(path))
    assert Game.objects.count() == 1 and not Tournament.objects.exists()


@pytest.mark.django_db
def test_not_an_archive_is_a_clear_error(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[1, 2")
    with pytest.raises(CommandError, match="not JSON"):
        call_command("import_archive", str(path))
    path.write_text('{"format": "something-else"}')
    with pytest.raises(CommandError, match="not an archive"):
        call_command("import_archive", str(path))


@pytest.mark.django_db
def test_a_tables_annulled_game_and_its_replay_both_come_back(host):
    from tournaments import services as tournament_services
    from tournaments.models import Round, Stage, Table

    t = tournament_services.tournament_create(name="Cup", organizer=host)
    stage = Stage.objects.create(tournament=t, name="S1", order=1)
    table = Table.objects.create(round=Round.objects.create(stage=stage, number=1), number=1, host=host)
    annulled, replay = played_game(host), played_game(host)
    table.game = replay
    table.save()
    table.annulled_games.add(annulled)  # W6: the annulled protocol stays in the tournament

    data = archive.export_archive()
    Tournament.objects.all().delete()
    Game.objects.all().delete()
    archive.import_archive(data)
    rebuilt = Table.objects.get()
    assert rebuilt.game is not None and list(rebuilt.annulled_games.all()) != [] and rebuilt.game not in rebuilt.annulled_games.all()
    assert Game.objects.count() == 2
