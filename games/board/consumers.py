"""Read-only websocket consumers of the live board and the stream overlay.

Nothing is ever received from clients; every frame is rendered once per change
by games.board.frames and written as is. On connect a consumer sends the current
frame (marked `data-full`: a full state, not an update), so a client that reconnects after a restart is
in sync at once without an extra HTTP request.

Two delivery modes (DESIGN.md "Live board"):
- "hub" (default): the consumer registers its socket with the per-process
  hub (games.board.fanout) and has no channel of its own;
- "plain": a consumer per spectator in the Channels group, the design the
  benchmark compares against. Selected by `settings.BOARD_FANOUT = "plain"`
  (or the env var BOARD_FANOUT), or per connection with `?fanout=plain` when
  `settings.BOARD_ALLOW_FANOUT_FLAG` (env BOARD_ALLOW_FANOUT_FLAG=1) is on.
"""

from __future__ import annotations

import functools
import hmac
import os
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import timezone

from games.board import frames as board
from games.board import view
from games.board.fanout import (
    CLOSE_TRY_AGAIN,
    LayerUnavailable,
    Prepared,
    get_hub,
    write_prepared,
)
from games.models import Game

CLOSE_NOT_FOUND = 4404
CLOSE_FORBIDDEN = 4403


def fanout_mode(scope: dict[str, Any]) -> str:
    mode = str(getattr(settings, "BOARD_FANOUT", os.environ.get("BOARD_FANOUT", "hub")) or "hub")
    allow_flag = getattr(
        settings, "BOARD_ALLOW_FANOUT_FLAG", os.environ.get("BOARD_ALLOW_FANOUT_FLAG", "") in ("1", "true", "yes")
    )
    if allow_flag:
        flag = _query(scope).get("fanout", "")
        if flag in ("hub", "plain"):
            mode = flag
    return "plain" if mode == "plain" else "hub"


def _query(scope: dict[str, Any]) -> dict[str, str]:
    raw = scope.get("query_string", b"")
    parsed = parse_qs(raw.decode("latin1") if isinstance(raw, bytes) else str(raw))
    return {k: v[-1] for k, v in parsed.items() if v}


def _text(message: dict[str, Any], lang: str) -> str:
    return str((message.get("html_by_lang") or {}).get(lang) or message.get("html") or "")


@database_sync_to_async  # type: ignore[untyped-decorator]
def _board_frame(game_id: int, lang: str) -> str | None:
    frame = board.board_frame_for(game_id, snapshot=True, lang=lang)
    return frame.html if frame else None


@database_sync_to_async  # type: ignore[untyped-decorator]
def _overlay_start(game_id: int, token: str, lang: str) -> tuple[int, str, str]:
    """(close code or 0, the first frame, the token digest)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return CLOSE_NOT_FOUND, "", ""
    if not game.overlay_token or not hmac.compare_digest(game.overlay_token, token):
        return CLOSE_FORBIDDEN, "", ""
    delay = int(game.overlay_delay_seconds)
    as_of = timezone.now() - timedelta(seconds=delay) if delay else None
    frame = board.overlay_frame(game, as_of=as_of, snapshot=True, lang=lang)
    return 0, frame.html, view.token_digest(game.overlay_token)


class _FrameConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    """Common part: no channel of its own (hub mode), read-only."""

    channel_layer_alias = "__none__"  # no per-consumer channel: the hub delivers
    group = ""
    lang = ""

    def game_id(self) -> int:
        return int(self.scope["url_route"]["kwargs"]["game_id"])

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # read-only: spectators never talk

    _proto: Any = None  # daphne's autobahn protocol of this socket, when served by daphne

    async def send_frame(self, html: str) -> None:
        await self.base_send({"type": "websocket.send", "text": html})

    def _find_protocol(self) -> None:
        # Daphne passes `send` as partial(server.handle_reply, protocol); with
        # the protocol the hub writes a frame prepared once for all sockets
        # (autobahn sendPreparedMessage) instead of a coroutine, a dict check
        # and a UTF-8 encode per socket. Any other server: the ASGI path.
        send = self.base_send
        if isinstance(send, functools.partial) and send.args:
            proto = send.args[0]
            if hasattr(proto, "sendPreparedMessage") and hasattr(proto, "factory") and hasattr(proto, "STATE_OPEN"):
                self._proto = proto

    def hub_write(self, message: dict[str, Any], prepared: Prepared) -> bool:
        proto = self._proto
        if proto is None:
            return False
        if proto.state == proto.STATE_OPEN:
            write_prepared(proto, prepared.for_factory(proto.factory, self.lang))
        return True

    async def hub_deliver(self, message: dict[str, Any]) -> None:
        await self.base_send({"type": "websocket.send", "text": _text(message, self.lang)})

    async def disconnect(self, code: int) -> None:
        if self.group:
            await get_hub().unsubscribe(self.group, self)

    async def _subscribe(self) -> bool:
        """Join the hub; with the layer down (Redis), accept and close with «try again» instead of a 500."""
        try:
            await get_hub().subscribe(self.group, self)
        except LayerUnavailable:
            self.group = ""
            await self.accept()
            await self.close(code=CLOSE_TRY_AGAIN)
            return False
        return True


class BoardConsumer(_FrameConsumer):
    """Hub mode: the socket is one of the hub's local sinks."""

    async def connect(self) -> None:
        game_id = self.game_id()
        # Subscribe before reading the frame: an update committed in between
        # is then either in the frame or delivered after it (seq orders them).
        self.lang = board.frame_language(_query(self.scope).get("lang"))
        self.group = board.board_group(game_id)
        if not await self._subscribe():
            return
        html = await _board_frame(game_id, self.lang)
        if html is None:
            await get_hub().unsubscribe(self.group, self)
            self.group = ""
            # Accept, then close: a refused handshake reaches the browser as
            # 1006, a close after accept carries the reason code.
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.accept()
        self._find_protocol()
        await self.send_frame(html)


class PlainBoardConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    """The plain design: one consumer per spectator, a member of the group."""

    group = ""
    lang = ""

    async def connect(self) -> None:
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.lang = board.frame_language(_query(self.scope).get("lang"))
        self.group = board.board_group(game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        html = await _board_frame(game_id, self.lang)
        if html is None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = ""
            await self.accept()
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.accept()
        await self.send(text_data=html)

    async def board_update(self, message: dict[str, Any]) -> None:
        await self.send(text_data=_text(message, self.lang))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)


class OverlayConsumer(_FrameConsumer):
    """The stream overlay: token checked on connect and again on every frame."""

    digest = ""

    async def connect(self) -> None:
        game_id = self.game_id()
        query = _query(self.scope)
        self.lang = board.frame_language(query.get("lang"))
        self.group = board.overlay_group(game_id)
        if not await self._subscribe():
            return
        code, html, digest = await _overlay_start(game_id, query.get("token", ""), self.lang)
        if code:
            await get_hub().unsubscribe(self.group, self)
            self.group = ""
            await self.accept()
            await self.close(code=code)
            return
        self.digest = digest
        await self.accept()
        self._find_protocol()
        await self.send_frame(html)

    def hub_write(self, message: dict[str, Any], prepared: Prepared) -> bool:
        if message.get("token_digest", "") != self.digest or not message.get("html"):
            return False  # closing, or nothing to show: the async path
        return super().hub_write(message, prepared)

    async def hub_deliver(self, message: dict[str, Any]) -> None:
        if message.get("token_digest", "") != self.digest:
            # The host revoked (or replaced) the token: this overlay is done.
            group, self.group = self.group, ""
            if group:
                await get_hub().unsubscribe(group, self)
            await self.close(code=CLOSE_FORBIDDEN)
            return
        if message.get("html"):
            await self.base_send({"type": "websocket.send", "text": _text(message, self.lang)})


async def board_socket(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """ASGI entry of /ws/games/<id>/board/: picks the delivery mode."""
    if fanout_mode(scope) == "plain":
        await _plain_app(scope, receive, send)
    else:
        await _hub_app(scope, receive, send)


_hub_app = BoardConsumer.as_asgi()
_plain_app = PlainBoardConsumer.as_asgi()
overlay_socket = OverlayConsumer.as_asgi()
