"""One finished game's rows as the services leave them: the game, its seats, its result rows.

Shared by the benchmarks that fill a database with many finished games (ratings.py,
decisions.py); imported after their `django.setup()`."""

from __future__ import annotations

from games.models import Game, GameSeat, GameStatus
from games.rules import GameState
from games.services import _write_results


def store_finished_game(
    host: object, state: GameState, names: list[str], ids: list[int] | list[int | None], at: object
) -> Game:
    public = state.public_dict()
    game = Game.objects.create(
        host=host,
        title="bench",
        status=GameStatus.FINISHED,
        winner=public["winner"] or "",
        ppk=public["ppk"] or "",
        finished_at=at,
        rated=True,
        public_state={},
    )
    GameSeat.objects.bulk_create(
        GameSeat(game=game, seat_no=i, nickname=names[i - 1], role=state.roles.get(i, "civilian"), player_id=ids[i - 1])
        for i in range(1, 11)
    )
    state.players = names  # the result rows carry the seat's nickname
    _write_results(game, state)
    return game
