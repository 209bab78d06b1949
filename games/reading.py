"""Reading games: the engine state and the log of a game, for every part.

The read-only parts (the board, the exports) take the state from here, never
from games.services, which is the write path. The state is memoized per
process by (game, revision): the revision changes with every recorded or undone
action, so a cached state is never stale, and a worker that missed a change
simply replays.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from games.models import Game
from games.rules import GameState, Regulations, replay


def game_regulations(game: Game) -> Regulations:
    return Regulations.from_dict(game.regulations) if game.regulations else Regulations()


def game_state(game: Game) -> GameState:
    """The engine state of a game at its current revision.

    A replay of its active actions, memoized (see the module's docstring).
    Callers get a copy, so nobody can alter the cached one.
    """
    key = _state_key(game)
    cached = _STATE_CACHE.get(key)
    if cached is None:
        cached = replay(game.action_payloads(), game_regulations(game))
        _remember_state(key, cached)
    return cached.copy()


def game_export_log(*, game: Game) -> dict[str, Any]:
    """The protocol log of FORMAT.md."""
    return {"format": "mafia-protocol-log/1", "name": game.title or f"game-{game.pk}", "actions": game.action_payloads()}


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
