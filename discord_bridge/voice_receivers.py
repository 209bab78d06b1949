"""The voice chores follow the game (issue 29): each committed change re-plans who is muted.

Clock-only changes count too: a D7 pause ended early by the host is clock state.
A link saved (seats picked mid-Night, a member or channel proven) re-plans as well."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from discord_bridge.models import DiscordLink
from games.signals import game_changed
from tournaments.signals import round_seating_changed

log = logging.getLogger(__name__)


@receiver(game_changed, dispatch_uid="discord_bridge.voice")
def on_game_changed(sender: Any, game_id: int, **kwargs: Any) -> None:
    from discord_bridge import voice_services

    voice_services.plan(game_id)
    voice_services.post_draw(game_id)
    voice_services.plan_invites(game_id)
    voice_services.plan_mafia_channel(game_id)


@receiver(post_save, sender=DiscordLink, dispatch_uid="discord_bridge.voice_link")
def on_link_saved(sender: Any, instance: DiscordLink, **kwargs: Any) -> None:
    from discord_bridge import voice_services

    game_id = instance.game_id

    def replan() -> None:
        # A link saved or a member or channel proven (issue 25-8): the chores that go to
        # proven members only are planned again.
        voice_services.plan(game_id)
        voice_services.post_draw(game_id)
        voice_services.plan_invites(game_id)

    transaction.on_commit(replan)


@receiver(round_seating_changed, dispatch_uid="discord_bridge.round_notices")
def on_round_seating_changed(sender: Any, round_ids: list[int], **kwargs: Any) -> None:
    """Chore 8: a published round's participants get a correction of what changed for them."""
    from discord_bridge import round_notices

    for round_id in round_ids:
        round_notices.refresh(round_id)
