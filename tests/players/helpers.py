"""Builders for players tests: named players, scripted and random games."""

from __future__ import annotations

import json
import random
from typing import Any

from django.utils import timezone

from games import reading as game_reading
from games import services as game_services
from games.models import Game, GameAction
from games.rules import replay
from games.rules.simulate import random_game
from players import services as player_services
from players.models import Player, PlayerStats
from tests.conftest import EXAMPLES_DIR
from tests.tournaments.helpers import record, scripted_log

NAMES = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett"]


def trusted(host: Any) -> Any:
    """Give `host` the right to run rated casual games (players.trust): only
    then does marking his games rated count them (issue 22)."""
    from django.contrib.auth.models import Permission

    host.user_permissions.add(Permission.objects.get(content_type__app_label="games", codename="host_rated_games"))
    return host


def make_players(names: list[str] = NAMES) -> dict[str, Player]:
    return {n: player_services.player_create(nickname=n) for n in names}


def import_example(host: Any, name: str, *, rated: bool = True) -> Game:
    data = json.loads((EXAMPLES_DIR / f"{name}.json").read_text(encoding="utf-8"))
    game = game_services.game_create(host=host, title=name)
    if rated:
        trusted(host)
        game_services.game_set_rated(game=game, rated=True)
    actions = [a for a in data["actions"] if a.get("do") != "expect" and not a.get("reject")]
    return record(game, actions, host)


def scripted_game(host: Any, players: list[str], *, rated: bool = True, **kwargs: Any) -> Game:
    """Seated with `players` (seat order), roles sheriff 1, don 2, mafia 3 and 4 by default;
    ends by ППК of black (red wins) unless `end` says otherwise."""
    game = game_services.game_create(host=host, title="scripted", players=players)
    if rated:
        trusted(host)
        game_services.game_set_rated(game=game, rated=True)
    return record(game, scripted_log(**kwargs), host)


RED_WINS = {"do": "ppk", "team": "black"}
BLACK_WINS = {"do": "ppk", "team": "red"}


def random_finished_game(host: Any, players: list[str], rng: random.Random, *, rated: bool = True) -> Game:
    """A random legal game among `players`, stored in one go and projected by the
    services (the result rows and the players' hook as on a real end)."""
    game = game_services.game_create(host=host, title="random", players=players)
    if rated:
        trusted(host)
        game_services.game_set_rated(game=game, rated=True)
    state = game_reading.game_state(game)
    log = random_game(rng, state=state)
    final = replay(game.action_payloads() + log, game_reading.game_regulations(game))
    GameAction.objects.bulk_create(
        GameAction(game=game, seq=game.seq + i, payload=a, created_by=host) for i, a in enumerate(log, start=1)
    )
    public = final.public_dict()
    Game.objects.filter(pk=game.pk).update(
        seq=game.seq + len(log),
        status=public["status"],
        winner=public["winner"] or "",
        ppk=public["ppk"] or "",
        public_state=public,
        finished_at=timezone.now() if public["status"] in ("finished", "annulled") else None,
    )
    game.refresh_from_db()
    game_services.game_rebuild_projection(game=game)
    return game


def snapshot() -> list[tuple[Any, ...]]:
    """Every stored total, for comparing two ways of getting there."""
    from players.models import PlayerGame, PlayerMonth, RatedGame
    from players.statistics import COUNTERS

    stats = sorted(
        (s.player_id, s.rating, s.rated_games, *(getattr(s, n) for n in COUNTERS)) for s in PlayerStats.objects.all()
    )
    games = sorted(
        PlayerGame.objects.values_list(
            "player_id", "game_id", "rating_before", "rating_after", "rated", "line__games", "line__wins"
        )
    )
    rated = sorted(RatedGame.objects.values_list("game_id", "base_rate", "red_delta", "games_after", "red_score_after"))
    months = sorted(
        PlayerMonth.objects.values_list("player_id", "month", "rated_games", "rating_first", "rating_last", *COUNTERS)
    )
    return [tuple(stats), tuple(games), tuple(rated), tuple(months)]


def rating(player: Player) -> float | None:
    s = PlayerStats.objects.filter(player=player).first()
    return s.rating if s else None
