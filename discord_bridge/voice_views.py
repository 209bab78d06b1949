"""The voice strip's two host actions (issue 29): «размутить всех» and the link's voice settings.

Thin views over discord_bridge.voice_services; both answer with the whole Discord panel, as the
bridge's own views do."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from discord_bridge import core, voice_services
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
    try:
        mafia = {name: core.parse_snowflake(data[name], name) if data.get(name, "").strip() else None for name in ("mafia_guild_id", "mafia_channel_id")}
    except core.BridgeError as exc:  # one input schema: refused, nothing saved
        return _panel(request, game, error=str(exc), status=422)
    voice_services.save_settings(
        game=game,
        mafia_guild_id=mafia["mafia_guild_id"],
        mafia_channel_id=mafia["mafia_channel_id"],
        mute_enabled="mute_enabled" in data, unmute_on_tech_pause="unmute_on_tech_pause" in data, alerts_enabled="alerts_enabled" in data,
        draw_post_enabled="draw_post_enabled" in data,
    )
    return _panel(request, game)
