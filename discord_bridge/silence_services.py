"""Chore 5 of issue 29 (lines 13, 25, 59): chat and profile silence, the write path.

The bot reports a seated player's message in the game's text channel, his reaction and his
profile (display name, avatar) as it sees them; here they become `SilenceEvent` rows, once per
Discord fact, for the host's console strip. Nothing is recorded in the protocol: a foul is the
host's, one press (`record_foul`), through games.services with its revision check, at most once.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from discord_bridge import core, voice
from discord_bridge.models import DiscordLink
from discord_bridge.voice_models import SeatNickname, SeatProfile, SilenceEvent
from games import services as game_services
from games.models import Game, GameStatus


class AlreadyDecided(Exception):
    """The host already recorded or dismissed this event: nothing is applied twice."""


def _running_seats(user_id: int, *, text_channel_id: int | None = None) -> Iterator[tuple[DiscordLink, int]]:
    links = DiscordLink.objects.filter(game__status=GameStatus.RUNNING).select_related("game")
    if text_channel_id is not None:
        links = links.filter(text_channel_id=text_channel_id)
    for link in links:
        seat = link.proven_seat_map().seat_of(user_id)
        if seat is not None:
            yield link, seat


def _record(
    game: Game, *, kind: str, seat: int, user_id: int, key: str, detail: str, at: datetime
) -> SilenceEvent | None:
    from discord_bridge import services

    try:
        with transaction.atomic():
            event = SilenceEvent.objects.create(
                game=game,
                kind=kind,
                seat=seat,
                user_id=user_id,
                key=key[:120],
                detail=core.clean_text(detail)[:200],
                at=at,
            )
    except IntegrityError:
        return None  # the same Discord fact again (a replay): shown once
    services.push_to_host(game.pk, {"event": "silence", "kind": kind})
    return event


def chat_seen(*, channel_id: int, message_id: int, author_id: int, text: str, sent_at: datetime) -> list[SilenceEvent]:
    """A message in a linked text channel: a possible violation of each running game where its
    author is seated, judged in the step its Discord time falls in (a late replay stays right)."""
    from discord_bridge import services

    found = []
    for link, seat in _running_seats(author_id, text_channel_id=channel_id):
        span = core.span_at(services.step_spans(link.game), sent_at)
        if span is None or not voice.chat_is_silence(span.status, span.step):
            continue
        event = _record(
            link.game, kind=voice.CHAT, seat=seat, user_id=author_id, key=f"chat:{message_id}", detail=text, at=sent_at
        )
        if event is not None:
            found.append(event)
    return found


def reaction_seen(
    *, channel_id: int, message_id: int, user_id: int, emoji: str, at: datetime | None = None
) -> list[SilenceEvent]:
    found = []
    for link, seat in _running_seats(user_id, text_channel_id=channel_id):
        if not voice.reaction_is_silence(link.game.status):
            continue
        event = _record(
            link.game,
            kind=voice.REACTION,
            seat=seat,
            user_id=user_id,
            key=f"reaction:{message_id}:{user_id}:{emoji}",
            detail=emoji,
            at=at or timezone.now(),
        )
        if event is not None:
            found.append(event)
    return found


def profile_seen(*, user_id: int, name: str, avatar: str, at: datetime | None = None) -> list[SilenceEvent]:
    """A seated member's profile as the bot sees it now (a member update, a voice state, a message,
    a lookup): the first sight in a game is its baseline; a later difference is shown once. The
    bot's own «N. nick» and its restoration are not the player's doing and only move the baseline."""
    at = at or timezone.now()
    found = []
    for link, seat in _running_seats(user_id):
        with transaction.atomic():
            baseline, new = SeatProfile.objects.select_for_update().get_or_create(
                game=link.game, user_id=user_id, defaults={"name": name[:100], "avatar": avatar[:100], "seen_at": at}
            )
            if new:
                continue
            changes = voice.profile_changes(baseline.name, baseline.avatar, name[:100], avatar[:100])
            bots = SeatNickname.objects.filter(game=link.game, user_id=user_id).first()
            # The bot's rename («N. nick») or its restoration (from that nick back to his own).
            if (
                voice.NICK in changes
                and bots is not None
                and (name == bots.nick or (baseline.name == bots.nick and bots.restored_at is not None))
            ):
                changes.remove(voice.NICK)
            if not changes and (baseline.name, baseline.avatar) == (name[:100], avatar[:100]):
                continue
            for kind in changes:
                before, after = (baseline.name, name) if kind == voice.NICK else (baseline.avatar, avatar)
                detail = f"{before} → {after}" if kind == voice.NICK else ""
                event = _record(
                    link.game,
                    kind=kind,
                    seat=seat,
                    user_id=user_id,
                    key=f"{kind}:{at.timestamp():.3f}:{before}>{after}",
                    detail=detail,
                    at=at,
                )
                if event is not None:
                    found.append(event)
            baseline.name, baseline.avatar, baseline.seen_at = name[:100], avatar[:100], at
            baseline.save(update_fields=["name", "avatar", "seen_at"])
    return found


def seated_members() -> dict[int, list[int]]:
    """Guild id → the seated members of its running games (the bot looks up their profiles)."""
    out: dict[int, list[int]] = {}
    for link in DiscordLink.objects.filter(game__status=GameStatus.RUNNING, guild_id__isnull=False):
        assert link.guild_id is not None
        out.setdefault(link.guild_id, []).extend(link.proven_seat_map().by_seat.values())
    return out


def open_events(game: Game, limit: int = 8) -> list[SilenceEvent]:
    return list(SilenceEvent.objects.filter(game=game, foul_seq__isnull=True, dismissed_at__isnull=True)[:limit])


def record_foul(*, game: Game, event_id: int, expected_seq: int | None, by: Any) -> game_services.Outcome:
    """The host's one key: the event becomes a foul of its seat, at most once (the event row is
    locked with the game's write; a second press finds it decided)."""
    with transaction.atomic():
        event = SilenceEvent.objects.select_for_update().filter(game=game, pk=event_id).first()
        if event is None or not event.is_open:
            raise AlreadyDecided()
        action = {
            "do": "foul",
            "seat": event.seat,
            "reason": voice.FOUL_REASONS.get(event.kind, voice.FOUL_REASONS[voice.CHAT]),
        }
        outcome = game_services.game_record_action(game=game, action=action, expected_seq=expected_seq, by=by)
        event.foul_seq = outcome.action.seq if outcome.action is not None else outcome.game.seq
        event.save(update_fields=["foul_seq"])
    return outcome


def dismiss(*, game: Game, event_id: int) -> None:
    SilenceEvent.objects.filter(game=game, pk=event_id, foul_seq__isnull=True, dismissed_at__isnull=True).update(
        dismissed_at=timezone.now()
    )
