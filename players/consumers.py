"""Read-only websocket of the live leaderboard.

The leaderboard has filters (season, tab, minimum games), so the server does
not render it for everybody: it says "changed" to the group `ratings` after a
commit that changed stored ratings, and each page re-fetches its own fragment
(static/js/ratings.js). On connect it says hello. Nothing is received.
"""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer

from mafia_protocol.push import notify_group

GROUP = "ratings"
MESSAGE_TYPE = "ratings.changed"


def push_ratings_changed() -> None:
    """After a commit that changed stored ratings: every game's end, off the
    host's click under the server (mafia_protocol.push)."""
    notify_group(GROUP, {"type": MESSAGE_TYPE})


class RatingsConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    async def connect(self) -> None:
        await self.channel_layer.group_add(GROUP, self.channel_name)
        await self.accept()
        await self.send(text_data=json.dumps({"hello": 1}))

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # read-only

    async def ratings_changed(self, event: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps({"changed": 1}))


ratings_socket = RatingsConsumer.as_asgi()
