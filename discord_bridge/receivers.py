"""Reacts to game changes (games.signals.game_changed): tells the host's panel to refresh.

The candidates line (V2) is posted after the V1 line (services.line_posted), not when the vote begins."""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from games.signals import game_changed

log = logging.getLogger(__name__)


@receiver(game_changed, dispatch_uid="discord_bridge.candidates")
def on_game_changed(sender: Any, game_id: int, clock_only: bool = False, **kwargs: Any) -> None:
    if clock_only:
        return
    from discord_bridge import services
    from discord_bridge.models import DiscordLink
    from games.models import Game

    if not DiscordLink.objects.filter(game_id=game_id).exists():
        return
    game = Game.objects.filter(pk=game_id).first()
    if game is not None:
        services.push_to_host(game_id, {"event": "game_changed"})
