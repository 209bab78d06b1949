"""The write path of tournaments: every change to a tournament goes through here.

Views, commands and the admin actions call these functions (keyword-only
arguments, `<entity>_<verb>` names, DESIGN.md); games are created and changed
only through `games.services`.
"""

from __future__ import annotations

import csv
import io
import logging
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from games import services as game_services
from games.models import Game, GameSeat, GameStatus
from games.rules import RuleViolation
from games.rules.nicknames import nickname_key
from games.rules.regulations import Regulations
from games.rules.schema import check_text
from games.titles import STAGE_NAME, TOURNAMENT_CREATED, table_game_title
from tournaments import seating
from tournaments.models import (
    ExtraPoints,
    Participant,
    Round,
    ScoringRevision,
    Stage,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.scoring import DEFAULT_PRESET, PRESETS, D, ScoringPolicy

log = logging.getLogger(__name__)

TABLE_SIZE = seating.TABLE_SIZE
_CONTROL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


class TournamentError(ValueError):
    """A refused change; `field` names the form field or the rule it concerns."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


# --- tournament and policy ------------------------------------------------------------


def tournament_create(
    *,
    name: str,
    organizer: Any,
    starts_on: date | None = None,
    ends_on: date | None = None,
    regulations: Regulations | dict[str, Any] | None = None,
    preset: str = DEFAULT_PRESET,
) -> Tournament:
    if preset not in PRESETS:
        raise TournamentError(_("Неизвестный шаблон подсчёта: %(name)s") % {"name": preset}, "preset")
    regs = (
        regulations.to_dict()
        if isinstance(regulations, Regulations)
        else Regulations.from_dict(regulations or {}).to_dict()
    )
    with transaction.atomic():
        t = Tournament.objects.create(
            name=name,
            starts_on=starts_on,
            ends_on=ends_on,
            regulations=regs,
            scoring=dict(PRESETS[preset]),
            scoring_preset=preset,
            scoring_revision=1,
        )
        if organizer is not None:
            t.organizers.add(organizer)
        ScoringRevision.objects.create(
            tournament=t,
            number=1,
            policy=t.scoring,
            preset=preset,
            created_by=_user(organizer),
            note=_(TOURNAMENT_CREATED),
        )
    return t


def tournament_set_policy(
    *, tournament: Tournament, policy: ScoringPolicy, by: Any, preset: str = "", note: str = ""
) -> ScoringRevision:
    """A new revision of the scoring policy; standings follow at once (computed when read)."""
    data = policy.to_dict()
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(pk=tournament.pk)
        number = (t.scoring_revisions.aggregate(m=Max("number"))["m"] or 0) + 1
        t.scoring, t.scoring_preset, t.scoring_revision = data, preset, number
        t.save(update_fields=["scoring", "scoring_preset", "scoring_revision"])
        rev = ScoringRevision.objects.create(
            tournament=t, number=number, policy=data, preset=preset, note=note, created_by=_user(by)
        )
        _push_after_commit(t.pk)
    tournament.scoring, tournament.scoring_preset, tournament.scoring_revision = data, preset, number
    return rev


def tournament_set_regulations(*, tournament: Tournament, regulations: Regulations) -> Tournament:
    """The Regulations of games started from now on (started games keep theirs)."""
    tournament.regulations = regulations.to_dict()
    tournament.save(update_fields=["regulations"])
    return tournament


# --- participants --------------------------------------------------------------------------


@dataclass
class ImportResult:
    created: list[Participant] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    unknown_users: list[str] = field(default_factory=list)


# Bounds of a participants list (issue 22): a plain user's 755 KB file once made
# 100,000 participants in one transaction, held SQLite's write lock for a
# minute (another host's click failed «database is locked») and a 44 MB page.
# A list is parsed before any write and refused whole beyond these.
MAX_PARTICIPANTS = 1000  # per tournament
MAX_PARTICIPANTS_FILE_BYTES = 1024 * 1024  # tournaments.forms.ParticipantsForm


def _too_many() -> TournamentError:
    return TournamentError(
        _("В турнире может быть не больше %(n)s участников; список не добавлен.") % {"n": MAX_PARTICIPANTS}, "file"
    )


def parse_participants_text(text: str) -> list[tuple[str, str]]:
    """One participant a line: `nickname`, or `nickname; username` (also `,` or a tab).

    Numbering like "1. Nick" or "1) Nick" is dropped, so a pasted list works as is.
    """
    entries: list[tuple[str, str]] = []
    for raw in text.splitlines():
        if len(entries) > MAX_PARTICIPANTS:
            raise _too_many()
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        for sep in ("\t", ";", ","):
            if sep in line:
                nick, _sep, user = line.partition(sep)
                break
        else:
            nick, user = line, ""
        nick = _strip_number(nick.strip())
        if nick:
            entries.append((nick, user.strip()))
    return entries


def _strip_number(nick: str) -> str:
    head, sep, tail = nick.partition(" ")
    if sep and head.rstrip(".)").isdigit() and head[-1:] in (".", ")"):
        return tail.strip()
    return nick


_HEADER_WORDS = {"nickname", "nick", "ник", "никнейм", "игрок", "player", "name", "имя"}


def parse_participants_file(name: str, content: bytes) -> list[tuple[str, str]]:
    """Rows of a CSV or XLSX file: nickname in the first column, an optional username in the second.

    A first row whose first cell is a header word (nickname, ник …) is skipped.
    """
    rows: list[list[str]] = []
    if name.lower().endswith((".xlsx", ".xlsm")):
        from openpyxl import load_workbook

        try:
            wb = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
        except Exception as exc:  # openpyxl raises several kinds for a bad file
            raise TournamentError(_("Не удалось прочитать файл XLSX: %(error)s") % {"error": exc}, "file") from exc
        ws = wb.worksheets[0]
        # Streamed, and stopped past the bound: a small zipped sheet may hold a million rows.
        for row in ws.iter_rows(values_only=True, max_col=2):
            rows.append(["" if v is None else str(v).strip()[:200] for v in row[:2]])
            if len(rows) > MAX_PARTICIPANTS + 1:  # one more for a header row
                wb.close()
                raise _too_many()
        wb.close()
    else:
        text = _decode(content)
        try:
            dialect: Any = csv.Sniffer().sniff(text[:2048], delimiters=",;\t")
        except csv.Error:
            dialect = csv.excel
        for r in csv.reader(io.StringIO(text), dialect):
            rows.append([c.strip() for c in r[:2]])
            if len(rows) > MAX_PARTICIPANTS + 1:
                raise _too_many()
    entries: list[tuple[str, str]] = []
    for i, row in enumerate(rows):
        if not row or not row[0]:
            continue
        if i == 0 and row[0].strip().casefold() in _HEADER_WORDS:
            continue
        entries.append((row[0], row[1] if len(row) > 1 else ""))
    return entries


def _decode(content: bytes) -> str:
    for enc in ("utf-8-sig", "cp1251"):
        try:
            return content.decode(enc)
        except UnicodeDecodeError:
            continue
    return content.decode("latin-1")


def participants_add(*, tournament: Tournament, entries: Iterable[tuple[str, str] | str]) -> ImportResult:
    """Add participants by nickname; a nickname already there is kept once, whatever
    its case, ё/е or Latin look-alike letters (games/rules/nicknames.py).

    At most MAX_PARTICIPANTS per tournament: a longer list is refused whole,
    before anything is written; the rows go in with one INSERT, so the write
    lock is held for milliseconds whatever the list."""
    User = get_user_model()
    result = ImportResult()
    known = {nickname_key(n) for n in tournament.participants.values_list("nickname", flat=True)}
    before = len(known)
    new: list[tuple[str, str]] = []
    for entry in entries:
        nick, username = (entry, "") if isinstance(entry, str) else entry
        # Control characters never reach a game (the input schema refuses
        # them in a seating): dropped here, where a pasted list brings them.
        nick = _CONTROL.sub("", nick).strip()[:64].strip()
        if not nick:
            continue
        if nickname_key(nick) in known:
            result.existing.append(nick)
            continue
        known.add(nickname_key(nick))
        new.append((nick, username[:150]))
        if before + len(new) > MAX_PARTICIPANTS:
            raise _too_many()
    wanted = {u for _n, u in new if u}
    users = {u.get_username(): u for u in User.objects.filter(username__in=wanted)} if wanted else {}
    result.unknown_users = [u for _n, u in new if u and u not in users]
    with transaction.atomic():
        result.created = Participant.objects.bulk_create(
            Participant(tournament=tournament, nickname=n, user=users.get(u)) for n, u in new
        )
    return result


def participant_set_active(*, participant: Participant, active: bool) -> Participant:
    participant.active = active
    participant.save(update_fields=["active"])
    return participant


# --- stages, rounds, tables ---------------------------------------------------------------------


def stage_create(*, tournament: Tournament, name: str = "") -> Stage:
    order = (tournament.stages.aggregate(m=Max("order"))["m"] or 0) + 1
    return Stage.objects.create(tournament=tournament, name=name or _(STAGE_NAME) % {"n": order}, order=order)


def round_create(*, stage: Stage, tables: int = 0) -> Round:
    number = (stage.rounds.aggregate(m=Max("number"))["m"] or 0) + 1
    with transaction.atomic():
        rnd = Round.objects.create(stage=stage, number=number)
        for n in range(1, tables + 1):
            Table.objects.create(round=rnd, number=n)
    return rnd


def table_set_host(*, table: Table, host: Any) -> Table:
    """The host of a table; a game already created keeps its host (games.Game.host)."""
    table.host = host
    table.save(update_fields=["host"])
    _seating_changed([table.round_id])
    return table


def stage_set_host(*, stage: Stage, table_number: int, host: Any) -> int:
    """The same host for table № `table_number` in every round of the stage not started yet."""
    changed = Table.objects.filter(round__stage=stage, number=table_number, game__isnull=True).update(host=host)
    _seating_changed(list(stage.rounds.values_list("pk", flat=True)))
    return changed


def _seating_changed(round_ids: list[int]) -> None:
    """After the commit: a published round's participants are told of the change (issue 29, chore 8)."""
    from tournaments.signals import round_seating_changed

    transaction.on_commit(lambda: round_seating_changed.send(sender=Round, round_ids=round_ids))


def stage_history(stage: Stage) -> list[list[int]]:
    """Tables (participant ids in seat order) of the earlier stages: seats and opponents to balance against."""
    tables: dict[int, list[int]] = {}
    seats = (
        TableSeat.objects.filter(
            table__round__stage__tournament_id=stage.tournament_id, table__round__stage__order__lt=stage.order
        )
        .order_by("table_id", "seat_no")
        .values_list("table_id", "seat_no", "participant_id")
    )
    for table_id, seat_no, pid in seats:
        row = tables.setdefault(table_id, [0] * TABLE_SIZE)
        row[seat_no - 1] = pid
    return list(tables.values())


def other_tournaments_pairs(tournament_id: int, participants: Sequence[Participant]) -> dict[tuple[int, int], int]:
    """(participant, participant) -> how many tables of *other* tournaments the two
    persons (``Participant.player``) shared, counting tables whose game was started.
    Participants without a player have no history."""
    by_player = {p.player_id: p.pk for p in participants if p.player_id is not None}
    if not by_player:
        return {}
    tables: dict[int, list[int]] = {}
    seats = TableSeat.objects.filter(participant__player_id__in=list(by_player), table__game__isnull=False).exclude(
        table__round__stage__tournament_id=tournament_id
    )
    for table_id, player_id in seats.values_list("table_id", "participant__player_id"):
        tables.setdefault(table_id, []).append(by_player[player_id])
    pairs: dict[tuple[int, int], int] = {}
    for people in tables.values():
        people = sorted(set(people))
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                pairs[(a, b)] = pairs.get((a, b), 0) + 1
    return pairs


def stage_generate_seating(
    *,
    stage: Stage,
    rounds: int,
    seed: str = "",
    participants: Sequence[Participant] | None = None,
    other_tournaments: bool = False,
) -> seating.Schedule:
    """Seat rounds 1..`rounds` of the stage (tournaments/seating.py), from a recorded seed.

    Refused once a game of the stage was started; tables of rounds already
    seated are replaced; hosts stay with their table numbers. With
    `other_tournaments` (the organizer asks) the persons' tables in other
    tournaments count as opponents already met.
    """
    if rounds < 1 or rounds > 60:
        raise TournamentError(_("Число туров должно быть от 1 до 60."), "rounds")
    if participants is None:
        participants = list(stage.tournament.participants.filter(active=True).order_by("pk"))
    else:
        participants = sorted(participants, key=lambda p: p.pk)
    if len(participants) < TABLE_SIZE:
        raise TournamentError(
            _("Для рассадки нужно не меньше 10 участников (сейчас %(n)s).") % {"n": len(participants)}, "participants"
        )
    seed = seed.strip() or secrets.token_hex(6)
    with transaction.atomic():
        locked = Stage.objects.select_for_update().get(pk=stage.pk)
        if Table.objects.filter(round__stage=locked, game__isnull=False).exists():
            raise TournamentError(_("В этапе уже начаты игры: рассадку можно менять только вручную."), "rounds")
        pairs = other_tournaments_pairs(locked.tournament_id, participants) if other_tournaments else None
        schedule = seating.generate(
            [p.pk for p in participants], rounds, seed=seed, history=stage_history(locked), pair_history=pairs
        )
        hosts = dict(
            Table.objects.filter(round__stage=locked, host__isnull=False)
            .order_by("round__number")
            .values_list("number", "host_id")
        )
        Table.objects.filter(round__stage=locked).delete()
        locked.rounds.filter(number__gt=rounds).delete()
        existing = {r.number: r for r in locked.rounds.all()}
        seats: list[TableSeat] = []
        for rn, tables in enumerate(schedule.rounds, start=1):
            rnd = existing.get(rn) or Round.objects.create(stage=locked, number=rn)
            for tn, players in enumerate(tables, start=1):
                table = Table.objects.create(round=rnd, number=tn, host_id=hosts.get(tn))
                seats.extend(
                    TableSeat(table=table, seat_no=s, participant_id=pid) for s, pid in enumerate(players, start=1)
                )
        TableSeat.objects.bulk_create(seats)
        quality = schedule.quality()
        locked.seating_seed = seed
        locked.seating_quality = quality.as_dict() | {
            "rounds": rounds,
            "participants": len(participants),
            "other_tournaments": other_tournaments,
        }
        locked.save(update_fields=["seating_seed", "seating_quality"])
        _seating_changed(list(locked.rounds.values_list("pk", flat=True)))
    stage.seating_seed, stage.seating_quality = locked.seating_seed, locked.seating_quality
    return schedule


def table_seat_set(*, table: Table, seat_no: int, participant: Participant, by: Any = None) -> None:
    """Put `participant` on seat `seat_no`; if he sits elsewhere in this round, the two swap.

    Allowed until the games concerned have begun (a game in setup is re-seated
    through games.services: a repeated `seat` replaces the earlier one).
    """
    if not 1 <= seat_no <= TABLE_SIZE:
        raise TournamentError(_("Место должно быть от 1 до 10."), "seat_no")
    if participant.tournament_id != table.round.stage.tournament_id:
        raise TournamentError(_("Это участник другого турнира."), "participant")
    with transaction.atomic():
        current = TableSeat.objects.select_for_update().filter(table=table, seat_no=seat_no).first()
        other = (
            TableSeat.objects.select_for_update()
            .filter(table__round_id=table.round_id, participant=participant)
            .select_related("table")
            .first()
        )
        if current is not None and current.participant_id == participant.pk:
            return
        touched = {table.pk: table}
        if other is not None:
            touched[other.table_id] = other.table
        for t in touched.values():
            _refuse_started(t)
        if other is not None and current is not None:
            # Swap: free the seat first (unique per table and participant).
            displaced = current.participant_id
            other_table, other_seat = other.table_id, other.seat_no
            current.delete()
            other.delete()
            TableSeat.objects.create(table=table, seat_no=seat_no, participant=participant)
            TableSeat.objects.create(table_id=other_table, seat_no=other_seat, participant_id=displaced)
        elif other is not None:  # moves to an empty seat
            other.delete()
            TableSeat.objects.create(table=table, seat_no=seat_no, participant=participant)
        elif current is not None:  # replaces someone (who then sits out this round)
            current.participant = participant
            current.save(update_fields=["participant"])
        else:
            TableSeat.objects.create(table=table, seat_no=seat_no, participant=participant)
        for t in touched.values():
            _reseat_game(t, by)
        _seating_changed(sorted({t.round_id for t in touched.values()}))


def table_clear_seat(*, table: Table, seat_no: int, by: Any = None) -> None:
    with transaction.atomic():
        _refuse_started(table)
        TableSeat.objects.filter(table=table, seat_no=seat_no).delete()
        _seating_changed([table.round_id])


def _refuse_started(table: Table) -> None:
    game = Game.objects.filter(pk=table.game_id).only("status").first() if table.game_id else None
    if game is not None and game.status != GameStatus.SETUP:
        raise TournamentError(
            _("Игра за столом %(n)s уже началась: рассадку не изменить.") % {"n": table.number}, "seat_no"
        )


def _reseat_game(table: Table, by: Any) -> None:
    if not table.game_id:
        return
    game = Game.objects.get(pk=table.game_id)
    players = table_players(table)
    if len(players) == TABLE_SIZE:
        game_services.game_record_action(
            game=game, action={"do": "seat", "players": players}, expected_seq=None, by=by or game.host
        )
        _link_seat_players(table, game)


def _link_seat_players(table: Table, game: Game) -> None:
    """The game's seats link to the participants' players (players app)."""
    for seat_no, player_id in TableSeat.objects.filter(table=table, participant__player__isnull=False).values_list(
        "seat_no", "participant__player_id"
    ):
        GameSeat.objects.filter(game=game, seat_no=seat_no).update(player_id=player_id)


def table_players(table: Table) -> list[str]:
    """Nicknames in seat order (only when all ten seats are filled, else what there is)."""
    return [
        s.participant.nickname
        for s in TableSeat.objects.filter(table=table).select_related("participant").order_by("seat_no")
    ]


@dataclass
class StartResult:
    started: list[Table] = field(default_factory=list)
    skipped: list[tuple[Table, str]] = field(default_factory=list)


def round_start_games(*, round: Round, by: Any, ban_override_reason: str = "") -> StartResult:
    """Create the game of every table of the round that has a host and ten seats.

    Each game is created for the table's host (it shows in his «Мои игры»),
    seated from the table, under the tournament's Regulations. A table whose
    game was annulled (W6: a replay is ordered) gets a new game; the annulled
    one stays linked to the table (``Table.annulled_games``), marked and not
    counted, in the workbook and the players' histories.

    A table with a banned player (F4, players/discipline.py) is not started —
    the refusal names the ban's end and its game — unless an organizer gives
    `ban_override_reason` (recorded with each ban it overrides).
    """
    from players import discipline

    tournament = round.stage.tournament
    override = " ".join(ban_override_reason.split()) if discipline.may_override(by, tournament) else ""
    regs = Regulations.from_dict(tournament.regulations or {})
    result = StartResult()
    for table in round.tables.select_related("host", "game").order_by("number"):
        replay = table.game is not None and table.game.status == GameStatus.ANNULLED
        if table.game_id and not replay:
            continue
        if table.host is None:
            result.skipped.append((table, _("не назначен ведущий")))
            continue
        players = table_players(table)
        if len(players) != TABLE_SIZE:
            result.skipped.append((table, _("занято %(n)s мест из 10") % {"n": len(players)}))
            continue
        bans = discipline.seating_check(
            TableSeat.objects.filter(table=table).values_list("participant__player_id", flat=True)
        )
        if bans.bans and not override:
            result.skipped.append((table, " ".join(bans.refusals)))
            continue
        with transaction.atomic():
            locked = Table.objects.select_for_update().get(pk=table.pk)
            if locked.game_id != table.game_id:
                continue  # started meanwhile
            title = table_game_title(tournament.name, round.stage.name, round.number, table.number, replay=bool(replay))
            try:
                game = game_services.game_create(
                    host=table.host, title=_CONTROL.sub("", title)[:200].strip(), players=players, regulations=regs
                )
            except RuleViolation as exc:
                # The input schema refused the seating (a nickname stored before
                # the schema existed): the table is named, nothing is created.
                result.skipped.append((table, exc.message))
                continue
            if replay and locked.game_id is not None:
                locked.annulled_games.add(locked.game_id)  # W6: the annulled protocol stays in the tournament
            _link_seat_players(table, game)
            if bans.bans:
                discipline.record_overrides(check=bans, game=game, reason=override, by=by)
            locked.game = game
            locked.counted = False
            locked.save(update_fields=["game", "counted"])
            table.game = game
        result.started.append(table)
    return result


# --- extra points ------------------------------------------------------------------------------


class ExtraPointsRefused(TournamentError):
    """Some seats' extra points were refused: `errors` by seat; nothing was stored."""

    def __init__(self, errors: dict[int, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{seat}: {text}" for seat, text in sorted(self.errors.items())), "points")


def extra_points_set(
    *, game: Game, seat_no: int, points: Decimal | str | float, comment: str = "", by: Any
) -> ExtraPoints | None:
    """The host's extra points for one seat of a tournament game (0 without a comment removes them)."""
    try:
        rows = extra_points_set_many(game=game, entries={seat_no: (points, comment)}, by=by)
    except ExtraPointsRefused as exc:
        raise TournamentError(next(iter(exc.errors.values())), exc.field) from None
    return rows.get(int(seat_no))


def extra_points_set_many(
    *, game: Game, entries: Mapping[int, tuple[Decimal | str | float, str]], by: Any
) -> dict[int, ExtraPoints | None]:
    """Several seats' extra points at once: all or nothing, one live push.

    Every entry is checked first; one refused entry refuses the submit
    (ExtraPointsRefused names each refused seat) and nothing is stored.
    Then one transaction writes them all and the standings are pushed once,
    after the commit (issue 11, finding 5)."""
    table = Table.objects.filter(game=game).select_related("round__stage__tournament").first()
    if table is None:
        raise TournamentError(_("Это не турнирная игра."), "game")
    policy = table.round.stage.tournament.policy
    checked: dict[int, tuple[Decimal, str]] = {}
    errors: dict[int, str] = {}
    for seat_no, (points, comment) in entries.items():
        try:
            checked[int(seat_no)] = _checked_extra(policy, seat_no, points, comment)
        except TournamentError as exc:
            errors[int(seat_no)] = exc.message
    if errors:
        raise ExtraPointsRefused(errors)
    tid = table.round.stage.tournament_id
    rows: dict[int, ExtraPoints | None] = {}
    with transaction.atomic():
        for seat_no, (value, comment) in checked.items():
            if value == 0 and not comment:
                ExtraPoints.objects.filter(game=game, seat_no=seat_no).delete()
                rows[seat_no] = None
            else:
                rows[seat_no], _created = ExtraPoints.objects.update_or_create(
                    game=game, seat_no=seat_no, defaults={"points": value, "comment": comment, "given_by": _user(by)}
                )
        if game.status == GameStatus.FINISHED:
            _push_after_commit(tid)
    return rows


def _checked_extra(
    policy: ScoringPolicy, seat_no: Any, points: Decimal | str | float, comment: str
) -> tuple[Decimal, str]:
    if type(seat_no) is not int or not 1 <= seat_no <= TABLE_SIZE:
        raise TournamentError(_("Место должно быть от 1 до 10."), "seat_no")
    if isinstance(points, str) and len(points.strip()) > 20:
        raise TournamentError(_("Баллы должны быть числом."), "points")
    try:
        value = D(points)
    except ValueError:
        raise TournamentError(_("Баллы должны быть числом."), "points") from None
    # NaN would make the range check itself fail; ±Infinity is out of range anyway.
    if not value.is_finite():
        raise TournamentError(_("Баллы должны быть числом."), "points")
    if not policy.extra_allowed(value):
        raise TournamentError(
            _("Доп. баллы должны быть от %(min)s до %(max)s.") % {"min": policy.extra_min, "max": policy.extra_max},
            "points",
        )
    if value != value.quantize(Decimal("0.01")):
        raise TournamentError(_("Не больше двух знаков после запятой."), "points")
    try:
        # The same text rules as a penalty reason (games/rules/schema.py).
        text = check_text(comment or "", index=None, field="comment", max_len=300, line_breaks=True)
    except RuleViolation as exc:
        raise TournamentError(_("Комментарий: не длиннее 300 символов, без управляющих символов."), "comment") from exc
    return value, text


# --- hidden results ------------------------------------------------------------------------------


def tournament_hide_standings(*, tournament: Tournament, after_round: Round | None, by: Any) -> Tournament:
    """Hide the public standings after `after_round` (None: publish them again, at once).

    The public surfaces then count only that round and those before it
    (tournaments.visibility); the change itself is public, so it is pushed."""
    if after_round is not None and after_round.stage.tournament_id != tournament.pk:
        raise TournamentError(_("Этот тур не из этого турнира."), "round")
    with transaction.atomic():
        Tournament.objects.filter(pk=tournament.pk).update(
            standings_frozen_after=after_round, standings_frozen_at=timezone.now() if after_round is not None else None
        )
        tournament.refresh_from_db()
        log.info(
            "tournament %s: standings %s by user %s",
            tournament.pk,
            f"hidden after round {after_round.pk}" if after_round else "published",
            getattr(by, "pk", None),
        )
        _push_after_commit(tournament.pk)
    return tournament


# --- internals ------------------------------------------------------------------------------------


def _user(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None


def _push_after_commit(tournament_id: int) -> None:
    from tournaments import live

    transaction.on_commit(lambda: live.push_standings(tournament_id))
