"""Live standings: a finished tournament game pushes the new standings.

`on_game_changed` receives games.signals.game_changed (sent after commit).
When a tournament game finishes or is annulled — or a game counted before is
reopened by an undo (Table.counted) — the standings are rendered once per
language and sent to the Channels group `tournament-<pk>-standings`, message
type `standings.update`; each consumer writes the fragment of its language.
The database stays the truth: a client that reconnects gets a fresh snapshot.

Two groups: the public one gets the public standings (tournaments.visibility:
with hidden results, only the rounds the public may see), and only when their
content changed since the last public frame (a digest kept on the tournament
row, so every worker agrees) — a later game finishing while the results are
hidden sends nothing at all, not even an identical frame. The staff group
(`…-standings-live`: organizers and table hosts) gets the live table on every
change.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from tournaments.models import Table, Tournament

log = logging.getLogger(__name__)

MESSAGE_TYPE = "standings.update"


def group_name(tournament_id: int, *, live: bool = False) -> str:
    return f"tournament-{tournament_id}-standings" + ("-live" if live else "")


def on_game_changed(
    sender: Any = None, *, game_id: int, seq: int = 0, status: str = "", clock_only: bool = False, **kwargs: Any
) -> None:
    if clock_only:
        return
    table = (
        Table.objects.filter(game_id=game_id)
        .select_related("round__stage")
        .only("pk", "counted", "round__stage__tournament_id")
        .first()
    )
    if table is None:
        return
    counted = status == "finished"
    if not counted and status != "annulled" and not table.counted:
        return  # a running game that never counted: nothing changed in the standings
    if table.counted != counted:
        Table.objects.filter(pk=table.pk).update(counted=counted)
    push_standings(table.round.stage.tournament_id)


def standings_fragments(tournament_id: int, *, public: bool = True) -> dict[str, str]:
    """The overall standings fragment in every language of the site (`public`: as the
    public sees them; otherwise the live table organizers and table hosts see)."""
    from tournaments import standings as st

    tournament = Tournament.objects.get(pk=tournament_id)
    data = st.compute(tournament, public=public)
    out: dict[str, str] = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            out[code] = render_to_string(
                "tournaments/standings.html#standings-table",
                {"tournament": tournament, "standings": data, "stage": None, "live": True},
            )
    return out


def _digest(html: dict[str, str]) -> str:
    return hashlib.sha256("\x00".join(html[k] for k in sorted(html)).encode()).hexdigest()


def push_standings(tournament_id: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        public = standings_fragments(tournament_id, public=True)
        digest = _digest(public)
        # Only the worker whose UPDATE changes the stored digest sends the public frame.
        changed = (
            Tournament.objects.filter(pk=tournament_id)
            .exclude(public_standings_digest=digest)
            .update(public_standings_digest=digest)
        )
        if changed:
            async_to_sync(layer.group_send)(group_name(tournament_id), {"type": MESSAGE_TYPE, "html": public})
        hidden = Tournament.objects.filter(pk=tournament_id, standings_frozen_after__isnull=False).exists()
        staff = standings_fragments(tournament_id, public=False) if hidden else public
        async_to_sync(layer.group_send)(group_name(tournament_id, live=True), {"type": MESSAGE_TYPE, "html": staff})
    except Exception:  # the channel layer may be down; the action is durable and clients re-fetch
        log.warning("standings push for tournament %s failed", tournament_id, exc_info=True)
