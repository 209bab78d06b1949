"""Public board and stream overlay pages (no sign-in), and their snapshots.

The snapshots are what a client fetches when it sees a gap in `seq`: the same
frame text the websocket sends, for the state as of now (board) or as of
now − delay (overlay).
"""

from __future__ import annotations

import hmac
from datetime import datetime, timedelta

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_safe

from games import board
from games.models import Game


def _ws_path(request: HttpRequest, kind: str, game_id: int, query: str = "") -> str:
    return f"/ws/games/{game_id}/{kind}/" + (f"?{query}" if query else "")


@require_safe
@never_cache
def board_page(request: HttpRequest, game_id: int) -> HttpResponse:
    # The page embeds the very frame the websocket sends (cached per revision).
    game = get_object_or_404(Game, pk=game_id)
    frame = board.board_frame(game, snapshot=True)
    return render(
        request,
        "games/board.html",
        {
            "frame_html": frame.html,
            "title": board.public_title(game),
            "ws_path": _ws_path(request, "board", game.pk, request.GET.urlencode() if "fanout" in request.GET else ""),
            "snapshot_url": reverse("board:snapshot", args=[game.pk]),
        },
    )


@require_safe
@never_cache
def board_snapshot(request: HttpRequest, game_id: int) -> HttpResponse:
    frame = board.board_frame_for(game_id, snapshot=True)
    if frame is None:
        raise Http404
    return HttpResponse(frame.html, content_type="text/html; charset=utf-8")


def _overlay_game(request: HttpRequest, game_id: int, token: str | None = None) -> Game | HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    if not game.overlay_token:
        raise Http404("overlay disabled")
    if token is None:
        token = request.GET.get("token", "")
    if not hmac.compare_digest(game.overlay_token, token):
        return HttpResponseForbidden("bad overlay token")
    return game


def _as_of(game: Game) -> datetime | None:
    delay = int(game.overlay_delay_seconds)
    return timezone.now() - timedelta(seconds=delay) if delay else None


@require_safe
@never_cache
@xframe_options_exempt
def overlay_page(request: HttpRequest, game_id: int, token: str | None = None) -> HttpResponse:
    game = _overlay_game(request, game_id, token)
    if isinstance(game, HttpResponse):
        return game
    frame = board.overlay_frame(game, as_of=_as_of(game), snapshot=True)
    return render(
        request,
        "games/overlay.html",
        {
            "frame_html": frame.html,
            "title": game.title,
            "ws_path": _ws_path(request, "overlay", game.pk, f"token={game.overlay_token}"),
            "snapshot_url": reverse("board:overlay-snapshot", args=[game.pk]) + f"?token={game.overlay_token}",
        },
    )


@require_safe
@never_cache
def overlay_snapshot(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _overlay_game(request, game_id)
    if isinstance(game, HttpResponse):
        return game
    frame = board.overlay_frame(game, as_of=_as_of(game), snapshot=True)
    return HttpResponse(frame.html, content_type="text/html; charset=utf-8")
