"""Archives: every game and tournament in one JSON file, and back.

The backup, and the way from SQLite to PostgreSQL (README "Backups and
moving to PostgreSQL"). Terms:

- *archive*: one JSON object, format `mafia-protocol-archive/1`, holding
  `users`, `games` and `tournaments`. Records refer to users by username and
  to games by their id in the exporting database (`games[].id`), never by the
  importing database's keys.
- *users*: everyone the games and tournaments name (hosts, organizers, table
  hosts, the authors of actions, scoring revisions and extra points, the
  accounts linked to participants): usernames only; with `with_passwords`
  also the password hash and the staff/superuser/active flags.
- A game is stored as its whole protocol log, undone actions included (each
  with its revision `seq`, author and times), plus what the log does not hold:
  title, host, creation and end times, Regulations, seating seed, overlay
  link and delay, the clock.

Import rebuilds a game by replaying its log through the one write path
(games.services: game_record_action and game_undo_last_action, so the engine
validates every action again and writes the projections and result rows);
undos are replayed where the gaps in the revisions put them. Only the times,
the overlay link and the clock are then put back as they were
(services.game_restore_archived_fields). Tournament rows are written
directly: they are plain data with no rules of their own, and their games
come from the replay above. Everything or nothing: one transaction.

This module lives in `tournaments` because it covers both apps; `games`
never imports it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal
from typing import IO, Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.dateparse import parse_date, parse_datetime

from games import services
from games.board import publish
from games.models import Game
from games.rules import Regulations, RuleViolation
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

FORMAT = "mafia-protocol-archive/1"


class ArchiveError(Exception):
    """The archive cannot be imported here; nothing was written."""


# --- export ------------------------------------------------------------------------


def _iso(value: datetime | date | None) -> str | None:
    return value.isoformat() if value is not None else None


def _username(user: Any) -> str | None:
    return user.username if user is not None else None


def export_archive(*, with_passwords: bool = False) -> dict[str, Any]:
    games = [_export_game(g) for g in Game.objects.select_related("host").prefetch_related("actions__created_by", "actions__undone_by").order_by("created_at", "pk")]
    tournaments = [_export_tournament(t) for t in Tournament.objects.prefetch_related("organizers").order_by("created_at", "pk")]
    names: set[str] = set()
    for g in games:
        names.add(g["host"])
        for a in g["actions"]:
            names.update(n for n in (a["created_by"], a["undone_by"]) if n)
    for t in tournaments:
        names.update(t["organizers"])
        names.update(r["created_by"] for r in t["scoring_revisions"] if r["created_by"])
        names.update(p["user"] for p in t["participants"] if p["user"])
        names.update(e["given_by"] for e in t["extra_points"] if e["given_by"])
        for stage in t["stages"]:
            for rnd in stage["rounds"]:
                names.update(tb["host"] for tb in rnd["tables"] if tb["host"])
    User = get_user_model()
    users = []
    for user in User.objects.filter(username__in=names).order_by("username"):
        entry: dict[str, Any] = {"username": user.username}
        if with_passwords:
            entry.update(password=user.password, is_staff=user.is_staff, is_superuser=user.is_superuser, is_active=user.is_active)
        users.append(entry)
    return {"format": FORMAT, "with_passwords": with_passwords, "users": users, "games": games, "tournaments": tournaments}


def _export_game(game: Game) -> dict[str, Any]:
    return {
        "id": game.pk,
        "title": game.title,
        "host": game.host.username,
        "created_at": _iso(game.created_at),
        "finished_at": _iso(game.finished_at),
        "regulations": game.regulations,
        "seating_seed": game.seating_seed,
        "seq": game.seq,
        "overlay": {"token": game.overlay_token, "delay_seconds": game.overlay_delay_seconds},
        "clock": {
            "key": game.clock_key,
            "duration_ms": game.clock_duration_ms,
            "started_at": _iso(game.clock_started_at),
            "elapsed_ms": game.clock_elapsed_ms,
            "timeout_since": _iso(game.timeout_since),
        },
        "actions": [
            {
                "seq": a.seq,
                "payload": a.payload,
                "created_at": _iso(a.created_at),
                "created_by": _username(a.created_by),
                "undone_at": _iso(a.undone_at),
                "undone_by": _username(a.undone_by),
            }
            for a in sorted(game.actions.all(), key=lambda a: a.seq)
        ],
    }


def _export_tournament(t: Tournament) -> dict[str, Any]:
    stages = []
    for stage in t.stages.order_by("order", "pk"):
        rounds = []
        for rnd in stage.rounds.order_by("number"):
            tables = []
            for table in rnd.tables.select_related("host").order_by("number"):
                tables.append(
                    {
                        "number": table.number,
                        "host": _username(table.host),
                        "game": table.game_id,
                        # W6: annulled games of the table stay in the tournament (its replay is a new game).
                        "annulled_games": sorted(g.pk for g in table.annulled_games.all()),
                        "counted": table.counted,
                        "seats": [{"seat_no": s.seat_no, "participant": s.participant.nickname} for s in table.seats.select_related("participant").order_by("seat_no")],
                    }
                )
            rounds.append({"number": rnd.number, "tables": tables})
        stages.append({"name": stage.name, "order": stage.order, "seating_seed": stage.seating_seed, "seating_quality": stage.seating_quality, "rounds": rounds})
    game_ids = {gid for tb in Table.objects.filter(round__stage__tournament=t).prefetch_related("annulled_games") for gid in (tb.game_id, *(g.pk for g in tb.annulled_games.all())) if gid is not None}
    return {
        "name": t.name,
        "starts_on": _iso(t.starts_on),
        "ends_on": _iso(t.ends_on),
        "created_at": _iso(t.created_at),
        "organizers": sorted(u.username for u in t.organizers.all()),
        "regulations": t.regulations,
        "scoring": t.scoring,
        "scoring_preset": t.scoring_preset,
        "scoring_revision": t.scoring_revision,
        "scoring_revisions": [
            {"number": r.number, "policy": r.policy, "preset": r.preset, "note": r.note, "created_at": _iso(r.created_at), "created_by": _username(r.created_by)}
            for r in t.scoring_revisions.select_related("created_by").order_by("number")
        ],
        "participants": [{"nickname": p.nickname, "user": _username(p.user), "active": p.active} for p in t.participants.select_related("user").order_by("nickname")],
        "stages": stages,
        # Extra points belong to a game; the tournament's are those of its tables' games.
        "extra_points": [
            {"game": e.game_id, "seat_no": e.seat_no, "points": str(e.points), "comment": e.comment, "given_by": _username(e.given_by)}
            for e in ExtraPoints.objects.filter(game_id__in=list(game_ids)).select_related("given_by").order_by("game_id", "seat_no")
        ],
    }


def write_archive(fileobj: IO[str], *, with_passwords: bool = False) -> dict[str, int]:
    data = export_archive(with_passwords=with_passwords)
    json.dump(data, fileobj, ensure_ascii=False, indent=1, sort_keys=False)
    fileobj.write("\n")
    return {"users": len(data["users"]), "games": len(data["games"]), "tournaments": len(data["tournaments"])}


# --- import ------------------------------------------------------------------------


def _dt(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    parsed = parse_datetime(str(value))
    if parsed is None:
        raise ArchiveError(f"not a date and time: {value!r}")
    return parsed


def _d(value: Any) -> date | None:
    return parse_date(str(value)) if value else None


def import_archive(data: dict[str, Any]) -> dict[str, int]:
    """Rebuild every user, game and tournament of `data` into an empty database."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArchiveError(f"not an archive of format {FORMAT}")
    if Game.objects.exists() or Tournament.objects.exists():
        raise ArchiveError("the database already holds games or tournaments; import into an empty database")
    with publish.broadcasts_suppressed(), transaction.atomic():
        users = _import_users(data.get("users", []))
        games: dict[int, Game] = {}
        for record in data.get("games", []):
            games[int(record["id"])] = _import_game(record, users)
        for record in data.get("tournaments", []):
            _import_tournament(record, users, games)
    return {"users": len(users), "games": len(games), "tournaments": len(data.get("tournaments", []))}


def _import_users(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    User = get_user_model()
    users: dict[str, Any] = {}
    for record in records:
        name = str(record["username"])
        user = User.objects.filter(username=name).first()
        if user is None:  # an existing account (the admin made before the import) is kept as it is
            user = User(username=name)
            if record.get("password"):
                user.password = record["password"]
                user.is_staff = bool(record.get("is_staff"))
                user.is_superuser = bool(record.get("is_superuser"))
                user.is_active = bool(record.get("is_active", True))
            else:
                user.set_unusable_password()  # a password reset (or createsuperuser) gives one
            user.save()
        users[name] = user
    return users


def _user(users: dict[str, Any], name: str | None) -> Any:
    if not name:
        return None
    if name not in users:
        raise ArchiveError(f"user {name!r} is named but not in the archive's users")
    return users[name]


def _import_game(record: dict[str, Any], users: dict[str, Any]) -> Game:
    label = f"game {record.get('id')} «{record.get('title', '')}»"
    regulations = Regulations.from_dict(record["regulations"]) if record.get("regulations") else None
    game = services.game_create(host=_user(users, record["host"]), title=record.get("title", ""), regulations=regulations, seating_seed=record.get("seating_seed", ""))
    actions = sorted(record.get("actions", []), key=lambda a: int(a["seq"]))
    by_seq = {int(a["seq"]): a for a in actions}
    for action in actions:
        seq = int(action["seq"])
        # A gap in the revisions is an undo made there: of the action that was last then.
        while game.seq + 1 < seq:
            _replay_undo(game, by_seq, users, label)
        if game.seq + 1 != seq:
            raise ArchiveError(f"{label}: action revisions out of order at {seq}")
        try:
            services.game_record_action(game=game, action=action["payload"], expected_seq=game.seq, by=_user(users, action.get("created_by")))
        except RuleViolation as exc:
            raise ArchiveError(f"{label}: the engine refuses action {seq} ({exc.rule}: {exc})") from exc
    while game.seq < int(record.get("seq", game.seq)):
        _replay_undo(game, by_seq, users, label)
    undone_here = set(game.actions.filter(undone_at__isnull=False).values_list("seq", flat=True))
    undone_there = {int(a["seq"]) for a in actions if a.get("undone_at")}
    if undone_here != undone_there or game.seq != int(record.get("seq", game.seq)):
        raise ArchiveError(f"{label}: the undos do not replay to the archived protocol")
    overlay = record.get("overlay") or {}
    clock = dict(record.get("clock") or {})
    clock["started_at"], clock["timeout_since"] = _dt(clock.get("started_at")), _dt(clock.get("timeout_since"))
    created = _dt(record.get("created_at"))
    return services.game_restore_archived_fields(
        game=game,
        created_at=created or game.created_at,
        finished_at=_dt(record.get("finished_at")),
        overlay_token=str(overlay.get("token", "")),
        overlay_delay_seconds=int(overlay.get("delay_seconds", 0)),
        clock=clock,
        action_times={int(a["seq"]): (_dt(a["created_at"]) or game.created_at, _dt(a.get("undone_at"))) for a in actions},
    )


def _replay_undo(game: Game, by_seq: dict[int, dict[str, Any]], users: dict[str, Any], label: str) -> None:
    last = game.active_actions().last()
    if last is None:
        raise ArchiveError(f"{label}: an undo with nothing to undo at revision {game.seq + 1}")
    archived = by_seq.get(last.seq, {})
    services.game_undo_last_action(game=game, expected_seq=game.seq, by=_user(users, archived.get("undone_by")))


def _import_tournament(record: dict[str, Any], users: dict[str, Any], games: dict[int, Game]) -> Tournament:
    t = Tournament.objects.create(
        name=record["name"],
        starts_on=_d(record.get("starts_on")),
        ends_on=_d(record.get("ends_on")),
        regulations=record.get("regulations") or {},
        scoring=record["scoring"],
        scoring_preset=record.get("scoring_preset", ""),
        scoring_revision=int(record.get("scoring_revision", 1)),
    )
    Tournament.objects.filter(pk=t.pk).update(created_at=_dt(record.get("created_at")) or t.created_at)
    t.organizers.set([_user(users, name) for name in record.get("organizers", [])])
    for r in record.get("scoring_revisions", []):
        rev = ScoringRevision.objects.create(tournament=t, number=int(r["number"]), policy=r["policy"], preset=r.get("preset", ""), note=r.get("note", ""), created_by=_user(users, r.get("created_by")))
        ScoringRevision.objects.filter(pk=rev.pk).update(created_at=_dt(r.get("created_at")) or rev.created_at)
    participants = {
        p["nickname"]: Participant.objects.create(tournament=t, nickname=p["nickname"], user=_user(users, p.get("user")), active=bool(p.get("active", True)))
        for p in record.get("participants", [])
    }

    def game_of(old_id: Any) -> Game | None:
        if old_id is None:
            return None
        if int(old_id) not in games:
            raise ArchiveError(f"tournament «{t.name}»: game {old_id} is not in the archive")
        return games[int(old_id)]

    for s in record.get("stages", []):
        stage = Stage.objects.create(tournament=t, name=s["name"], order=int(s["order"]), seating_seed=s.get("seating_seed", ""), seating_quality=s.get("seating_quality") or {})
        for r in s.get("rounds", []):
            rnd = Round.objects.create(stage=stage, number=int(r["number"]))
            for tb in r.get("tables", []):
                table = Table.objects.create(round=rnd, number=int(tb["number"]), host=_user(users, tb.get("host")), game=game_of(tb.get("game")), counted=bool(tb.get("counted")))
                table.annulled_games.set([g for gid in tb.get("annulled_games", []) if (g := game_of(gid)) is not None])
                for seat in tb.get("seats", []):
                    if seat["participant"] not in participants:
                        raise ArchiveError(f"tournament «{t.name}»: seat of unknown participant {seat['participant']!r}")
                    TableSeat.objects.create(table=table, seat_no=int(seat["seat_no"]), participant=participants[seat["participant"]])
    for e in record.get("extra_points", []):
        game = game_of(e["game"])
        if game is None:
            raise ArchiveError(f"tournament «{t.name}»: extra points without a game")
        ExtraPoints.objects.create(game=game, seat_no=int(e["seat_no"]), points=Decimal(str(e["points"])), comment=e.get("comment", ""), given_by=_user(users, e.get("given_by")))
    return t


def read_archive(fileobj: IO[str]) -> dict[str, Any]:
    try:
        data = json.load(fileobj)
    except json.JSONDecodeError as exc:
        raise ArchiveError(f"not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ArchiveError("not an archive: the file holds no JSON object")
    return data
