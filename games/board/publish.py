"""Post-commit notification of game changes (see games/signals.py)."""

import logging

from games.signals import game_changed

log = logging.getLogger(__name__)


def publish_game_changed(game_id: int, seq: int, status: str = "", clock_only: bool = False) -> None:
    # A failing receiver (a channel layer that is down, say) must never turn
    # a committed host action into an error page: the action is durable.
    for receiver, result in game_changed.send_robust(sender=None, game_id=game_id, seq=seq, status=status, clock_only=clock_only):
        if isinstance(result, Exception):
            log.warning("game_changed receiver %r failed: %s", receiver, result, exc_info=result)
