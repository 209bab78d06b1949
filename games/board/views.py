"""Public board and stream overlay pages (no sign-in), and their snapshots.

The snapshots are what a client fetches when it sees a gap in `seq`: the same
frame text the websocket sends, for the state as of now (board) or as of
now − delay (overlay).
"""

from __future__ import annotations

import hmac
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_safe

from games.board import frames as board
from games.board import view
from games.models import Game


def _ws_path(kind: str, game_id: int, **params: str) -> str:
    return f"/ws/games/{game_id}/{kind}/?" + urlencode({k: v for k, v in params.items() if v})


def _lang(request: HttpRequest) -> str:
    # The page's language (LocaleMiddleware); the socket and the snapshots
    # carry it so that frames match the page they land in.
    return board.frame_language(request.GET.get("lang") or getattr(request, "LANGUAGE_CODE", None))


@require_safe
@never_cache
def board_page(request: HttpRequest, game_id: int) -> HttpResponse:
    # The page embeds the very frame the websocket sends (cached per revision).
    game = get_object_or_404(Game, pk=game_id)
    lang = _lang(request)
    frame = board.board_frame(game, snapshot=True, lang=lang)
    return render(
        request,
        "games/board.html",
        {
            "frame_html": frame.html,
            "title": view.public_title(game),
            "ws_path": _ws_path("board", game.pk, lang=lang, fanout=request.GET.get("fanout", "")),
            "snapshot_url": reverse("board:snapshot", args=[game.pk]) + "?" + urlencode({"lang": lang}),
        },
    )


@require_safe
@never_cache
def board_snapshot(request: HttpRequest, game_id: int) -> HttpResponse:
    frame = board.board_frame_for(game_id, snapshot=True, lang=_lang(request))
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


# The overlay may talk to obs-websocket on the streamer's own machine (static/js/overlay-obs.js).
_CSP: dict[str, list[str]] = settings.SECURE_CSP  # type: ignore[assignment]  # a dict of lists (settings.py)
OVERLAY_CSP: dict[str, list[str]] = {
    **_CSP,
    "connect-src": [*_CSP.get("connect-src", []), "ws://127.0.0.1:*", "ws://localhost:*"],
}


@require_safe
@never_cache
@xframe_options_exempt
@csp_override(OVERLAY_CSP)
def overlay_page(request: HttpRequest, game_id: int, token: str | None = None) -> HttpResponse:
    game = _overlay_game(request, game_id, token)
    if isinstance(game, HttpResponse):
        return game
    lang = _lang(request)
    frame = board.overlay_frame(game, as_of=_as_of(game), snapshot=True, lang=lang)
    return render(
        request,
        "games/overlay.html",
        {
            "frame_html": frame.html,
            "title": game.display_title,
            "ws_path": _ws_path("overlay", game.pk, token=game.overlay_token, lang=lang),
            "snapshot_url": reverse("board:overlay-snapshot", args=[game.pk])
            + "?"
            + urlencode({"token": game.overlay_token, "lang": lang}),
        },
    )


@require_safe
@never_cache
def overlay_snapshot(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _overlay_game(request, game_id)
    if isinstance(game, HttpResponse):
        return game
    frame = board.overlay_frame(game, as_of=_as_of(game), snapshot=True, lang=_lang(request))
    return HttpResponse(frame.html, content_type="text/html; charset=utf-8")
