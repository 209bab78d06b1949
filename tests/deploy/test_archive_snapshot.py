"""A backup taken while a host plays is one consistent snapshot (issue 27-1).

Before: the export read the games and their actions in separate queries, so
an action recorded between them gave `game 3: seq 50 but actions+undos 51`
and an archive the import refused. Here the host's action is committed from
another connection exactly between the export's first query and its read of
the actions. Needs a database that other connections share: PostgreSQL, or
SQLite in a file (SQLITE_TEST_NAME); Django's in-memory test SQLite skips.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import services
from games.models import Game
from tournaments import archive

PLAYERS = [f"P{i}" for i in range(1, 11)]


def games_and_actions(data):
    if "tables" in data:  # format /2
        actions = data["tables"]["games.gameaction"]
        return [(g["id"], g["seq"], [a for a in actions if a["game"] == g["id"]]) for g in data["tables"]["games.game"]]
    return [(g["id"], g["seq"], g["actions"]) for g in data["games"]]  # format /1


@pytest.mark.django_db(transaction=True)
def test_an_export_while_a_host_plays_is_one_snapshot(host):
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("in-memory SQLite is not shared with another connection: set SQLITE_TEST_NAME or DATABASE_URL")
    game = services.game_create(host=host, title="Live", players=PLAYERS)
    services.game_record_action(
        game=game, action={"do": "roles", "sheriff": 1, "don": 2, "mafia": [3, 4]}, expected_seq=game.seq, by=host
    )
    services.game_undo_last_action(game=game, expected_seq=game.seq, by=host)
    raced: list[int] = []

    def host_acts() -> None:
        try:
            live = Game.objects.get(pk=game.pk)
            services.game_record_action(
                game=live,
                action={"do": "roles", "sheriff": 5, "don": 6, "mafia": [7, 8]},
                expected_seq=live.seq,
                by=host,
            )
            raced.append(live.seq)
        finally:
            connection.close()

    def between_reads(execute, sql, params, many, context):
        if not raced and "games_gameaction" in sql and sql.lstrip().upper().startswith("SELECT"):
            writer = threading.Thread(target=host_acts)
            writer.start()
            writer.join(30)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(between_reads):
        data = archive.export_archive()
    assert raced, "the host's action was not recorded during the export"
    for game_id, seq, actions in games_and_actions(data):
        undone = sum(1 for a in actions if a["undone_at"])
        assert seq == len(actions) + undone, f"game {game_id}: seq {seq} but actions+undos {len(actions) + undone}"
    assert Game.objects.get(pk=game.pk).seq == raced[0]  # the action itself was recorded, after the snapshot
