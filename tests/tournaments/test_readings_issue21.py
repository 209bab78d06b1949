"""Issue 21 in a tournament: RULES W1 INTERP — the N1 shot that decides the
game keeps the red victim's best move, so he keeps his best-move points and
his Ci (N10); RULES N7 — a best move naming nobody brings no points."""

from __future__ import annotations

import pytest

from games import reading as game_reading
from games.models import Game, SeatResult
from tests.tournaments.helpers import record, seated_tournament
from tournaments.models import Table, TableSeat
from tournaments.standings import game_seat_scores

pytestmark = pytest.mark.django_db


def _game(table: Table) -> Game:
    table.refresh_from_db()
    return Game.objects.get(pk=table.game_id)


def _speeches(game: Game) -> None:
    while True:
        game.refresh_from_db()
        if game_reading.game_state(game).step != "speech":
            return
        record(game, [{"do": "next"}])


def test_w1_deciding_n1_shot_red_victim_keeps_best_move_points_and_ci(host):
    t = seated_tournament(host, [host], players=10, rounds=1)
    from tournaments import services

    services.round_start_games(round=t.stages.get().rounds.get(), by=host)
    table = Table.objects.get(round__stage__tournament=t)
    seat = TableSeat.objects.get(table=table, participant__nickname="Player05").seat_no
    others = [s for s in range(1, 11) if s != seat]
    sheriff, don, mafia = others[0], others[1], others[2:4]
    reds_to_remove = others[4:7]  # three reds technically removed on Day 1: 3 blacks v 4 reds
    game = _game(table)
    record(
        game,
        [
            {"do": "roles", "sheriff": sheriff, "don": don, "mafia": mafia},
            {"do": "start"},
            {"do": "next"},
            {"do": "next"},
        ],
    )
    record(game, [{"do": "remove", "seat": s} for s in reds_to_remove])
    _speeches(game)
    record(game, [{"do": "shots", "by": {str(b): seat for b in (don, *mafia)}}])  # 3 v 3: black wins at the shot
    game.refresh_from_db()
    state = game_reading.game_state(game)
    assert (state.winner, state.step) == ("black", "best_move")  # W1 INTERP: his best move is held
    record(game, [{"do": "best_move", "seats": [don, *mafia]}, {"do": "next"}])
    game.refresh_from_db()
    assert game.status == "finished"
    row = SeatResult.objects.get(game=game, seat_no=seat)
    assert (row.first_night_victim, row.best_move_accepted, row.best_move_blacks, row.won) == (True, True, 3, False)
    scores = game_seat_scores(game)[seat]
    # cristalix preset: a loss 0 + three blacks 0.5 + first Ci 0.5
    assert (scores["best_move"], scores["ci"], scores["points"]) == (0.5, 0.5, 1.0)


def test_n7_best_move_naming_nobody_brings_no_points(host):
    t = seated_tournament(host, [host], players=10, rounds=1)
    from tournaments import services

    services.round_start_games(round=t.stages.get().rounds.get(), by=host)
    table = Table.objects.get(round__stage__tournament=t)
    seat = TableSeat.objects.get(table=table, participant__nickname="Player05").seat_no
    others = [s for s in range(1, 11) if s != seat]
    game = _game(table)
    record(
        game,
        [
            {"do": "roles", "sheriff": others[0], "don": others[1], "mafia": others[2:4]},
            {"do": "start"},
            {"do": "next"},
            {"do": "next"},
        ],
    )
    _speeches(game)
    record(
        game,
        [
            {"do": "shots", "by": {str(b): seat for b in others[1:4]}},
            {"do": "next"},
            {"do": "next"},
            {"do": "best_move", "seats": []},
            {"do": "ppk", "team": "black"},
        ],
    )
    row = SeatResult.objects.get(game=game, seat_no=seat)
    assert (row.best_move_accepted, row.best_move_blacks) == (False, 0)
    scores = game_seat_scores(game)[seat]
    assert (scores["best_move"], scores["ci"]) == (0.0, 0.5)
