"""An archive restores everything with the same ids, from today's commit and from an earlier one (issue 27-2, 27-3).

The fixture fixtures/archive-v1-200f60c.json was written by `export_archive`
at commit 200f60c (format /1, no version recorded): its demo database
(`demo_data`), two random games of that engine and a game with an undo and an
overlay. Its demo tournament's games name a candidate again in one speech,
which hosts could do then (D4's check came later): today's head refused the
whole archive («the engine refuses action 39 (D4: … already named seat 9 …)»).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from discord_bridge.models import DiscordLink
from games import services
from games.models import Game, GameAction, GameSeat, SeatResult
from players import services as player_services
from players.models import Alias, Player, PlayerMerge, PlayerStats
from tests.players.helpers import trusted
from tournaments import archive
from tournaments.models import Participant, Table, Tournament

FIXTURE = Path(__file__).parent / "fixtures" / "archive-v1-200f60c.json"
PLAYERS = [f"Игрок {i}" for i in range(1, 11)]
FINISH = [
    {"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]},
    {"do": "start"},
    {"do": "ppk", "team": "black", "seat": 2},
]


def wipe():
    """Empty every archived table (children first), as a fresh database is."""
    for spec in reversed(archive.SPECS):
        spec.model._default_manager.all().delete()


@pytest.mark.django_db
def test_an_archive_of_an_earlier_commit_imports_every_game_with_its_id(tmp_path):
    data = json.loads(FIXTURE.read_text())
    out = io.StringIO()
    call_command("import_archive", str(FIXTURE), stdout=out)
    assert sorted(Game.objects.values_list("pk", flat=True)) == [g["id"] for g in data["games"]]
    for record in data["games"]:
        game = Game.objects.get(pk=record["id"])
        assert game.title == record["title"] and game.seq == record["seq"]
        stored = [
            (a.seq, a.payload, a.created_at.isoformat(), a.undone_at.isoformat() if a.undone_at else None)
            for a in game.actions.order_by("seq")
        ]
        assert stored == [
            (a["seq"], a["payload"], a["created_at"], a["undone_at"]) for a in record["actions"]
        ]  # as recorded
        assert game.overlay_token == record["overlay"]["token"]
    finished = Game.objects.filter(status="finished")
    assert finished.count() >= 3 and SeatResult.objects.filter(game__in=finished).count() == 10 * finished.count()
    tournament = Tournament.objects.get()
    assert {t.game_id for t in Table.objects.filter(round__stage__tournament=tournament)} >= {3, 4}
    assert "archive mafia-protocol-archive/1 of before format /2" in out.getvalue()

    # Exported again at today's format and restored into an empty database: the same.
    again = archive.export_archive(with_passwords=True, with_secrets=True)
    wipe()
    archive.import_archive(again, allow_superusers=True)
    twice = archive.export_archive(with_passwords=True, with_secrets=True)
    again.pop("exported_at"), twice.pop("exported_at")
    assert twice == again


def played(host, title, players=PLAYERS):
    game = services.game_create(host=host, title=title, players=players)
    for action in FINISH:
        services.game_record_action(game=game, action=action, expected_seq=game.seq, by=host)
    return Game.objects.get(pk=game.pk)


@pytest.mark.django_db
def test_everything_comes_back_with_the_same_ids_and_ratings_are_rebuilt(host, django_user_model):
    from tournaments import services as tournament_services

    doomed = played(host, "deleted")
    first, second = played(host, "first"), played(host, "second")
    doomed.delete()  # a gap in the ids: the restored ids must not close it
    services.game_set_rated(game=first, rated=True)
    trusted(host)  # his rated games count (issue 22); the right travels with the archive
    player_services.link_existing(create_missing=True)
    keeper, duplicate = Player.objects.order_by("pk")[:2]
    keeper.club, keeper.discord_user_id = "Клуб", "123456789"
    keeper.save()
    player_services.player_rename(player=keeper, nickname="Новое имя")
    player_services.player_merge(duplicate=duplicate, into=keeper, by=host)
    Game.objects.filter(pk=second.pk).update(tech_pause_ended_at=second.created_at)
    DiscordLink.objects.create(
        game=second,
        guild_id=1,
        text_channel_id=2,
        voice_channel_id=3,
        webhook_url="https://discord.com/api/webhooks/1/secret",
        seats={"1": 42},
    )
    t = tournament_services.tournament_create(name="Cup", organizer=host)
    Participant.objects.create(tournament=t, nickname="Новое имя", player=keeper)

    def picture():
        return {
            "games": list(
                Game.objects.order_by("pk").values_list(
                    "pk", "title", "rated", "tech_pause_ended_at", "status", "overlay_token"
                )
            ),
            "seats": list(
                GameSeat.objects.order_by("game_id", "seat_no").values_list(
                    "game_id", "seat_no", "nickname", "player_id"
                )
            ),
            "actions": list(GameAction.objects.order_by("pk").values_list("pk", "game_id", "seq", "created_at")),
            "players": list(Player.objects.order_by("pk").values_list("pk", "nickname", "club", "discord_user_id")),
            "aliases": list(Alias.objects.order_by("pk").values_list("player_id", "nickname")),
            "merges": list(
                PlayerMerge.objects.values_list("kept_id", "merged_player_id", "merged_nickname", "by__username")
            ),
            "stats": list(
                PlayerStats.objects.order_by("player_id").values_list("player_id", "games", "rating", "rated_games")
            ),
            "tournaments": list(Tournament.objects.values_list("pk", "name")),
            "participants": list(Participant.objects.values_list("pk", "player_id")),
            "discord": list(DiscordLink.objects.values_list("game_id", "guild_id", "voice_channel_id", "seats")),
        }

    from players.book import recompute

    recompute()
    before = picture()
    assert before["stats"] and any(r[3] for r in before["stats"])  # a rated game counted
    plain = archive.export_archive()
    assert "webhooks/1/secret" not in json.dumps(plain)  # webhook URLs and overlay tokens only --with-secrets
    assert all("overlay_token" not in g for g in plain["tables"]["games.game"])
    secret = archive.export_archive(with_secrets=True)
    wipe()
    report = archive.import_archive(secret)
    assert picture() == before  # ids, players, aliases, merges, rated, tech pause, links, ratings
    assert DiscordLink.objects.get().webhook_url.endswith("/secret")
    assert not report.flagged

    new = services.game_create(host=host, title="after the import")
    assert new.pk > second.pk  # the sequences moved past the restored ids (PostgreSQL; SQLite by itself)
    if connection.vendor == "postgresql":
        assert Player.objects.create(nickname="Новый", key="новый").pk > max(p[0] for p in before["players"])

    wipe()
    archive.import_archive(plain)
    assert DiscordLink.objects.get().webhook_url == "" and Game.objects.get(pk=first.pk).rated
