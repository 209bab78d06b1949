"""The voice strip's two host actions (issue 29): «размутить всех» and the link's voice settings.

Thin views over discord_bridge.voice_services; both answer with the whole Discord panel, as the
bridge's own views do."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from discord_bridge import voice_services
from discord_bridge.views import _panel
from games.console.views import _editable_game, host_required


@host_required
@require_POST
def release(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    voice_services.release_all(game=game)
    return _panel(request, game, notice=gettext("Бот снимает мут со всех, кого замьютил (до следующего шага)."))


@host_required
@require_POST
def settings(request: HttpRequest, pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    data = request.POST
    voice_services.save_settings(
        game=game, mute_enabled="mute_enabled" in data, unmute_on_tech_pause="unmute_on_tech_pause" in data, alerts_enabled="alerts_enabled" in data,
        draw_post_enabled="draw_post_enabled" in data,
    )
    return _panel(request, game)
