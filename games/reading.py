"""Reading games: the engine state and the log of a game, for every part.

The read-only parts (the board, the exports) take the state from here, never
from games.services, which is the write path. The state is memoized per
process by (game, revision): the revision changes with every recorded or undone
action, so a cached state is never stale, and a worker that missed a change
simply replays.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from games import clock
from games.models import Game
from games.rules import GameState, Regulations, replay_as_recorded
from games.vocabulary import clock_text


def game_regulations(game: Game) -> Regulations:
    return Regulations.from_dict(game.regulations) if game.regulations else Regulations()


def game_state(game: Game) -> GameState:
    """The engine state of a game at its current revision.

    A replay of its active actions, memoized (see the module's docstring).
    Callers get a copy, so nobody can alter the cached one. A stored action
    that today's rules refuse (a log recorded under an earlier reading,
    issue 21) is skipped, not fatal: the game stays readable (see
    games.rules.replay_as_recorded).
    """
    key = _state_key(game)
    cached = _STATE_CACHE.get(key)
    if cached is None:
        cached = replay_stored(game.action_payloads(), game_regulations(game))
        _remember_state(key, cached)
    return cached.copy()


def replay_stored(actions: list[dict[str, Any]], regulations: Regulations) -> GameState:
    """The state of a stored log: actions today's rules refuse are skipped."""
    state, _refused = replay_as_recorded(actions, regulations)
    return state


def game_export_log(*, game: Game) -> dict[str, Any]:
    """The protocol log of FORMAT.md."""
    return {
        "format": "mafia-protocol-log/1",
        "name": game.title or f"game-{game.pk}",
        "actions": game.action_payloads(),
    }


_STATE_CACHE: OrderedDict[tuple[int, int, float], GameState] = OrderedDict()
_STATE_CACHE_SIZE = 256


def _state_key(game: Game) -> tuple[int, int, float]:
    # created_at tells apart two games that got the same pk (SQLite may reuse
    # the pk of a deleted game); seq tells apart two revisions of one game.
    return (game.pk, game.seq, game.created_at.timestamp() if game.created_at else 0.0)


def _remember_state(key: tuple[int, int, float], state: GameState) -> None:
    _STATE_CACHE[key] = state
    _STATE_CACHE.move_to_end(key)
    while len(_STATE_CACHE) > _STATE_CACHE_SIZE:
        _STATE_CACHE.popitem(last=False)


def tech_pause_start(game: Game) -> dict[str, Any] | None:
    """The technical pause (D7) the log ends with: {"seat", "started_at"}, or None.

    A pause runs from its `tech_pause` action while that is the last active
    action of the log (it depends only on the revision, so a reader may
    cache it with the revision: the board does).
    """
    if game.status != "running":
        return None
    last = game.actions.filter(undone_at__isnull=True).order_by("-seq").values_list("payload", "created_at").first()
    if last is None or not isinstance(last[0], dict) or last[0].get("do") != "tech_pause":
        return None
    return {"seat": last[0].get("seat"), "started_at": last[1]}


def running_tech_pause(
    game: Game, now: datetime | None = None, start: dict[str, Any] | None | bool = True
) -> dict[str, Any] | None:
    """The technical pause (D7) running now, or None.

    It runs for the regulations' tech_pause seconds from its start
    (`tech_pause_start`; pass `start` when it is already known) unless the
    host ended it early (`Game.tech_pause_ended_at`). The seat is public:
    the player asks for the pause aloud.
    """
    begun = tech_pause_start(game) if start is True else start
    if not isinstance(begun, dict) or game.status != "running":
        return None
    now = now or timezone.now()
    duration_ms = game_regulations(game).tech_pause * 1000
    remaining = clock.tech_pause_remaining_ms(begun["started_at"], game.tech_pause_ended_at, duration_ms, now)
    if remaining <= 0:
        return None
    return {
        "seat": begun["seat"],
        "remaining_ms": remaining,
        "deadline": now + timedelta(milliseconds=remaining),
        "text": clock_text(remaining),
    }
