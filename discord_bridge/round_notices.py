"""Chore 8 of issue 29: a tournament round's seating by DM to each linked participant.

An organizer publishes a round with its start time (`publish`); each participant seated in it
whose player has a Discord id gets one DM: the tournament, the round, his table and seat, the
table's host and the start. Any later change of the round's seating or hosts
(tournaments.signals.round_seating_changed) or of the start time is compared, participant by
participant, with the last notice he was sent: a difference queues one correction (a notice not
delivered yet is rewritten instead), no difference queues nothing. A participant no longer seated
is told so once. The bot delivers the queue (discord_bridge.voice_bot.apply_round_notices).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from discord_bridge import core
from discord_bridge.voice_models import InviteState, RoundNotice, RoundPublication
from tournaments.models import Round, TableSeat

CORRECTION = "Исправление рассадки. "


@dataclass(frozen=True)
class Seat:
    user_id: int
    participant_id: int
    table: int
    seat: int
    host: str


def _seats(rnd: Round) -> dict[int, Seat]:
    out: dict[int, Seat] = {}
    rows = TableSeat.objects.filter(table__round=rnd).select_related("table__host", "participant__player")
    for row in rows:
        player = row.participant.player
        raw = (player.discord_user_id if player is not None else "") or ""
        try:
            user_id = core.parse_snowflake(raw.strip(), "discord_user_id") if raw.strip() else None
        except core.BridgeError:
            user_id = None  # a malformed id stored on the player: he cannot be reached
        if user_id is None:
            continue
        host = row.table.host
        out[user_id] = Seat(
            user_id, row.participant_id, row.table.number, row.seat_no, host.get_username() if host is not None else ""
        )
    return out


def _when(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%d.%m.%Y %H:%M") + f" ({timezone.get_current_timezone_name()})"


def notice_text(rnd: Round, seat: Seat | None, starts_at: datetime) -> str:
    where = f"«{rnd.stage.tournament.name}», {rnd.stage.display_name}, тур {rnd.number}"
    if seat is None:
        return f"{where}: вы не играете в этом туре."
    host = f"ведущий {seat.host}" if seat.host else "ведущий не назначен"
    return f"{where}: стол {seat.table}, место {seat.seat}, {host}. Начало: {_when(starts_at)}."[:400]


def publish(*, round: Round, starts_at: datetime) -> RoundPublication:
    publication, _ = RoundPublication.objects.update_or_create(
        round=round, defaults={"starts_at": starts_at, "published_at": timezone.now()}
    )
    refresh(round.pk)
    return publication


def refresh(round_id: int) -> list[RoundNotice]:
    """Queue what each linked participant of a published round has not been told yet."""
    with transaction.atomic():
        publication = (
            RoundPublication.objects.select_for_update()
            .filter(round_id=round_id)
            .select_related("round__stage__tournament")
            .first()
        )
        if publication is None:
            return []
        rnd = publication.round
        seats = _seats(rnd)
        last: dict[int, RoundNotice] = {}
        for notice in RoundNotice.objects.filter(round=rnd).order_by("pk"):
            last[notice.user_id] = notice
        queued = []
        for user_id in sorted(set(seats) | set(last)):
            seat = seats.get(user_id)
            previous = last.get(user_id)
            if seat is None and previous is None:
                continue
            text = notice_text(rnd, seat, publication.starts_at)
            if previous is not None and previous.text.removeprefix(CORRECTION) == text:
                continue  # nothing changed for him: no duplicate
            if previous is not None and previous.state == InviteState.PENDING:
                # Not delivered yet: he gets the current seating once, not a notice and its correction.
                previous.text = (CORRECTION + text if previous.correction else text)[:400]
                previous.save(update_fields=["text"])
                queued.append(previous)
                continue
            correction = previous is not None
            queued.append(
                RoundNotice.objects.create(
                    round=rnd,
                    user_id=user_id,
                    participant_id=seat.participant_id if seat else (previous.participant_id if previous else None),
                    correction=correction,
                    text=((CORRECTION + text) if correction else text)[:400],
                )
            )
    return queued


def due() -> list[RoundNotice]:
    return list(RoundNotice.objects.filter(state=InviteState.PENDING).order_by("pk")[:50])


def sent(notice_id: int, *, error: str = "") -> None:
    RoundNotice.objects.filter(pk=notice_id).update(
        state=InviteState.FAILED if error else InviteState.SENT,
        last_error=error[:300],
        sent_at=None if error else timezone.now(),
    )


def summary(rnd: Round) -> dict[str, object]:
    """The round page's line for the organizer: published when, for when, how many DMs went out."""
    publication = RoundPublication.objects.filter(round=rnd).first()
    notices = RoundNotice.objects.filter(round=rnd)
    return {
        "publication": publication,
        "sent": notices.filter(state=InviteState.SENT).count(),
        "pending": notices.filter(state=InviteState.PENDING).count(),
        "failed": list(notices.filter(state=InviteState.FAILED).values_list("last_error", flat=True)[:3]),
    }
