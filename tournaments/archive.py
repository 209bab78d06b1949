"""Archives: everything the app owns in one JSON file, and back, with the same ids.

The backup, the way from SQLite to PostgreSQL and the way between versions
(README "Backups and moving to PostgreSQL"). Terms:

- *archive*: one JSON object. Format `mafia-protocol-archive/2` (this
  module's) holds `format`, `app_version`, `exported_at`, `users` and
  `tables`: for each declared model (SPECS), its rows as recorded, primary
  keys included, so every URL a club has shared keeps pointing where it did.
  Format `/1` (earlier commits: games as logs, tournaments nested, new ids)
  is still read (`_rows_from_v1`).
- *declared*: every field of every model the app owns is either archived or
  excluded with a reason (ModelSpec; EXCLUDED_MODELS for whole models that
  are derived or transient). tests/deploy/test_archive_completeness.py fails
  on a field that is neither, naming it.
- *users*: accounts are referred to by username, never by id (an importing
  database may already hold its admin). With `with_passwords` also the
  password hash and the staff/superuser/active flags.
- *secrets*: Discord webhook URLs and overlay tokens; only `with_secrets`
  archives them, otherwise they come back empty (the host sets them again).
- *as recorded*: import writes the stored rows (actions with their authors,
  times and undos, the projection rows and result rows the game wrote) as
  they were; the engine is not a gate. Each game's log is then read by
  today's rules (games.rules `replay_as_recorded`): a game they read differently is
  imported all the same and *flagged* in the import's report, naming the
  actions today's rules would refuse.
- *snapshot*: an export reads every table inside one read-only transaction
  (REPEATABLE READ on PostgreSQL, one deferred read transaction on SQLite's
  WAL), so a backup taken while a host plays is consistent (issue 27-1).

Import is everything or nothing (one transaction), bulk inserts in
dependency order, then PostgreSQL's sequences are moved past the restored
ids and the players' statistics and ratings are rebuilt (players.book).

This module lives in `tournaments` because it covers every app; `games`
never imports it.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import tomllib
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone

from discord_bridge.models import (
    BotHeartbeat,
    ChatPost,
    DiscordLink,
    Proposal,
    TournamentDiscordLink,
    VoiceSnapshot,
)
from discord_bridge.voice_models import (
    BlackInvite,
    RoundNotice,
    RoundPublication,
    SeatNickname,
    SeatProfile,
    SilenceEvent,
    VoiceControl,
    VoiceJournal,
    VoiceMute,
    VoteRecheck,
)
from games import services
from games.board import publish
from games.models import (
    Game,
    GameAction,
    GameSeat,
    NightAction,
    Nomination,
    Penalty,
    SeatResult,
    Vote,
)
from games.rules import Regulations, RuleViolation
from games.rules import replay_as_recorded as engine_replay_as_recorded
from games.rules.schema import JSONInputError, parse_json, validate_action
from players.book import recompute as recompute_ratings
from players.models import (
    Alias,
    BanOverride,
    DisciplineRecord,
    LinkDecision,
    Player,
    PlayerGame,
    PlayerMerge,
    PlayerMonth,
    PlayerStats,
    RatedGame,
    StatisticsLine,
)
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

FORMAT = "mafia-protocol-archive/2"
FORMAT_V1 = "mafia-protocol-archive/1"
READABLE_FORMATS = (FORMAT, FORMAT_V1)
# An archive of a big club is large; the limit only bounds a hostile file.
MAX_ARCHIVE_BYTES = 4 * 1024**3


class ArchiveError(Exception):
    """The archive cannot be imported here; nothing was written. One line, for the command's answer."""


# --- the declaration ---------------------------------------------------------------


@dataclass(frozen=True)
class ModelSpec:
    """What of `model` an archive carries.

    `fields`: archived as recorded (a foreign key by the related row's id,
    except `users`: by username). `secrets`: archived only with_secrets.
    `excluded`: field -> why it is not archived. `forward`: foreign keys (among
    `fields`) that point at a model declared later — a cycle such as a
    tournament's hidden-results round; both databases check foreign keys at
    commit (DEFERRABLE INITIALLY DEFERRED), so the row may come first.
    """

    model: type[models.Model]
    fields: tuple[str, ...]
    users: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    excluded: dict[str, str] = field(default_factory=dict)
    forward: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return self.model._meta.label_lower


_AUTO_UPDATED = "set by the database on every save; the import writes the archived row's other times as they were"
_DERIVED_RATINGS = "derived: players.book.recompute() rebuilds it from the result rows after the import"
_DISCORD_TRANSIENT = "the running bot's working state; a restored database starts with a fresh one"

# In dependency order: a row is inserted after the rows it points at.
SPECS: tuple[ModelSpec, ...] = (
    ModelSpec(Player, ("id", "nickname", "key", "club", "discord_user_id", "user", "created_at"), users=("user",)),
    ModelSpec(Alias, ("id", "player", "nickname", "key", "created_at")),
    ModelSpec(
        PlayerMerge,
        ("id", "kept", "merged_player_id", "merged_nickname", "seats_moved", "participants_moved", "by", "created_at"),
        users=("by",),
    ),
    ModelSpec(
        Game,
        (
            "id",
            "host",
            "title",
            "created_at",
            "status",
            "winner",
            "ppk",
            "finished_at",
            "seq",
            "public_state",
            "regulations",
            "seating_seed",
            "clock_key",
            "clock_duration_ms",
            "clock_started_at",
            "clock_elapsed_ms",
            "timeout_since",
            "tech_pause_ended_at",
            "overlay_delay_seconds",
            "rated",
            "public_rev",
            "public_facts",
            "public_at",
        ),
        users=("host",),
        secrets=("overlay_token",),
        excluded={"updated_at": _AUTO_UPDATED},
    ),  # fmt: skip
    ModelSpec(GameSeat, ("id", "game", "seat_no", "nickname", "role", "player")),
    ModelSpec(
        GameAction,
        ("id", "game", "seq", "payload", "created_at", "created_by", "undone_at", "undone_by"),
        users=("created_by", "undone_by"),
    ),
    ModelSpec(Nomination, ("id", "game", "action", "day", "by_seat", "target_seat", "result")),
    ModelSpec(
        Vote, ("id", "game", "action", "day", "round_no", "kind", "voter_seat", "candidate_seat", "lift_yes", "auto")
    ),
    ModelSpec(Penalty, ("id", "game", "action", "kind", "seat", "team", "reason", "day", "phase", "count", "removed")),
    ModelSpec(NightAction, ("id", "game", "action", "night", "kind", "actor_seat", "target_seat", "result", "seats")),
    ModelSpec(
        SeatResult,
        (
            "id",
            "game",
            "seat_no",
            "nickname",
            "role",
            "team",
            "won",
            "winner",
            "left_how",
            "left_day",
            "left_phase",
            "fouls",
            "warnings",
            "grey_cards",
            "disqualified",
            "removed_by_fouls",
            "ppk",
            "first_night_victim",
            "best_move_seats",
            "best_move_accepted",
            "best_move_blacks",
        ),
    ),  # fmt: skip
    ModelSpec(
        Tournament,
        (
            "id",
            "name",
            "starts_on",
            "ends_on",
            "regulations",
            "scoring",
            "scoring_preset",
            "scoring_revision",
            "created_at",
            "organizers",
            "standings_frozen_after",
            "standings_frozen_at",
        ),
        users=("organizers",),
        excluded={
            "public_standings_digest": "what the public standings socket last sent; the next push compares against a fresh one"
        },
        forward=("standings_frozen_after",),
    ),
    ModelSpec(
        ScoringRevision,
        ("id", "tournament", "number", "policy", "preset", "note", "created_at", "created_by"),
        users=("created_by",),
    ),
    ModelSpec(Participant, ("id", "tournament", "nickname", "user", "active", "player"), users=("user",)),
    ModelSpec(Stage, ("id", "tournament", "name", "order", "seating_seed", "seating_quality")),
    ModelSpec(Round, ("id", "stage", "number")),
    ModelSpec(Table, ("id", "round", "number", "host", "game", "counted", "annulled_games"), users=("host",)),
    ModelSpec(TableSeat, ("id", "table", "seat_no", "participant")),
    ModelSpec(
        ExtraPoints,
        ("id", "game", "seat_no", "points", "comment", "given_by"),
        users=("given_by",),
        excluded={"updated_at": _AUTO_UPDATED},
    ),
    ModelSpec(
        DiscordLink,
        # The proofs (issue 25-8) are kept: who answered «да», which channels were checked;
        # a restored link routes as it did. The bot's to-do flags are its working state.
        ("id", "game", "guild_id", "text_channel_id", "voice_channel_id", "seats", "seat_proofs", "channels_proof"),
        secrets=("webhook_url",),
        excluded={
            "ask_due": _DISCORD_TRANSIENT,
            "channels_check_due": _DISCORD_TRANSIENT,
            "channels_problem": _DISCORD_TRANSIENT,
            "vote_key": _DISCORD_TRANSIENT,
            "vote_clicks": _DISCORD_TRANSIENT,
            "vote_line_at": _DISCORD_TRANSIENT,
            "updated_at": _AUTO_UPDATED,
        },
    ),
    ModelSpec(
        TournamentDiscordLink,
        ("id", "tournament", "guild_id", "text_channel_id", "voice_channel_id"),
        secrets=("webhook_url",),
    ),
    # The players' registry: who decided which seat is whom, and the discipline that outlives a game (F3, F4).
    ModelSpec(
        LinkDecision,
        ("id", "kind", "seat", "participant", "nickname", "player", "created_player", "by", "created_at"),
        users=("by",),
    ),
    ModelSpec(
        DisciplineRecord,
        (
            "id",
            "kind",
            "game",
            "seat_no",
            "nickname",
            "player",
            "rule",
            "cause",
            "reason",
            "host",
            "given_at",
            "ends_at",
            "lifted_at",
            "lifted_by",
            "lift_reason",
        ),
        users=("host", "lifted_by"),
    ),
    ModelSpec(BanOverride, ("id", "record", "game", "reason", "by", "created_at"), users=("by",)),
)

# Whole models an archive leaves out, and why.
EXCLUDED_MODELS: dict[type[models.Model], str] = {
    PlayerStats: _DERIVED_RATINGS,
    PlayerMonth: _DERIVED_RATINGS,
    VoiceControl: _DISCORD_TRANSIENT + " (the voice plan: the next step change plans it again)",
    VoiceMute: _DISCORD_TRANSIENT + " (who the bot muted: a restore is done with no game running in voice)",
    BlackInvite: "one-use invites the bot revokes after the game: restoring one would bring back a code to the blacks' server",
    VoiceJournal: "the bot's journal of its voice actions and Discord's answers, for the host during the game",
    SilenceEvent: "possible chat and profile violations shown to the host during the game; the protocol holds the fouls he recorded",
    SeatProfile: _DISCORD_TRANSIENT + " (the profile baseline a change is measured against during a game)",
    SeatNickname: _DISCORD_TRANSIENT
    + " (the nicknames to restore after a game: a restore is done with no game running)",
    VoteRecheck: "the host's vote re-checks, read from Discord's history during the game; the protocol holds the vote he recorded",
    RoundPublication: "when a round's seating was sent by DM: restoring it would send corrections of an old seating",
    RoundNotice: "the bot's DM outbox for round notices: restoring it would DM the participants again",
    PlayerGame: _DERIVED_RATINGS,
    RatedGame: _DERIVED_RATINGS,
    StatisticsLine: _DERIVED_RATINGS,
    Proposal: "players' Discord DMs to a running game, the host's eyes only; the protocol holds what he applied",
    ChatPost: "the bot's outbox: restoring it would post to Discord again",
    BotHeartbeat: _DISCORD_TRANSIENT,
    VoiceSnapshot: _DISCORD_TRANSIENT,
}

# The apps whose models an archive must declare (the completeness test walks them).
ARCHIVED_APPS = ("games", "players", "tournaments", "discord_bridge")


def _model_field(spec: ModelSpec, name: str) -> models.Field[Any, Any]:
    return spec.model._meta.get_field(name)  # type: ignore[return-value]


# --- export ------------------------------------------------------------------------


def app_version() -> str:
    """`<pyproject version>+<commit>`: recorded in every archive, read by no import (a human's clue)."""
    root = Path(__file__).resolve().parents[1]
    try:
        version = str(tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        version = "unknown"
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{version}+{commit}" if commit else version


@contextlib.contextmanager
def read_snapshot() -> Iterator[None]:
    """Every query inside reads one state of the database (issue 27-1: games and actions read apart disagreed)."""
    if connection.in_atomic_block:
        yield  # already one transaction (a caller's, or a test's)
        return
    if connection.vendor == "postgresql":
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
        return
    if connection.vendor == "sqlite":
        # Not atomic(): the settings' BEGIN IMMEDIATE would hold the write
        # lock for the whole export and stop the host. A deferred read
        # transaction in WAL mode is a snapshot and blocks no writer.
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("BEGIN DEFERRED")
            try:
                yield
            finally:
                cursor.execute("COMMIT")
        return
    with transaction.atomic():
        yield


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


_APP_LABELS = frozenset({"games", "players", "tournaments", "discord_bridge"})


def _grant_rights(records: list[Any], created: set[str], ids: dict[str, int]) -> None:
    """Give the accounts the import created the app rights they had (an existing account keeps its own)."""
    from django.contrib.auth.models import Permission

    wanted: dict[str, list[str]] = {}
    for n, record in enumerate(records):
        if not isinstance(record, dict) or record.get("username") not in created:
            continue
        rights = record.get("permissions", [])
        if not isinstance(rights, list) or not all(
            isinstance(r, str) and r.count(".") == 1 and r.split(".")[0] in _APP_LABELS for r in rights
        ):
            raise ArchiveError(
                f"users[{n}]: permissions must be a list of this app's rights like 'games.host_rated_games'"
            )
        if rights:
            wanted[record["username"]] = rights
    if not wanted:
        return
    known = {
        f"{p.content_type.app_label}.{p.codename}": p
        for p in Permission.objects.filter(content_type__app_label__in=_APP_LABELS).select_related("content_type")
    }
    through = get_user_model().user_permissions.through
    rows = []
    for name, rights in wanted.items():
        for right in rights:
            if right not in known:
                raise ArchiveError(f"users: {name!r} has the right {right!r}, which this version does not know")
            rows.append(through(user_id=ids[name], permission_id=known[right].pk))
    through.objects.bulk_create(rows, ignore_conflicts=True)


def export_archive(*, with_passwords: bool = False, with_secrets: bool = False) -> dict[str, Any]:
    with read_snapshot():
        User = get_user_model()
        usernames = dict(User.objects.values_list("pk", "username"))
        tables: dict[str, list[dict[str, Any]]] = {}
        named: set[int] = set()
        for spec in SPECS:
            tables[spec.label] = _export_rows(spec, usernames, named, with_secrets=with_secrets)
        users = []
        for user in User.objects.filter(pk__in=named).order_by("username"):
            entry: dict[str, Any] = {"username": user.username}
            # The app's own rights (e.g. games.host_rated_games, «может вести рейтинговые
            # игры»): which games count for ratings depends on them (players/trust.py).
            rights = sorted(
                p for p in user.get_all_permissions() if p.split(".", 1)[0] in _APP_LABELS and not user.is_superuser
            )
            if rights:
                entry["permissions"] = rights
            if with_passwords:
                entry.update(
                    password=user.password,
                    is_staff=user.is_staff,
                    is_superuser=user.is_superuser,
                    is_active=user.is_active,
                )
            users.append(entry)
    return {
        "format": FORMAT,
        "app_version": app_version(),
        "exported_at": timezone.now().isoformat(),
        "with_passwords": with_passwords,
        "with_secrets": with_secrets,
        "users": users,
        "tables": tables,
    }


def _export_rows(
    spec: ModelSpec, usernames: dict[int, str], named: set[int], *, with_secrets: bool
) -> list[dict[str, Any]]:
    names = spec.fields + (spec.secrets if with_secrets else ())
    plain = [n for n in names if not _model_field(spec, n).many_to_many]
    columns = [_model_field(spec, n).attname for n in plain]
    rows: list[dict[str, Any]] = []
    for values in spec.model._default_manager.order_by("pk").values_list(*columns):
        row = {}
        for name, value in zip(plain, values, strict=True):
            if name in spec.users and value is not None:
                named.add(value)
                value = usernames[value]
            row[name] = _jsonable(value)
        rows.append(row)
    for name in (n for n in names if _model_field(spec, n).many_to_many):
        m2m = _model_field(spec, name)
        rel: Any = m2m.remote_field
        through = rel.through
        source, target = m2m.m2m_field_name(), m2m.m2m_reverse_field_name()  # type: ignore[attr-defined]
        linked: dict[int, list[Any]] = defaultdict(list)
        for owner, other in through.objects.order_by(source, target).values_list(f"{source}_id", f"{target}_id"):
            if name in spec.users:
                named.add(other)
                other = usernames[other]
            linked[owner].append(other)
        for row in rows:
            row[name] = linked.get(row["id"], [])
    return rows


def write_archive(fileobj: IO[str], *, with_passwords: bool = False, with_secrets: bool = False) -> dict[str, int]:
    data = export_archive(with_passwords=with_passwords, with_secrets=with_secrets)
    json.dump(data, fileobj, ensure_ascii=False, indent=None, separators=(",", ":"))
    fileobj.write("\n")
    tables = data["tables"]
    return {
        "users": len(data["users"]),
        "games": len(tables["games.game"]),
        "tournaments": len(tables["tournaments.tournament"]),
        "actions": len(tables["games.gameaction"]),
    }


# --- reading -----------------------------------------------------------------------


def read_archive(fileobj: IO[bytes] | IO[str]) -> dict[str, Any]:
    """The archive's JSON, read with the limits of every JSON the app reads (README "Limits on input")."""
    raw = fileobj.read()
    try:
        data = parse_json(raw, max_bytes=MAX_ARCHIVE_BYTES)
    except JSONInputError as exc:
        raise ArchiveError(f"not JSON: {exc.en}") from None
    if not isinstance(data, dict):
        raise ArchiveError("not an archive: the file holds no JSON object")
    return data


# --- today's reading of a log as recorded ------------------------------------------


@dataclass(frozen=True)
class Refusal:
    """An action of a recorded log that today's rules would refuse: its position among the active actions."""

    index: int
    seq: int
    rule: str
    message: str


def _reading_refusals(actions: list[tuple[int, dict[str, Any]]], regulations: Regulations) -> list[Refusal]:
    """The stored actions today's rules refuse, by the engine's own tolerant replay
    (games.rules.replay_as_recorded). Each payload passes the input schema first: a
    damaged archive's payload is reported as refused, never a traceback."""
    checked: list[dict[str, Any]] = []
    schema: dict[int, RuleViolation] = {}
    for i, (_seq, payload) in enumerate(actions):
        try:
            checked.append(validate_action(payload, index=i))
        except RuleViolation as refusal:
            schema[i] = refusal
            checked.append({"do": "__refused_by_schema__"})  # keeps every later index in place; the engine refuses it
    _, refused = engine_replay_as_recorded(checked, regulations)
    out = []
    for i, by_engine in refused:
        why = schema.get(i, by_engine)
        out.append(Refusal(index=i, seq=actions[i][0], rule=why.rule, message=str(why)))
    return out


# --- import ------------------------------------------------------------------------


@dataclass
class ImportReport:
    counts: dict[str, int]
    app_version: str
    format: str
    flagged: dict[int, list[Refusal]] = field(default_factory=dict)  # game id -> today's refusals
    created_users: list[str] = field(default_factory=list)
    privileged_users: list[str] = field(default_factory=list)
    checked_only: bool = False

    def lines(self) -> list[str]:
        out = []
        for game_id, refusals in sorted(self.flagged.items()):
            what = "; ".join(f"action {r.seq} ({r.rule}: {r.message})" for r in refusals[:5])
            more = f" and {len(refusals) - 5} more" if len(refusals) > 5 else ""
            out.append(f"game {game_id}: imported as recorded; today's rules would refuse {what}{more}")
        if self.privileged_users:
            out.append(
                "staff or superuser accounts "
                + ("to create: " if self.checked_only else "created: ")
                + ", ".join(self.privileged_users)
            )
        return out


class _CheckOnly(Exception):
    """Raised inside the import's transaction to roll a --check back."""


def import_archive(data: dict[str, Any], *, check_only: bool = False, allow_superusers: bool = False) -> ImportReport:
    """Restore every row of `data` into a database whose app tables are empty, with the same ids.

    `check_only`: do everything, report, and write nothing."""
    if not isinstance(data, dict) or data.get("format") not in READABLE_FORMATS:
        raise ArchiveError(f"not an archive of format {' or '.join(READABLE_FORMATS)}")
    try:
        tables, users = (
            (_tables_of_v2(data) if data["format"] == FORMAT else _rows_from_v1(data)),
            _list(data.get("users", []), "users"),
        )
    except ArchiveError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ArchiveError(f"damaged archive: {_describe(exc)}") from None
    occupied = [spec.label for spec in SPECS if spec.model._default_manager.exists()]
    if occupied:
        raise ArchiveError(f"the database already holds rows of {', '.join(occupied)}; import into an empty database")
    report = ImportReport(
        counts={},
        app_version=str(data.get("app_version") or "before format /2"),
        format=str(data["format"]),
        checked_only=check_only,
    )
    try:
        with publish.broadcasts_suppressed(), transaction.atomic():
            user_ids = _import_users(users, report, allow_superusers=allow_superusers)
            for spec in SPECS:
                report.counts[spec.label] = _insert_rows(spec, tables.get(spec.label, []), user_ids)
            if data["format"] == FORMAT_V1:
                _derive_v1_games(tables)
            report.flagged = _read_games_by_todays_rules()
            _reset_sequences()
            recompute_ratings()  # the players' own rebuild of statistics and ratings
            if check_only:
                raise _CheckOnly
    except _CheckOnly:
        pass
    except DatabaseError as exc:
        raise ArchiveError(f"the database refuses a row: {_describe(exc)}") from None
    return report


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}"


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ArchiveError(f"{where}: a list was expected")
    return value


def _tables_of_v2(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    tables = data.get("tables")
    if not isinstance(tables, dict):
        raise ArchiveError("tables: an object was expected")
    known = {spec.label for spec in SPECS}
    unknown = sorted(set(tables) - known)
    if unknown:
        # A newer app's model: importing without it would lose data silently.
        raise ArchiveError(
            f"tables of a newer version: {', '.join(unknown)} (archive of {data.get('app_version')}); update this app first"
        )
    out = {}
    for label, rows in tables.items():
        out[label] = [_row(r, f"{label} row {n}") for n, r in enumerate(_list(rows, label))]
    return out


def _row(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ArchiveError(f"{where}: an object was expected")
    return value


# The username rules of both databases: Django's validator and length, no NUL
# (PostgreSQL refuses it, SQLite would store it).
_USERNAME_VALIDATOR = UnicodeUsernameValidator()


def _import_users(records: list[Any], report: ImportReport, *, allow_superusers: bool) -> dict[str, int]:
    User = get_user_model()
    max_length = User._meta.get_field("username").max_length or 150
    existing = {u.username: u for u in User.objects.all()}
    folded = {unicodedata.normalize("NFKC", name).casefold(): name for name in existing}
    ids: dict[str, int] = {}
    new: list[Any] = []
    privileged: list[str] = []
    for n, record in enumerate(records):
        record = _row(record, f"users[{n}]")
        name = record.get("username")
        if not isinstance(name, str) or not name or len(name) > max_length or "\x00" in name:
            raise ArchiveError(f"users[{n}]: a username is 1 to {max_length} characters: {str(name)[:40]!r}")
        try:
            _USERNAME_VALIDATOR(name)
        except ValidationError:
            raise ArchiveError(
                f"users[{n}]: {name[:40]!r} is not a valid username (letters, digits and @.+-_ only)"
            ) from None
        if name in existing:
            ids[name] = existing[name].pk  # an existing account (the admin made before the import) is kept as it is
            continue
        key = unicodedata.normalize("NFKC", name).casefold()
        if key in folded:
            raise ArchiveError(
                f"users[{n}]: {name!r} differs only in case from the account {folded[key]!r}; rename one of them first"
            )
        folded[key] = name
        user = User(username=name)
        if record.get("password"):
            if not isinstance(record["password"], str) or len(record["password"]) > 128:
                raise ArchiveError(f"users[{n}] {name!r}: the password hash is not a hash")
            user.password = record["password"]
            user.is_staff = record.get("is_staff") is True
            user.is_superuser = record.get("is_superuser") is True
            user.is_active = record.get("is_active", True) is not False
        else:
            user.set_unusable_password()  # a password reset (or createsuperuser) gives one
        if user.is_staff or user.is_superuser:
            privileged.append(name)
        new.append(user)
    report.privileged_users = privileged
    if privileged and not allow_superusers:
        raise ArchiveError(
            f"the archive would create staff or superuser accounts: {', '.join(privileged)}; add --allow-superusers if they are meant"
        )
    User.objects.bulk_create(new, batch_size=500)
    for user in User.objects.filter(username__in=[u.username for u in new]):
        ids[user.username] = user.pk
    _grant_rights(records, {u.username for u in new}, ids)
    report.created_users = [u.username for u in new]
    return ids


@contextlib.contextmanager
def _archived_times(model: type[models.Model]) -> Iterator[None]:
    """Let bulk_create write the archived times: auto_now(_add) fields would put the import's time."""
    switched = []
    for f in model._meta.concrete_fields:
        if isinstance(f, models.DateField) and (f.auto_now or f.auto_now_add):
            switched.append((f, f.auto_now, f.auto_now_add))
            f.auto_now = f.auto_now_add = False
            if f.null is False:
                vars(f)["pre_save"] = _now_when_empty(f)  # an instance attribute shadows the method until the finally
    try:
        yield
    finally:
        for f, now, now_add in switched:
            f.auto_now, f.auto_now_add = now, now_add
            f.__dict__.pop("pre_save", None)


def _now_when_empty(f: models.DateField[Any, Any]) -> Callable[[models.Model, bool], Any]:
    def pre_save(instance: models.Model, add: bool) -> Any:
        if getattr(instance, f.attname) is None:
            setattr(instance, f.attname, timezone.now())  # a field the archive did not carry (updated_at)
        return getattr(instance, f.attname)

    return pre_save


def _insert_rows(spec: ModelSpec, rows: list[dict[str, Any]], user_ids: dict[str, int]) -> int:
    if not rows:
        return 0
    allowed = set(spec.fields) | set(spec.secrets)
    plain = [n for n in allowed if not _model_field(spec, n).many_to_many]
    m2m_names = [n for n in allowed if _model_field(spec, n).many_to_many]
    objects = []
    links: dict[str, list[tuple[int, Any]]] = defaultdict(list)
    for n, row in enumerate(rows):
        where = f"{spec.label} row {n}"
        extra = sorted(set(row) - allowed)
        if extra:
            raise ArchiveError(f"{where}: unknown field {extra[0]!r}")
        if "id" not in row:
            raise ArchiveError(f"{where}: no id")
        values: dict[str, Any] = {}
        for name in plain:
            if name not in row:
                continue
            f = _model_field(spec, name)
            values[f.attname] = _value(spec, f, row[name], user_ids, f"{where}, {name}")
        for name in m2m_names:
            for other in _list(row.get(name, []), f"{where}, {name}"):
                links[name].append(
                    (values["id"], user_ids.get(other) if name in spec.users else _int(other, f"{where}, {name}"))
                )
                if name in spec.users and other not in user_ids:
                    raise ArchiveError(f"{where}, {name}: user {str(other)[:40]!r} is not in the archive's users")
        objects.append(spec.model(**values))
    with _archived_times(spec.model):
        spec.model._default_manager.bulk_create(objects, batch_size=500)
    for name, pairs in links.items():
        m2m = _model_field(spec, name)
        rel: Any = m2m.remote_field
        through = rel.through
        source, target = m2m.m2m_field_name(), m2m.m2m_reverse_field_name()  # type: ignore[attr-defined]
        through.objects.bulk_create(
            [through(**{f"{source}_id": a, f"{target}_id": b}) for a, b in pairs], batch_size=500
        )
    return len(objects)


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArchiveError(f"{where}: an integer id was expected, got {str(value)[:40]!r}")
    return value


def _value(spec: ModelSpec, f: models.Field[Any, Any], value: Any, user_ids: dict[str, int], where: str) -> Any:
    if value is None:
        if not f.null:
            raise ArchiveError(f"{where}: must not be empty")
        return None
    if spec.users and f.name in spec.users:
        if value not in user_ids:
            raise ArchiveError(f"{where}: user {str(value)[:40]!r} is not in the archive's users")
        return user_ids[value]
    if f.is_relation or f.primary_key:
        return _int(value, where)
    if isinstance(f, models.JSONField):
        return value
    if isinstance(f, models.CharField | models.TextField):
        if not isinstance(value, str):
            raise ArchiveError(f"{where}: a text was expected")
        if f.max_length is not None and len(value) > f.max_length:
            raise ArchiveError(f"{where}: longer than {f.max_length} characters")
        if "\x00" in value:
            raise ArchiveError(f"{where}: holds a NUL character")
        return value
    if isinstance(f, models.IntegerField | models.BooleanField | models.FloatField) and isinstance(value, str):
        raise ArchiveError(f"{where}: a number was expected, got {value[:40]!r}")
    try:
        converted = f.to_python(value)
        if isinstance(f, models.IntegerField) and isinstance(converted, int):
            f.run_validators(converted)  # the PositiveIntegerField and size limits PostgreSQL would enforce
    except ValidationError as exc:
        raise ArchiveError(f"{where}: {'; '.join(exc.messages)[:200]}") from None
    if isinstance(converted, datetime) and timezone.is_naive(converted):
        raise ArchiveError(f"{where}: a time without its UTC offset")
    return converted


def _reset_sequences() -> None:
    """PostgreSQL: the next new row gets an id after the restored ones (SQLite does this by itself)."""
    sql = connection.ops.sequence_reset_sql(no_style(), [spec.model for spec in SPECS])
    if sql:
        with connection.cursor() as cursor:
            for statement in sql:
                cursor.execute(statement)


def _active_logs() -> dict[int, list[tuple[int, dict[str, Any]]]]:
    logs: dict[int, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for game_id, seq, payload in (
        GameAction.objects.filter(undone_at__isnull=True)
        .order_by("game_id", "seq")
        .values_list("game_id", "seq", "payload")
    ):
        logs[game_id].append((seq, payload))
    return logs


def _game_regulations(raw: Any, game_id: int) -> Regulations:
    try:
        return Regulations.from_dict(raw) if raw else Regulations()
    except (ValueError, TypeError, AttributeError) as exc:
        raise ArchiveError(f"game {game_id}: its regulations are damaged ({_describe(exc)})") from None


def _read_games_by_todays_rules() -> dict[int, list[Refusal]]:
    """Which imported games today's rules read differently (flagged; imported all the same)."""
    regulations = dict(Game.objects.values_list("pk", "regulations"))
    flagged = {}
    for game_id, actions in _active_logs().items():
        regs = _game_regulations(regulations[game_id], game_id)
        refused = _reading_refusals(actions, regs)
        if refused:
            flagged[game_id] = refused
    return flagged


# --- format /1 (earlier commits) ---------------------------------------------------


def _rows_from_v1(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The rows a /1 archive holds: its games keep their ids, its tournaments get new ones.

    /1 carries no players, seats' links, rated flags or projection rows: the
    games' seats, projection and result rows are written from today's
    reading of the recorded log after the insert (_derive_v1_games).
    """
    tables: dict[str, list[dict[str, Any]]] = defaultdict(list)
    action_id = 0
    for n, record in enumerate(_list(data.get("games", []), "games")):
        record = _row(record, f"games[{n}]")
        game_id = _int(record.get("id"), f"games[{n}].id")
        if not record.get("host"):
            raise ArchiveError(f"games[{n}]: no host")
        clock = _row(record.get("clock") or {}, f"games[{n}].clock")
        overlay = _row(record.get("overlay") or {}, f"games[{n}].overlay")
        tables["games.game"].append(
            {
                "id": game_id, "host": record["host"], "title": record.get("title", ""), "created_at": record.get("created_at"),
                "finished_at": record.get("finished_at"), "seq": record.get("seq", 0), "regulations": record.get("regulations") or {},
                "seating_seed": record.get("seating_seed", ""), "overlay_token": overlay.get("token", ""),
                "overlay_delay_seconds": overlay.get("delay_seconds", 0), "clock_key": clock.get("key", ""),
                "clock_duration_ms": clock.get("duration_ms", 0), "clock_started_at": clock.get("started_at"),
                "clock_elapsed_ms": clock.get("elapsed_ms", 0), "timeout_since": clock.get("timeout_since"),
            }
        )  # fmt: skip
        for m, a in enumerate(_list(record.get("actions", []), f"games[{n}].actions")):
            a = _row(a, f"games[{n}].actions[{m}]")
            action_id += 1
            tables["games.gameaction"].append(
                {"id": action_id, "game": game_id, "seq": a.get("seq"), "payload": a.get("payload"), "created_at": a.get("created_at") or record.get("created_at"),
                 "created_by": a.get("created_by"), "undone_at": a.get("undone_at"), "undone_by": a.get("undone_by")}
            )  # fmt: skip
    ids = _V1Ids()
    for n, t in enumerate(_list(data.get("tournaments", []), "tournaments")):
        _v1_tournament(_row(t, f"tournaments[{n}]"), tables, ids)
    return dict(tables)


class _V1Ids:
    def __init__(self) -> None:
        self.last: dict[str, int] = defaultdict(int)

    def next(self, label: str) -> int:
        self.last[label] += 1
        return self.last[label]


def _v1_tournament(t: dict[str, Any], tables: dict[str, list[dict[str, Any]]], ids: _V1Ids) -> None:
    tid = ids.next("t")
    tables["tournaments.tournament"].append(
        {"id": tid, "name": t["name"], "starts_on": t.get("starts_on"), "ends_on": t.get("ends_on"), "regulations": t.get("regulations") or {},
         "scoring": t["scoring"], "scoring_preset": t.get("scoring_preset", ""), "scoring_revision": t.get("scoring_revision", 1),
         "created_at": t.get("created_at"), "organizers": list(t.get("organizers", []))}
    )  # fmt: skip
    for r in t.get("scoring_revisions", []):
        tables["tournaments.scoringrevision"].append(
            {
                "id": ids.next("rev"),
                "tournament": tid,
                "number": r["number"],
                "policy": r["policy"],
                "preset": r.get("preset", ""),
                "note": r.get("note", ""),
                "created_at": r.get("created_at"),
                "created_by": r.get("created_by"),
            }
        )
    participants = {}
    for p in t.get("participants", []):
        pid = participants[p["nickname"]] = ids.next("p")
        tables["tournaments.participant"].append(
            {
                "id": pid,
                "tournament": tid,
                "nickname": p["nickname"],
                "user": p.get("user"),
                "active": bool(p.get("active", True)),
            }
        )
    for s in t.get("stages", []):
        sid = ids.next("s")
        tables["tournaments.stage"].append(
            {
                "id": sid,
                "tournament": tid,
                "name": s["name"],
                "order": s["order"],
                "seating_seed": s.get("seating_seed", ""),
                "seating_quality": s.get("seating_quality") or {},
            }
        )
        for r in s.get("rounds", []):
            rid = ids.next("r")
            tables["tournaments.round"].append({"id": rid, "stage": sid, "number": r["number"]})
            for tb in r.get("tables", []):
                tbid = ids.next("tb")
                tables["tournaments.table"].append(
                    {
                        "id": tbid,
                        "round": rid,
                        "number": tb["number"],
                        "host": tb.get("host"),
                        "game": tb.get("game"),
                        "counted": bool(tb.get("counted")),
                        "annulled_games": list(tb.get("annulled_games", [])),
                    }
                )
                for seat in tb.get("seats", []):
                    if seat["participant"] not in participants:
                        raise ArchiveError(
                            f"tournament «{t['name']}»: seat of unknown participant {str(seat['participant'])[:40]!r}"
                        )
                    tables["tournaments.tableseat"].append(
                        {
                            "id": ids.next("ts"),
                            "table": tbid,
                            "seat_no": seat["seat_no"],
                            "participant": participants[seat["participant"]],
                        }
                    )
    for e in t.get("extra_points", []):
        tables["tournaments.extrapoints"].append(
            {
                "id": ids.next("e"),
                "game": e["game"],
                "seat_no": e["seat_no"],
                "points": str(e["points"]),
                "comment": e.get("comment", ""),
                "given_by": e.get("given_by"),
            }
        )


def _derive_v1_games(tables: dict[str, list[dict[str, Any]]]) -> None:
    """A /1 game's seats, status, public state, projection and result rows: today's reading of its recorded log."""
    logs: dict[int, list[GameAction]] = defaultdict(list)
    for action in GameAction.objects.filter(undone_at__isnull=True).order_by("game_id", "seq"):
        logs[action.game_id].append(action)
    for game in Game.objects.order_by("pk"):
        actions = logs.get(game.pk, [])
        regs = _game_regulations(game.regulations, game.pk)
        state, _refused = engine_replay_as_recorded([a.payload for a in actions], regs)
        # A refused action keeps its index in the engine's record: every action is passed.
        services.game_restore_reading(game=game, state=state, accepted=actions)
