"""The voice strip's host actions (issue 29): «размутить всех», the link's voice settings, a possible
violation's foul or dismissal (chore 5) and the vote's re-check (chore 7).

Thin views over discord_bridge.voice_services; both answer with the whole Discord panel, as the
bridge's own views do."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from discord_bridge import core, recheck_services, silence_services, voice_services
from discord_bridge.views import _panel
from games import services as game_services
from games.console import protocol_text as pt
from games.console.forms import ActionFormError, parse_expected_seq
from games.console.views import _editable_game, host_required
from games.rules import RuleViolation


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
        mafia = {
            name: core.parse_snowflake(data[name], name) if data.get(name, "").strip() else None
            for name in ("mafia_guild_id", "mafia_channel_id")
        }
    except core.BridgeError as exc:  # one input schema: refused, nothing saved
        return _panel(request, game, error=str(exc), status=422)
    voice_services.save_settings(
        game=game,
        mafia_guild_id=mafia["mafia_guild_id"],
        mafia_channel_id=mafia["mafia_channel_id"],
        mute_enabled="mute_enabled" in data,
        unmute_on_tech_pause="unmute_on_tech_pause" in data,
        alerts_enabled="alerts_enabled" in data,
        draw_post_enabled="draw_post_enabled" in data,
        seat_nicknames="seat_nicknames" in data,
    )
    return _panel(request, game)


@host_required
@require_POST
def silence_foul(request: HttpRequest, pk: int, event_pk: int) -> HttpResponse:
    """Chore 5: the host's one key records the foul the strip proposes (never the bot by itself)."""
    game = _editable_game(request, pk)
    try:
        silence_services.record_foul(
            game=game, event_id=event_pk, expected_seq=parse_expected_seq(request.POST), by=request.user
        )
    except silence_services.AlreadyDecided:
        game.refresh_from_db()
        return _panel(
            request, game, error=gettext("Это нарушение уже решено; фол повторно не записывается."), status=409
        )
    except (RuleViolation, ActionFormError, game_services.StaleRevision) as exc:
        game.refresh_from_db()
        return _panel(request, game, error=pt.violation_text(exc), status=422)
    game.refresh_from_db()
    response = _panel(request, game, notice=gettext("Фол записан."))
    response["HX-Trigger"] = "discord-applied"
    return response


@host_required
@require_POST
def silence_dismiss(request: HttpRequest, pk: int, event_pk: int) -> HttpResponse:
    game = _editable_game(request, pk)
    silence_services.dismiss(game=game, event_id=event_pk)
    return _panel(request, game)


@host_required
@require_POST
def recheck(request: HttpRequest, pk: int) -> HttpResponse:
    """Chore 7: the bot re-reads the vote's history in Discord's order (line 75); nothing is recorded."""
    game = _editable_game(request, pk)
    try:
        recheck_services.request(game=game)
    except core.BridgeError as exc:
        return _panel(request, game, error=str(exc), status=422)
    return _panel(request, game, notice=gettext("Бот перечитывает историю канала вокруг голосования."))
