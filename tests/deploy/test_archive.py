"""export_archive / import_archive in-process: passwords, secrets, undos, ids (issues 15, 27).

The exact SQLite -> PostgreSQL round trip of the demo database is
test_archive_roundtrip.py.
"""

from __future__ import annotations

import io
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
    payloads, times = (
        game.action_payloads(),
        list(game.actions.order_by("seq").values_list("seq", "created_at", "undone_at")),
    )
    before = archive.export_archive(with_passwords=True, with_secrets=True)
    Game.objects.all().delete()
    archive.import_archive(before)
    rebuilt = Game.objects.get()
    assert rebuilt.seq == game.seq and rebuilt.action_payloads() == payloads
    assert list(rebuilt.actions.order_by("seq").values_list("seq", "created_at", "undone_at")) == times
    assert GameAction.objects.filter(game=rebuilt, undone_at__isnull=False).count() == 1
    assert (rebuilt.overlay_token, rebuilt.overlay_delay_seconds) == (game.overlay_token, 30)
    assert rebuilt.created_at == game.created_at and rebuilt.public_state == game.public_state
    assert rebuilt.pk == game.pk  # the same id: /games/<id>/ links keep working
    after = archive.export_archive(with_passwords=True, with_secrets=True)
    for a in (before, after):
        a.pop("exported_at")
    assert after == before


def v1_archive(actions):
    """A format /1 archive (earlier commits) of one game with `actions` recorded, as they were."""
    return {
        "format": "mafia-protocol-archive/1",
        "users": [{"username": "h"}],
        "games": [
            {"id": 7, "title": "Old", "host": "h", "created_at": "2026-01-01T10:00:00+00:00", "seq": len(actions),
             "actions": [{"seq": i, "payload": a, "created_at": f"2026-01-01T10:{i:02d}:00+00:00", "created_by": "h"} for i, a in enumerate(actions, start=1)]},
        ],
        "tournaments": [],
    }  # fmt: skip


@pytest.mark.django_db
def test_a_log_todays_rules_refuse_is_imported_as_recorded_and_flagged(tmp_path):
    # Issue 27-2: the earlier import replayed through the engine and refused the whole archive.
    path = tmp_path / "old.json"
    path.write_text(
        json.dumps(
            v1_archive(
                [
                    {"do": "seat", "players": PLAYERS},
                    {"do": "vote_for_nobody"},
                    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
                ]
            )
        )
    )
    out = io.StringIO()
    call_command("import_archive", str(path), stdout=out)
    game = Game.objects.get()
    assert game.pk == 7 and game.seq == 3
    assert [a.payload["do"] for a in game.actions.order_by("seq")] == [
        "seat",
        "vote_for_nobody",
        "roles",
    ]  # the log as recorded
    assert "game 7: imported as recorded; today's rules would refuse action 2 (FORMAT:" in out.getvalue()
    assert game.status == "setup" and game.seats.count() == 10  # today's reading of the rest
    assert dict(game.seats.filter(seat_no__in=(1, 2)).values_list("seat_no", "role")) == {1: "sheriff", 2: "don"}


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
    assert (
        rebuilt.game is not None
        and list(rebuilt.annulled_games.all()) != []
        and rebuilt.game not in rebuilt.annulled_games.all()
    )
    assert Game.objects.count() == 2


@pytest.mark.django_db
def test_logs_recorded_under_the_old_readings_import_whole_and_read_by_todays(tmp_path):
    """Issue 27-2 with issue 21's readings: an old N7 log (a best move naming nobody, then
    «принят, чёрных: 0») and an old F18 log (a 4th foul for vote retraction, then a removal)
    import as recorded; the F18 foul is flagged, and both read by today's rules."""
    from games.reading import game_state
    from tests.tournaments.helpers import scripted_log

    setup = [{"do": "seat", "players": PLAYERS}]
    n7 = setup + scripted_log(n1_victim=5, best_move=[])
    fouls = [{"do": "foul", "seat": 6}] * 3 + [{"do": "foul", "seat": 6, "reason": "vote_retraction"}]
    f18 = setup + scripted_log(penalties=fouls)
    for name, log in (("n7", n7), ("f18", f18)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(v1_archive(log)))
        out = io.StringIO()
        call_command("import_archive", str(path), stdout=out)
        game = Game.objects.get()
        assert [a.payload for a in game.actions.order_by("seq")] == log  # as recorded, nothing dropped
        state = game_state(game)
        if name == "n7":
            assert state.best_move is None and "would refuse" not in out.getvalue()  # N7 today: not accepted
        else:
            assert f"today's rules would refuse action {len(log) - 1} (F18" in out.getvalue()
            assert 6 in state.at_table  # today the 4th foul is refused: nobody removed
        assert game.status == "finished"  # the ППК after them ends the game by either reading
        Game.objects.all().delete()
