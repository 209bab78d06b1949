"""The live board's and the overlay's frames and their delivery.

The views they show are built by games.board.view (the public view, the
overlay view, the clocks); this module renders them and delivers them.

Terms:
- *frame*: the HTML text sent over the websocket: a set of elements with ids
  and `hx-swap-oob="true"`, led by `#board-meta` that carries the PUBLIC
  revision (`data-seq` = `Game.public_rev`, moved only when the public facts
  change; never the log's `seq`, issue 24) and `data-at` (ms of
  `Game.public_at`, when it moved). A frame is rendered ONCE per public change
  and the same text goes to every spectator; a change nothing public sees (a
  night action, its undo, the hidden night clock) sends the board nothing.
  The overlay's frames carry the log's `seq`: it shows the night steps.
- *body*: the frame without its meta and clock elements; cached per
  (game, public revision), so that a thousand reconnecting spectators cost one
  render, and the clock is recomputed per send (its remaining time is
  relative to the moment it is sent).
- *delivery*: `broadcast_game` is the receiver of games.signals.game_changed
  (wired in games/apps.py); the frames are rendered once per process after
  the response is sent, and sent to the board's and the overlay's groups.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, transaction
from django.template.loader import render_to_string
from django.utils.translation import override

from games.board.fanout import peek_hub
from games.board.public import OVER, PUBLIC_STEPS, current_facts
from games.board.view import (
    clock_view,
    epoch_ms,
    overlay_scene,
    overlay_view,
    public_clock_view,
    public_view,
    tech_pause_running,
    tech_pause_view,
    token_digest,
)
from games.models import (
    Game,
)
from mafia_protocol.push import server_loop

log = logging.getLogger(__name__)

BOARD_TEMPLATE = "games/board.html"
OVERLAY_TEMPLATE = "games/overlay.html"
BOARD_UPDATE = "board.update"
OVERLAY_UPDATE = "overlay.update"

# PUBLIC_STEPS (the steps whose name, speaker and clock the public board may
# show while the game runs) and OVER live in games.board.public.
__all__ = ["OVER", "PUBLIC_STEPS"]


def board_group(game_id: int) -> str:
    return f"game-{game_id}-board"


def overlay_group(game_id: int) -> str:
    return f"game-{game_id}-overlay"


# --- frames -------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    game_id: int
    seq: int
    at: int
    html: str


class _BodyCache:
    """Rendered bodies per (kind, game): only the latest version is kept."""

    def __init__(self, size: int = 512) -> None:
        self._data: OrderedDict[tuple[str, int], tuple[tuple[Any, ...], dict[str, Any], str]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, kind: str, game_id: int, key: tuple[Any, ...]) -> tuple[dict[str, Any], str] | None:
        with self._lock:
            hit = self._data.get((kind, game_id))
            if hit is None or hit[0] != key:
                return None
            self._data.move_to_end((kind, game_id))
            return hit[1], hit[2]

    def put(self, kind: str, game_id: int, key: tuple[Any, ...], view: dict[str, Any], body: str) -> None:
        with self._lock:
            self._data[(kind, game_id)] = (key, view, body)
            self._data.move_to_end((kind, game_id))
            while len(self._data) > self._size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


body_cache = _BodyCache()


def languages() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def frame_language(code: str | None) -> str:
    """A language of the site for `code` (e.g. from ?lang= or the request), else the default.

    Frames are rendered once per change and per site language (two), never
    per spectator; each socket gets the text of its page's language.
    """
    codes = languages()
    if code:
        code = code.lower()
        if code in codes:
            return code
        if code.split("-")[0] in codes:
            return code.split("-")[0]
    return str(settings.LANGUAGE_CODE)


def board_frame(game: Game, *, snapshot: bool = False, lang: str | None = None) -> Frame:
    """The public frame of `game` as stored in the row given (render once, cached).

    Numbered by the public revision; its body and its live head (clock,
    technical pause) come from the public facts alone.
    """
    lang = frame_language(lang)
    facts = current_facts(game)
    key = (
        game.public_rev,
        epoch_ms(game.public_at),
        str(game.status),
        hashlib.sha256(repr(facts).encode()).hexdigest() if not game.public_facts else "",
    )
    with override(lang):
        hit = body_cache.get(f"board:{lang}", game.pk, key)
        if hit is None:
            view = public_view(game, facts)
            body = _compact(render_to_string(f"{BOARD_TEMPLATE}#board-body", {"board": view}))
            body_cache.put(f"board:{lang}", game.pk, key, view, body)
        else:
            view, body = hit
        clock = public_clock_view(facts)
        pause = tech_pause_view(game, facts)
        head = render_to_string(
            f"{BOARD_TEMPLATE}#board-live",
            {"board": view, "clock": clock, "pause": pause, "snapshot": snapshot, "lang": lang},
        )
    return Frame(game.pk, game.public_rev, view["at"], _compact(head) + body)


def board_frame_for(game_id: int, *, snapshot: bool = False, lang: str | None = None) -> Frame | None:
    # No transaction: on SQLite ours take the write lock at BEGIN (IMMEDIATE),
    # and a frame torn between two revisions is corrected by the next one.
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    return board_frame(game, snapshot=snapshot, lang=lang)


def overlay_frame(
    game: Game, *, as_of: datetime | None = None, snapshot: bool = False, lang: str | None = None
) -> Frame:
    lang = frame_language(lang)
    key = (game.seq, epoch_ms(game.updated_at), game.overlay_delay_seconds, token_digest(game.overlay_token))
    with override(lang):
        hit = body_cache.get(f"overlay:{lang}", game.pk, key) if as_of is None else None
        if hit is None:
            view = overlay_view(game, as_of=as_of)
            body = _compact(render_to_string(f"{OVERLAY_TEMPLATE}#overlay-body", {"ov": view}))
            if as_of is None:
                body_cache.put(f"overlay:{lang}", game.pk, key, view, body)
        else:
            view, body = hit
        # A snapshot as of the past has no clock: the clock fields only hold now.
        clock = clock_view(game, visible=as_of is None and not view["over"])
        paused = view["status"] == "running" and tech_pause_running(game, as_of)
        scene = overlay_scene(status=view["status"], phase=view["phase"], step=view["step"], paused=paused)
        head = render_to_string(
            f"{OVERLAY_TEMPLATE}#overlay-live",
            {"ov": view, "clock": clock, "snapshot": snapshot, "lang": lang, "scene": scene},
        )
    return Frame(game.pk, view["seq"], view["at"], _compact(head) + body)


_BETWEEN_LINES = re.compile(r">\s*\n\s*<")


def _compact(html: str) -> str:
    """Drop the template's line breaks between tags (a frame goes to every spectator)."""
    return _BETWEEN_LINES.sub("><", html).strip()


# --- broadcast (receiver of games.signals.game_changed) ---------------------------


def broadcast_game(game_id: int, *, public: bool = True) -> None:
    """Render the frames of a game once (per site language) and hand them to the channel layer.

    `public`: the public facts changed, so the board gets a frame; otherwise
    only the overlay does (a night action, an undo of one, the host's hidden
    clock: nothing a spectator may see moved, so he receives nothing).
    """
    layer = get_channel_layer()
    if layer is None:
        return
    rendered = _render_frames(game_id, public=public)
    if rendered is not None:
        async_to_sync(_send_all)(layer, game_id, *rendered)


def _render_frames(game_id: int, *, public: bool = True) -> tuple[dict[str, Frame], dict[str, Frame], str] | None:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    board_frames = {lang: board_frame(game, lang=lang) for lang in languages()} if public else {}
    overlay_frames = {lang: overlay_frame(game, lang=lang) for lang in languages()} if game.overlay_token else {}
    return board_frames, overlay_frames, token_digest(game.overlay_token)


_broadcast_locks: dict[int, asyncio.Lock] = {}


async def _broadcast_in_background(game_id: int, public: bool = True) -> None:
    """The frames rendered in a worker thread, sent from the server's loop.

    One at a time per game and process, so frames leave in revision order;
    each render reads the latest committed revision, so a burst of clicks
    costs at most one render per click and clients skip what they have.
    """
    lock = _broadcast_locks.setdefault(game_id, asyncio.Lock())
    async with lock:
        try:
            layer = get_channel_layer()
            if layer is None:
                return
            rendered = await sync_to_async(_render_frames_in_worker, thread_sensitive=False)(game_id, public)
            if rendered is not None:
                await _send_all(layer, game_id, *rendered)
        except Exception:  # the action is durable; clients resync on the next frame
            log.warning("board broadcast of game %s failed", game_id, exc_info=True)


def _render_frames_in_worker(game_id: int, public: bool) -> tuple[dict[str, Frame], dict[str, Frame], str] | None:
    # A worker thread outside any request: release its connection as a
    # request would, so pool threads do not keep database sessions open.
    try:
        return _render_frames(game_id, public=public)
    finally:
        close_old_connections()


# game id -> whether any of the queued changes was public
_pending_games: dict[int, bool] = {}
_pending_loop: asyncio.AbstractEventLoop | None = None
_pending_lock = threading.Lock()


def _publish(game_id: int, public: bool = True) -> None:
    """Under a running ASGI server, render and send once the host's response
    has gone (the host's click neither waits for the spectators' frames nor
    shares the GIL with their rendering); elsewhere (tests, management
    commands) synchronously."""
    global _pending_loop
    loop = server_loop() if getattr(settings, "LIVE_RENDER_OFF_REQUEST", True) else None
    if loop is None:
        broadcast_game(game_id, public=public)
        return
    with _pending_lock:
        _pending_games[game_id] = _pending_games.get(game_id, False) or public
        _pending_loop = loop
    # request_finished normally flushes it; this is the net for a change made
    # outside a request (a background job in a server thread).
    loop.call_soon_threadsafe(lambda: loop.call_later(0.2, flush_pending_broadcasts))


def _start_broadcast(loop: asyncio.AbstractEventLoop, game_id: int, public: bool) -> None:
    loop.create_task(_broadcast_in_background(game_id, public))


def flush_pending_broadcasts(**kwargs: Any) -> None:
    """request_finished receiver: start the background broadcasts queued by the request."""
    with _pending_lock:
        games = sorted(_pending_games.items())
        _pending_games.clear()
        loop = _pending_loop
    if loop is None or loop.is_closed():
        return
    for game_id, public in games:
        loop.call_soon_threadsafe(_start_broadcast, loop, game_id, public)


def _message(kind: str, group: str, game_id: int, frames: dict[str, Frame]) -> dict[str, Any]:
    default = frames.get(str(settings.LANGUAGE_CODE)) or next(iter(frames.values()))
    return {
        "type": kind,
        "group": group,
        "game_id": game_id,
        "seq": default.seq,
        "at": default.at,
        "html": default.html,
        "html_by_lang": {lang: f.html for lang, f in frames.items()},
    }


async def _send_all(
    layer: Any, game_id: int, board_frames: dict[str, Frame], overlay_frames: dict[str, Frame], digest: str
) -> None:
    group = board_group(game_id)
    hub = peek_hub()
    delivered = None
    if board_frames:
        message = _message(BOARD_UPDATE, group, game_id, board_frames)
        # Under daphne this coroutine runs on the server's loop while the host's
        # request thread waits for it: hold that thread until the local
        # spectators have the frame, so rendering the host's response does not
        # compete with the socket writes for the GIL (bounded: the layer may
        # drop the message, and then clients resync from seq gaps).
        delivered = hub.expect(group, message["seq"], message["at"]) if hub is not None else None
        await layer.group_send(group, message)
    # Overlays always hear about the token: an empty or new digest closes
    # the sockets opened with a revoked token.
    if overlay_frames:
        overlay = _message(OVERLAY_UPDATE, overlay_group(game_id), game_id, overlay_frames)
    else:
        overlay = {
            "type": OVERLAY_UPDATE,
            "group": overlay_group(game_id),
            "game_id": game_id,
            "seq": 0,
            "at": 0,
            "html": "",
            "html_by_lang": {},
        }
    overlay["token_digest"] = digest
    await layer.group_send(overlay_group(game_id), overlay)
    if hub is not None:
        await hub.wait(delivered, timeout=0.25)


def on_game_changed(
    sender: Any,
    game_id: int,
    seq: int = 0,
    status: str = "",
    clock_only: bool = False,
    public: bool = True,
    **kwargs: Any,
) -> None:
    """games.signals.game_changed receiver: runs after the commit, in the writer's process."""
    _publish(game_id, public)


def on_game_saved(sender: Any, instance: Game, created: bool = False, update_fields: Any = None, **kwargs: Any) -> None:
    """post_save of Game: a changed overlay token or delay reaches open overlays.

    services.game_set_overlay sends no game_changed; revoking a token must
    still close the overlays opened with it, so listen to the row itself.
    """
    if update_fields and "overlay_token" in update_fields:
        game_id = instance.pk
        transaction.on_commit(lambda: _safe_broadcast(game_id))


def _safe_broadcast(game_id: int) -> None:
    try:
        broadcast_game(game_id, public=False)  # the overlay link is not public
    except Exception:  # a layer that is down must not break the host's request
        log.warning("overlay broadcast of game %s failed", game_id, exc_info=True)
