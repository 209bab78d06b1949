"""The host's websocket: `game-<pk>-host` events (a proposal arrived, a post failed).

Only the game's host (or its tournament's organizers) may join; the frames
carry no content, only "something changed": the page fetches the panel over
HTTP with the same permission check. No public consumer ever joins this group.
"""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from discord_bridge.services import host_group
from games.models import Game
from games.permissions import user_can_edit_game

CLOSE_FORBIDDEN = 4403


@database_sync_to_async  # type: ignore[untyped-decorator]
def _may_join(user: Any, game_id: int) -> bool:
    game = Game.objects.filter(pk=game_id).first()
    return game is not None and user_can_edit_game(user, game)


class HostConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    group = ""

    async def connect(self) -> None:
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        if not await _may_join(self.scope.get("user"), game_id):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.group = host_group(game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # nothing is taken from clients

    async def discord_event(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({"event": message.get("event", ""), "id": message.get("id")}))


host_socket = HostConsumer.as_asgi()
