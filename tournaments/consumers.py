"""Read-only websocket consumer of the live standings (see tournaments/live.py).

On connect it sends the current standings (a snapshot), then every
`standings.update` of the group `tournament-<pk>-standings`, in the language
the page asked for (`?lang=`). Nothing is received from clients.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from tournaments import live, visibility
from tournaments.models import Tournament

CLOSE_NOT_FOUND = 4404


@database_sync_to_async  # type: ignore[untyped-decorator]
def _snapshot(tournament_id: int, user: Any) -> tuple[dict[str, str], bool] | None:
    """The first frame, and whether this client follows the live table (organizers and
    table hosts, tournaments.visibility) rather than the public one."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return None
    staff = visibility.sees_live_standings(tournament, user)
    return live.standings_fragments(tournament_id, public=not staff), staff


class StandingsConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        raw = self.scope.get("query_string", b"")
        query = parse_qs(raw.decode("latin1") if isinstance(raw, bytes) else str(raw))
        codes = [c for c, _n in settings.LANGUAGES]
        lang = (query.get("lang") or [""])[-1]
        self.lang = lang if lang in codes else settings.LANGUAGE_CODE
        found = await _snapshot(self.tournament_id, self.scope.get("user"))
        if found is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        snapshot, staff = found
        self.group = live.group_name(self.tournament_id, live=staff)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=self._pick(snapshot))

    async def disconnect(self, code: int) -> None:
        group = getattr(self, "group", "")
        if group:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # read-only

    async def standings_update(self, event: dict[str, Any]) -> None:
        await self.send(text_data=self._pick(event["html"]))

    def _pick(self, html: dict[str, str]) -> str:
        return html.get(self.lang) or html.get(settings.LANGUAGE_CODE) or next(iter(html.values()), "")


standings_socket = StandingsConsumer.as_asgi()
