"""Post-commit notification of game changes (see games/signals.py)."""

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from games.signals import game_changed

log = logging.getLogger(__name__)


_suppressed = threading.local()


@contextmanager
def broadcasts_suppressed() -> Iterator[None]:
    """No game_changed notifications from this thread inside the block.

    For bulk writes nobody watches (an archive imported into an empty
    database): otherwise every replayed action renders a board frame.
    Wrap the whole transaction: notifications run when it commits.
    """
    before = getattr(_suppressed, "on", False)
    _suppressed.on = True
    try:
        yield
    finally:
        _suppressed.on = before


def publish_game_changed(
    game_id: int, seq: int, status: str = "", clock_only: bool = False, public: bool = True
) -> None:
    """`public`: the public facts changed (games.board.public); False for a
    change only the host and the overlay see (a night action, say)."""
    if getattr(_suppressed, "on", False):
        return
    # A failing receiver (a channel layer that is down, say) must never turn
    # a committed host action into an error page: the action is durable.
    for receiver, result in game_changed.send_robust(
        sender=None, game_id=game_id, seq=seq, status=status, clock_only=clock_only, public=public
    ):
        if isinstance(result, Exception):
            log.warning("game_changed receiver %r failed: %s", receiver, result, exc_info=result)
