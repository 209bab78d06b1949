"""Discipline records: written when a game ends, shown, and enforced at seating.

The pure parts (which penalties bring a reprimand or a ban, when a ban ends)
are players/bans.py. This module keeps the rows in step with each game's log —
``on_results_changed`` runs in the transaction that writes a game's result
rows, like the statistics (players/book.py) — and answers "may this player be
seated now?" for the new-game form, a tournament round and a table's game.

A record's lift and the overrides are people's decisions: a rewrite of the
same game (a penalty after the end, a re-projection) keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from games.models import Game, GameSeat, Penalty
from players import bans
from players.models import BanOverride, DisciplineRecord, Player


def club_time_zone() -> ZoneInfo:
    """The club's days are those of its time zone setting (TIME_ZONE, Europe/Moscow by default)."""
    return ZoneInfo(str(settings.TIME_ZONE or "Europe/Moscow"))


def on_results_changed(sender: Any = None, *, game: Game, **kwargs: Any) -> None:
    sync_game(game)


def sync_game(game: Game) -> None:
    """The game's reprimands and bans, from its log: none while it runs (an undo
    reopened it), those of its penalties once it is over — finished or annulled
    (W6: the protocol is kept, so are its penalties)."""
    from games.reading import game_regulations

    with transaction.atomic(savepoint=False):
        if not game.is_over:
            DisciplineRecord.objects.filter(game=game).delete()
            return
        regs = game_regulations(game)
        rows = (
            Penalty.objects.filter(game=game, action__undone_at__isnull=True)
            .order_by("action__seq")
            .values("kind", "seat", "count", "reason", "action__created_at")
        )
        wanted = bans.sanctions(
            ({**r, "at": r["action__created_at"]} for r in rows),
            fouls_to_remove=regs.fouls_to_remove,
            warnings_to_remove=regs.warnings_to_remove,
        )
        seats = {s.seat_no: s for s in GameSeat.objects.filter(game=game)}
        owners = _seat_owners(
            game, [seats[s.seat] for s in wanted if s.seat in seats and seats[s.seat].player_id is None]
        )
        keep = []
        tz = club_time_zone()
        for s in wanted:
            seat = seats.get(s.seat)
            fields = {
                "nickname": seat.nickname if seat else "",
                "player_id": (seat.player_id or owners.get(seat.seat_no)) if seat else None,
                "rule": s.rule,
                "cause": s.cause,
                "reason": s.reason[:300],
                "host_id": game.host_id,
                "given_at": s.at,
                "ends_at": bans.ban_end(s.at, tz) if s.kind == bans.BAN else None,
            }
            record, _created = DisciplineRecord.objects.update_or_create(
                game=game, seat_no=s.seat, kind=s.kind, defaults=fields
            )
            keep.append(record.pk)
        DisciplineRecord.objects.filter(game=game).exclude(pk__in=keep).delete()


def _seat_owners(game: Game, unlinked: list[GameSeat]) -> dict[int, int]:
    """Players of seats the books did not link (an annulled game is not counted,
    so nobody linked its seats): the table's participant, or the one player of
    that nickname — a ban must not miss him because the game was annulled."""
    if not unlinked:
        return {}
    from players.matching import KNOWN
    from players.names import name_index
    from tournaments.models import TableSeat

    out = dict(
        TableSeat.objects.filter(table__game=game, participant__player__isnull=False).values_list(
            "seat_no", "participant__player_id"
        )
    )
    out |= dict(
        TableSeat.objects.filter(table__annulled_games=game, participant__player__isnull=False).values_list(
            "seat_no", "participant__player_id"
        )
    )
    index = name_index()
    for seat in unlinked:
        if seat.seat_no not in out:
            m = index.match(seat.nickname)
            if m.status == KNOWN and m.player is not None:
                out[seat.seat_no] = m.player.player_id
    return out


def fill_players() -> int:
    """Records of seats linked since (a decision, link_players) name their player."""
    done = 0
    for record in DisciplineRecord.objects.filter(player__isnull=True):
        pid = (
            GameSeat.objects.filter(game_id=record.game_id, seat_no=record.seat_no)
            .values_list("player_id", flat=True)
            .first()
        )
        if pid is not None:
            done += DisciplineRecord.objects.filter(pk=record.pk).update(player_id=pid)
    return done


def active_bans(player_ids: Iterable[int] | None = None, *, now: datetime | None = None) -> list[DisciplineRecord]:
    qs = DisciplineRecord.objects.filter(
        kind=DisciplineRecord.BAN, lifted_at__isnull=True, ends_at__gt=now or timezone.now(), player__isnull=False
    )
    if player_ids is not None:
        qs = qs.filter(player_id__in=list(player_ids))
    return list(qs.select_related("player", "game").order_by("ends_at"))


def ban_text(record: DisciplineRecord) -> str:
    """A refusal naming the rule, the end and the game that caused it."""
    ends = timezone.localtime(record.ends_at, club_time_zone()) if record.ends_at else None
    return _(
        "%(nick)s не может играть до %(until)s: запрет на 7 дней за второе предупреждение (F4) в игре «%(game)s»."
    ) % {
        "nick": record.player.nickname if record.player else record.nickname,
        "until": formats.date_format(ends, "DATETIME_FORMAT") if ends else "—",
        "game": record.game.title or f"#{record.game_id}",
    }


@dataclass
class SeatingCheck:
    """Active bans among the players to be seated; `refusals` says them for people."""

    bans: list[DisciplineRecord]

    @property
    def refusals(self) -> list[str]:
        return [ban_text(b) for b in self.bans]


def seating_check(player_ids: Iterable[int | None]) -> SeatingCheck:
    return SeatingCheck(active_bans({pid for pid in player_ids if pid is not None}))


def may_override(user: Any, tournament: Any = None) -> bool:
    """Staff, or an organizer (of this tournament; of any, for a club game)."""
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff or user.is_superuser:
        return True
    if tournament is not None:
        return bool(tournament.is_organizer(user))
    return bool(user.organized_tournaments.exists())


def record_overrides(*, check: SeatingCheck, game: Game | None, reason: str, by: Any) -> list[BanOverride]:
    reason = " ".join(reason.split())[:300]
    if not reason:
        raise ValueError("an override needs a reason")
    author = by if getattr(by, "is_authenticated", False) else None
    return [BanOverride.objects.create(record=b, game=game, reason=reason, by=author) for b in check.bans]


def record_lift(*, record: DisciplineRecord, reason: str, by: Any) -> DisciplineRecord:
    """An organizer takes a reprimand or a ban back (e.g. of an annulled game), with a reason."""
    reason = " ".join(reason.split())[:300]
    if not reason:
        raise ValueError("a lift needs a reason")
    DisciplineRecord.objects.filter(pk=record.pk, lifted_at__isnull=True).update(
        lifted_at=timezone.now(), lifted_by=by if getattr(by, "is_authenticated", False) else None, lift_reason=reason
    )
    record.refresh_from_db()
    return record


def counts_by_tournament(player: Player) -> list[dict[str, Any]]:
    """His warnings, grey cards, reprimands and bans: overall and per tournament
    (from the result rows of his seats: warnings and grey cards are not records)."""
    from games.models import GameSeat, SeatResult
    from tournaments.models import Table

    # His seats, each with its result row's two counters read through the result
    # rows' (game, seat) index: no model instances (a busy player has hundreds of
    # games), and no join of the games table (the models' default ordering is by
    # game, i.e. by the game's creation: PostgreSQL planned that join as a scan of
    # every game, 15 ms at 100,000 games instead of 2).
    his_seats = GameSeat.objects.filter(player=player).order_by()
    result = SeatResult.objects.filter(game_id=OuterRef("game_id"), seat_no=OuterRef("seat_no")).order_by()
    seats = [
        (game_id, warnings, grey_cards)
        for game_id, warnings, grey_cards in his_seats.annotate(
            warnings=Subquery(result.values("warnings")[:1]), grey_cards=Subquery(result.values("grey_cards")[:1])
        ).values_list("game_id", "warnings", "grey_cards")
        if warnings is not None  # a seat of a game without result rows (not finished)
    ]
    if not seats:
        return []
    # His games as a subquery, not hundreds of ids sent back as parameters.
    his_games = his_seats.values("game_id")
    tournaments = dict(
        Table.objects.filter(game_id__in=his_games).order_by().values_list("game_id", "round__stage__tournament__name")
    )
    for t in (
        Table.objects.filter(annulled_games__in=his_games)
        .order_by()
        .values_list("annulled_games", "round__stage__tournament__name")
    ):
        tournaments.setdefault(t[0], t[1])
    records = list(
        DisciplineRecord.objects.filter(player=player, lifted_at__isnull=True).values_list("game_id", "kind")
    )
    out: dict[str, dict[str, Any]] = {}

    def rows_of(game_id: int) -> list[dict[str, Any]]:
        names = ["", tournaments[game_id]] if tournaments.get(game_id) else [""]
        return [
            out.setdefault(n, {"tournament": n, "warnings": 0, "grey_cards": 0, "reprimands": 0, "bans": 0})
            for n in names
        ]

    for game_id, warnings, grey_cards in seats:
        for row in rows_of(game_id):
            row["warnings"] += warnings
            row["grey_cards"] += grey_cards
    for game_id, kind in records:
        for row in rows_of(game_id):
            row["reprimands" if kind == DisciplineRecord.REPRIMAND else "bans"] += 1
    # The overall line first, then the tournaments in Russian order.
    from games.rules.nicknames import nickname_sort_key

    return sorted(out.values(), key=lambda row: (row["tournament"] != "", nickname_sort_key(row["tournament"])))
