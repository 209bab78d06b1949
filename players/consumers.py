"""Read-only websocket of the live leaderboard.

The leaderboard has filters (season, tab, minimum games), so the server does
not render it for everybody: it says "changed" to the group `ratings` after a
commit that changed stored ratings, and each page re-fetches its own fragment
(static/js/ratings.js). On connect it says hello. Nothing is received.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer

GROUP = "ratings"
MESSAGE_TYPE = "ratings.changed"
log = logging.getLogger(__name__)


def push_ratings_changed() -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(GROUP, {"type": MESSAGE_TYPE})
    except Exception:  # the layer may be down; pages re-fetch on reconnect
        log.warning("ratings push failed", exc_info=True)


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
