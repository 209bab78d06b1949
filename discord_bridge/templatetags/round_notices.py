"""`{% round_notices round user %}`: the round page's «разослать рассадку в Discord» (issue 29, chore 8),
for the tournament's organizers only."""

from __future__ import annotations

from typing import Any

from django import template

from discord_bridge import round_notices as notices
from tournaments.models import Round

register = template.Library()


@register.inclusion_tag("discord_bridge/round_notices.html")
def round_notices(rnd: Round, user: Any) -> dict[str, Any]:
    if not rnd.stage.tournament.is_organizer(user):
        return {"hidden": True}
    return {"round": rnd, **notices.summary(rnd)}
