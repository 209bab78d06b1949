"""The voice part of the console's Discord strip (issue 29): `{% voice_strip game %}` in the panel.

The host's eyes only (the panel is): who the bot keeps muted, the live alerts (deafened, left,
returned) with their time, and every failure with Discord's reason."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext

from discord_bridge import recheck_services, silence_services, voice, voice_services
from discord_bridge.models import DiscordLink
from discord_bridge.voice_models import (
    BlackInvite,
    SilenceEvent,
    VoiceControl,
    VoiceJournal,
    VoteRecheck,
)
from games.models import Game

register = template.Library()

ALERTS = (voice.DEAFENED, voice.UNDEAFENED, voice.LEFT, voice.RETURNED)


def entry_text(entry: VoiceJournal) -> str:
    seat = entry.seat
    if entry.kind == voice.DEAFENED:
        return gettext("№%(seat)s выключил звук") % {"seat": seat}
    if entry.kind == voice.UNDEAFENED:
        return gettext("№%(seat)s включил звук") % {"seat": seat}
    if entry.kind == voice.LEFT:
        return gettext("№%(seat)s вышел из канала") % {"seat": seat}
    if entry.kind == voice.RETURNED:
        return gettext("№%(seat)s вернулся") % {"seat": seat}
    if entry.kind == voice_services.RELEASE:
        return gettext("ведущий: размутить всех")
    if entry.kind in ("mafia_open", "mafia_closed"):
        if not entry.ok:
            return gettext("канал чёрных не изменён — %(why)s") % {"why": entry.detail}
        return (
            gettext("канал чёрных открыт (договорка)") if entry.kind == "mafia_open" else gettext("канал чёрных закрыт")
        )
    if entry.kind == "invite" and not entry.ok:  # before: shown as «мут не снят»
        return gettext("№%(seat)s: приглашение не отправлено — %(why)s") % {"seat": seat, "why": entry.detail}
    if entry.kind in ("nick", "nick_restored"):
        if entry.ok:
            return (
                gettext("№%(seat)s: номер в нике") % {"seat": seat}
                if entry.kind == "nick"
                else gettext("№%(seat)s: ник возвращён") % {"seat": seat}
            )
        return gettext("№%(seat)s: ник не изменён — %(why)s") % {"seat": seat, "why": entry.detail}
    if "40032" in entry.detail:
        why = gettext("не в голосовом канале — бот повторит, когда он зайдёт")
    elif "not visible" in entry.detail:
        why = gettext("сервер игры не виден боту")
    else:
        why = entry.detail
    if entry.kind == voice_services.MUTE:
        return (
            (gettext("№%(seat)s: мут не поставлен — %(why)s") % {"seat": seat, "why": why})
            if not entry.ok
            else gettext("№%(seat)s в муте") % {"seat": seat}
        )
    return (
        (gettext("№%(seat)s: мут не снят — %(why)s") % {"seat": seat, "why": why})
        if not entry.ok
        else gettext("№%(seat)s без мута") % {"seat": seat}
    )


def silence_text(event: SilenceEvent) -> str:
    """Chore 5: what the host reads; he decides (a foul by one key, or ×)."""
    seat = event.seat
    if event.kind == voice.CHAT:
        return gettext("№%(seat)s написал в чат: «%(text)s»") % {"seat": seat, "text": event.detail}
    if event.kind == voice.REACTION:
        return gettext("№%(seat)s поставил реакцию %(emoji)s") % {"seat": seat, "emoji": event.detail}
    if event.kind == voice.NICK:
        return gettext("№%(seat)s сменил ник: %(change)s") % {"seat": seat, "change": event.detail}
    return gettext("№%(seat)s сменил аватарку") % {"seat": seat}


def _recheck_mark(mark: dict[str, Any] | None, *, missing: str) -> str:
    if mark is None:
        return missing
    status, candidate = mark.get("status"), mark.get("candidate")
    if status == "ok" and candidate is not None:
        return gettext("за №%(n)s") % {"n": candidate}
    return {
        "repeat": gettext("повтор"),
        "before_line": gettext("до черты"),
        "after_line": gettext("после черты"),
        "not_his_turn": gettext("не в счёт"),
    }.get(str(status), str(status))


def recheck_lines(recheck: VoteRecheck) -> list[str]:
    """Chore 7: «№4 «+»: не получен → за №5» for each «+» whose assignment the re-read changes."""
    lines = []
    for change in recheck.changes:
        before = _recheck_mark(change.get("before"), missing=gettext("не получен"))
        after = _recheck_mark(change.get("after"), missing=gettext("нет в канале"))
        lines.append(
            gettext("№%(seat)s «+»: %(before)s → %(after)s")
            % {"seat": change.get("seat"), "before": before, "after": after}
        )
    return lines


@register.inclusion_tag("discord_bridge/voice_strip.html")
def voice_strip(game: Game) -> dict[str, Any]:
    control = VoiceControl.objects.filter(game=game).first()
    journal = VoiceJournal.objects.filter(game=game)
    alerts = [{"e": e, "text": entry_text(e)} for e in journal.filter(kind__in=ALERTS)[:8]]
    failures = [{"e": e, "text": entry_text(e)} for e in journal.filter(ok=False)[:5]]
    tech = [
        {"e": e, "text": gettext("№%(seat)s просит техпаузу (D7)") % {"seat": e.seat}}
        for e in journal.filter(kind=voice_services.TECH_REQUEST, at__gte=game.updated_at)[:3]
    ]
    return {
        "game": game,
        "tech": tech,
        "vote_counted": DiscordLink.objects.filter(game=game)
        .exclude(vote_key="")
        .exclude(text_channel_id__isnull=True)
        .exists(),
        "recheck": (recheck := recheck_services.latest(game)),
        "recheck_lines": recheck_lines(recheck) if recheck is not None else [],
        "silence": [{"e": e, "text": silence_text(e)} for e in silence_services.open_events(game)],
        "invites": (invites := list(BlackInvite.objects.filter(game=game).order_by("seat"))),
        "all_blacks_joined": bool(invites) and all(i.joined_at is not None and i.state == "sent" for i in invites),
        "control": control,
        "mafia_state": journal.filter(kind__in=["mafia_open", "mafia_closed"], ok=True).first(),
        "muted": voice_services.muted_now(game),
        "alerts": alerts,
        "failures": failures,
    }
