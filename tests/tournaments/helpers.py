"""Builders for tournament tests.

- `scripted_game(...)`: a short legal protocol with a chosen N1 victim, best
  move, penalties and an ending, recorded through games.services like a host
  would (for hand-computed points).
- `play_random(table, rng)`: a random legal game from the engine's
  `legal_actions` (games.rules.simulate), stored in one go: the log is
  generated and replayed in memory, then written as the game's actions and
  projected by `game_rebuild_projection` (the same result rows the services
  write), which keeps a 20-game tournament in well under a second.
"""

from __future__ import annotations

import random
from typing import Any

from django.utils import timezone

from games import reading as game_reading
from games import services as game_services
from games.models import Game, GameAction
from games.rules import replay
from games.rules.simulate import random_game
from tournaments import services
from tournaments.models import Table


def scripted_log(
    *,
    sheriff: int = 1,
    don: int = 2,
    mafia: tuple[int, int] = (3, 4),
    n1_victim: int | None = None,
    best_move: list[int] | None = None,
    penalties: list[dict[str, Any]] | None = None,
    night_penalties: list[dict[str, Any]] | None = None,
    end: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The actions after `seat`: roles, N0, a silent Day 1, Night 1, then the ending.

    Day 1 has no nomination (nobody leaves); in N1 every black names
    `n1_victim` (or nobody: a miss); the victim leaves a best move if given;
    `night_penalties` come right after the shot (before the morning); then the `penalties` (e.g. {"do": "foul", "seat": 6}) and the `end`
    (default: ППК of black, i.e. red wins, W5).
    """
    blacks = [don, *mafia]
    log: list[dict[str, Any]] = [
        {"do": "roles", "sheriff": sheriff, "don": don, "mafia": list(mafia)},
        {"do": "start"},
        {"do": "next"},  # dogovorka
        {"do": "next"},  # free seating
    ]
    log += [{"do": "next"} for _ in range(10)]  # Day 1 speeches, no nomination: Night 1
    if n1_victim is None:
        log.append({"do": "next"})  # a miss
    else:
        log.append({"do": "shots", "by": {str(b): n1_victim for b in blacks}})
    log += night_penalties or []  # on the Don's check step, before the morning
    log.append({"do": "next"})  # Don's check: none
    log.append({"do": "next"})  # Sheriff's check: none
    if n1_victim is not None and not night_penalties:
        if best_move is not None:
            log.append({"do": "best_move", "seats": best_move})
        else:
            log.append({"do": "next"})
    log += penalties or []
    log.append(end or {"do": "ppk", "team": "black"})
    return log


def record(game: Game, actions: list[dict[str, Any]], by: Any = None) -> Game:
    for action in actions:
        game_services.game_record_action(game=game, action=action, expected_seq=game.seq, by=by or game.host)
    return game


def play_scripted(table: Table, by: Any = None, **kwargs: Any) -> Game:
    table.refresh_from_db()
    assert table.game_id, "start the round first"
    game = Game.objects.get(pk=table.game_id)
    return record(game, scripted_log(**kwargs), by)


def play_random(table: Table, rng: random.Random) -> Game:
    """A random legal game at `table` (its game must exist, seated)."""
    table.refresh_from_db()
    game = Game.objects.get(pk=table.game_id)
    state = game_reading.game_state(game)
    log = random_game(rng, state=state)
    actions = game.action_payloads() + log
    final = replay(actions, game_reading.game_regulations(game))
    GameAction.objects.bulk_create(
        GameAction(game=game, seq=game.seq + i, payload=a, created_by=game.host) for i, a in enumerate(log, start=1)
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


def seated_tournament(
    organizer: Any,
    hosts: list[Any],
    *,
    players: int = 20,
    rounds: int = 10,
    stages: int = 1,
    seed: str = "t",
    preset: str = "cristalix",
) -> Any:
    """A tournament with `players` participants and `stages` stages of `rounds` seated rounds, hosts assigned."""
    t = services.tournament_create(name="Test cup", organizer=organizer, preset=preset)
    services.participants_add(tournament=t, entries=[f"Player{i:02d}" for i in range(1, players + 1)])
    for s in range(stages):
        stage = services.stage_create(tournament=t)
        services.stage_generate_seating(stage=stage, rounds=rounds, seed=f"{seed}-{s}")
        for n, host in enumerate(hosts, start=1):
            services.stage_set_host(stage=stage, table_number=n, host=host)
    return t
