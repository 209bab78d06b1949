"""Stored statistics and ratings, kept in step with the games' result rows.

When a game's result rows change (it ends, a penalty after the end rewrites
them, an undo reopens it, its host marks it rated) games sends
``results_changed`` inside the same transaction; ``on_results_changed``
rewinds the stored rows of this game and of every game ended after it, and
plays them again in end order. For the usual case — the game that just ended
is the last one — that is one game: the incremental update. ``recompute``
rebuilds everything from all games with the same pure functions
(players/rating.py, players/statistics.py), so both give the same numbers.

End order: ``Game.finished_at``, then the game id.
"""

from __future__ import annotations

import functools
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as dt_time
from itertools import groupby
from operator import itemgetter
from typing import Any

from django.conf import settings
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import F, Q, UniqueConstraint
from django.utils import timezone

from games.models import Game, GameSeat, GameStatus, NightAction, SeatResult
from mafia_protocol import prepared
from players.matching import KNOWN, NameIndex
from players.models import PlayerGame, PlayerMonth, PlayerStats, RatedGame, StatisticsLine
from players.rating import (
    BLACK,
    RED,
    Book,
    CountedGame,
    GameRating,
    RatingSettings,
    SideTotals,
)
from players.statistics import COUNTERS, line_code, seat_counts

_GAMES = COUNTERS.index("games")


def rating_settings() -> RatingSettings:
    return RatingSettings(
        k=float(getattr(settings, "PLAYERS_RATING_K", 20.0)),
        initial=float(getattr(settings, "PLAYERS_RATING_INITIAL", 1500.0)),
    )


@dataclass
class SeatFacts:
    seat_no: int
    player_id: int | None
    role: str
    team: str
    won: bool
    counts: tuple[int, ...]  # players/statistics.py seat_counts, in COUNTERS order


@dataclass
class GameFacts:
    game_id: int
    finished_at: datetime
    winner: str
    ppk: str
    counted: bool
    seats: list[SeatFacts] = field(default_factory=list)

    def counted_game(self) -> CountedGame:
        teams: dict[str, list[int | None]] = {RED: [], BLACK: []}
        for s in self.seats:
            teams[s.team].append(s.player_id)
        return CountedGame(self.game_id, teams, self.winner, self.ppk)


# What a statistics line reads from a result row (players/statistics.py seat_line).
RESULT_COLUMNS = (
    "game_id",
    "seat_no",
    "role",
    "team",
    "won",
    "winner",
    "fouls",
    "removed_by_fouls",
    "disqualified",
    "ppk",
    "first_night_victim",
    "best_move_accepted",
    "best_move_blacks",
)


def _counts(game: Game) -> bool:
    return game.status == GameStatus.FINISHED and game.finished_at is not None


def tournament_game_ids(game_ids: Iterable[int] | None = None) -> set[int]:
    from tournaments.models import Table

    qs = Table.objects.filter(game__isnull=False)
    if game_ids is not None:
        qs = qs.filter(game_id__in=list(game_ids))
    return {gid for gid in qs.values_list("game_id", flat=True) if gid is not None}


class _Reads:
    """Reads sent together. On PostgreSQL in one round trip: Django's default
    psycopg cursor binds parameters on the client, so one query may hold several
    statements, each giving its own result set; the statements of a game's end
    go as prepared ones (``prepared``: parsed and planned once per connection).
    On SQLite (in the process, no round trips) one by one."""

    def __init__(self) -> None:
        self._statements: list[tuple[str, Sequence[Any]] | prepared.Call] = []
        self._results: list[tuple[list[str], list[tuple[Any, ...]]]] = []

    def add(self, sql: str, params: Sequence[Any]) -> int:
        """Queue a statement; its rows are ``rows(the number returned)``."""
        self._statements.append((sql, params))
        return len(self._statements) - 1

    def add_prepared(self, label: str, sql: str, params: Sequence[Any]) -> int:
        """Queue a statement of a fixed shape: prepared where ``prepared.usable()``
        (the caller's choice of text), else as ``add``."""
        if prepared.usable():
            self._statements.append(prepared.statement(f"ratings_{label}", sql).call(params))
            return len(self._statements) - 1
        return self.add(sql, params)

    def run(self) -> None:
        with connection.cursor() as cursor:
            if _several_statements_per_query(cursor):
                mogrify = cursor.cursor.mogrify
                parts = [s if isinstance(s, prepared.Call) else mogrify(*s) for s in self._statements]
                prepared.send(cursor, parts)
                while True:
                    # The names from the result itself: ``description`` makes a
                    # Column object of each column on each call.
                    result = cursor.cursor.pgresult
                    if result.nfields:  # not a PREPARE's or a SET's
                        names = [result.fname(i).decode() for i in range(result.nfields)]
                        self._results.append((names, cursor.fetchall()))
                    if not cursor.nextset():
                        break
            else:
                for statement in self._statements:
                    assert not isinstance(statement, prepared.Call)
                    cursor.execute(*statement)
                    self._results.append(([d[0] for d in cursor.description], cursor.fetchall()))
        assert len(self._results) == len(self._statements)

    def rows(self, number: int) -> list[tuple[Any, ...]]:
        return self._results[number][1]

    def dicts(self, number: int) -> list[dict[str, Any]]:
        names, rows = self._results[number]
        return [dict(zip(names, row, strict=True)) for row in rows]


def _several_statements_per_query(cursor: Any) -> bool:
    if connection.vendor != "postgresql":
        return False
    import psycopg

    # Server-side binding (OPTIONS["server_side_binding"]) allows one statement per query.
    return isinstance(cursor.cursor, psycopg.ClientCursor)


@dataclass
class _FactsReads:
    """The reads ``_facts`` needs for these games, queued on a batch: their result
    rows (with each seat's player and whether the game is a tournament table's),
    their night checks, and (for a few games) which of them count."""

    games: Sequence[Any]
    reads: _Reads
    results: int = field(init=False)
    checks: int = field(init=False)
    counted: int | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        ids = [g.pk for g in self.games]
        vendor = connection.vendor
        # One game (a game's end) has statements of a fixed shape: prepared on
        # PostgreSQL. (An array parameter for any number of games would make their
        # plans worse: planned for no array in particular, or planned every time.)
        one = len(ids) == 1
        results, checks = _results_sql(vendor, len(ids)), _checks_sql(vendor, len(ids))
        self.results = self.reads.add_prepared("results", results, ids) if one else self.reads.add(results, ids)
        check_params = [*ids, *CHECK_KINDS]
        self.checks = (
            self.reads.add_prepared("checks", checks, check_params) if one else self.reads.add(checks, check_params)
        )
        from players.trust import few_games_statement

        # Which games count for ratings is players.trust's one decision (a game
        # of a tournament a trusted user organizes, or rated by a trusted host),
        # for recompute and the incremental path alike.
        statement = few_games_statement(ids)
        if statement is not None:
            # On PostgreSQL a call of a function of its own (fixed shape); on SQLite one text per number of games.
            self.counted = self.reads.add_prepared("counted", *statement)


def _facts(games: Sequence[Any], index: NameIndex | None = None, queued: _FactsReads | None = None) -> list[GameFacts]:
    """The facts of finished games, in the given order: their reads (one round
    trip, or those already `queued` and run), plus the linking of seats not linked
    yet, if any."""
    if queued is None:
        queued = _FactsReads(games, _Reads())
        queued.reads.run()
    reads = queued.reads
    results: dict[int, list[dict[str, Any]]] = defaultdict(list)
    seat_players: dict[tuple[int, int], int | None] = {}
    in_tournament: set[int] = set()
    for r in reads.dicts(queued.results):
        results[r["game_id"]].append(r)
        seat_players[(r["game_id"], r["seat_no"])] = r["seat_player"]
        if r["in_tournament"]:
            in_tournament.add(r["game_id"])
    checks: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for c in reads.dicts(queued.checks):
        checks[c["game_id"]].append(c)
    unlinked = sorted({gid for (gid, _s), pid in seat_players.items() if pid is None})
    if unlinked:
        seat_players.update(_link_seats(unlinked, index))
    if queued.counted is not None:
        counted = {row[0] for row in reads.rows(queued.counted)}
    else:
        from players.trust import counted_game_ids

        # A game neither marked nor at a tournament table is not even asked about.
        counted = counted_game_ids(g.pk for g in games if g.rated or g.pk in in_tournament)
    out = []
    for g in games:
        assert g.finished_at is not None
        facts = GameFacts(g.pk, g.finished_at, g.winner, g.ppk, g.pk in counted)
        for row in results[g.pk]:
            facts.seats.append(
                SeatFacts(
                    row["seat_no"],
                    seat_players.get((g.pk, row["seat_no"])),
                    row["role"],
                    row["team"],
                    bool(row["won"]),
                    seat_counts(row, checks[g.pk]),
                )
            )
        out.append(facts)
    return out


# The reads of _facts and of the players' totals are written as plain SQL (both
# databases run it), built once per database and number of values: on a game's
# end building these ORM queries cost more CPU than running them, and the rows
# come without per-value converters (booleans may come as 0/1; every reader here
# takes them through bool()/int()).
CHECK_KINDS = ("sheriff_check", "don_check")


def _placeholders(values: Sequence[Any] | int) -> str:
    return ", ".join(["%s"] * (values if isinstance(values, int) else len(values)))


@functools.lru_cache(maxsize=256)
def _results_sql(vendor: str, n: int) -> str:
    """The result rows of n games, each with its seat's player and whether the
    game is a tournament table's."""
    from tournaments.models import Table

    q = connection.ops.quote_name
    r_cols = ", ".join(f"r.{q(_column(SeatResult, c))} AS {q(c)}" for c in RESULT_COLUMNS)
    gid, seat_no = q(_column(SeatResult, "game_id")), q(_column(SeatResult, "seat_no"))
    return (
        f"SELECT {r_cols}, "
        f"(SELECT s.{q(_column(GameSeat, 'player_id'))} FROM {q(GameSeat._meta.db_table)} s "
        f"WHERE s.{q(_column(GameSeat, 'game_id'))} = r.{gid} AND s.{q(_column(GameSeat, 'seat_no'))} = r.{seat_no}) AS seat_player, "
        f"EXISTS (SELECT 1 FROM {q(Table._meta.db_table)} t WHERE t.{q(_column(Table, 'game_id'))} = r.{gid}) AS in_tournament "
        f"FROM {q(SeatResult._meta.db_table)} r WHERE r.{gid} IN ({_placeholders(n)}) ORDER BY r.{gid}, r.{seat_no}"
    )


@functools.lru_cache(maxsize=256)
def _checks_sql(vendor: str, n: int) -> str:
    """The Sheriff's and the Don's night checks of n games."""
    q = connection.ops.quote_name
    cols = ", ".join(f"{q(_column(NightAction, c))} AS {q(c)}" for c in ("game_id", "kind", "actor_seat", "result"))
    return f"SELECT {cols} FROM {q(NightAction._meta.db_table)} WHERE {q(_column(NightAction, 'game_id'))} IN ({_placeholders(n)}) AND {q(_column(NightAction, 'kind'))} IN (%s, %s)"


@functools.lru_cache(maxsize=256)
def _totals_sql(vendor: str, n: int, seated: bool = False) -> str:
    """The totals rows (player_id, rating, rated_games, *COUNTERS) of n players,
    or (`seated`) of the players seated in n games."""
    return _players_rows_sql(PlayerStats, STATS_COLUMNS, n, seated)


@functools.lru_cache(maxsize=256)
def _months_sql(vendor: str, n: int, seated: bool = False) -> str:
    """The month rows (MONTH_COLUMNS) from a month on (the last parameter) of n
    players, or (`seated`) of the players seated in n games."""
    return _players_rows_sql(PlayerMonth, MONTH_COLUMNS, n, seated) + f" AND {connection.ops.quote_name('month')} >= %s"


def _players_rows_sql(model: Any, columns: list[str], n: int, seated: bool) -> str:
    q = connection.ops.quote_name
    cols = ", ".join(q(_column(model, c)) for c in columns)
    players = _placeholders(n)
    if seated:
        players = (
            f"SELECT {q(_column(GameSeat, 'player_id'))} FROM {q(GameSeat._meta.db_table)} "
            f"WHERE {q(_column(GameSeat, 'game_id'))} IN ({players}) AND {q(_column(GameSeat, 'player_id'))} IS NOT NULL"
        )
    return f"SELECT {cols} FROM {q(model._meta.db_table)} WHERE {q(_column(model, 'player_id'))} IN ({players})"


def _link_seats(game_ids: list[int], index: NameIndex | None) -> dict[tuple[int, int], int | None]:
    """(game, seat) -> player for the seats of these games not linked yet: linked
    now when its tournament participant has a player, or its nickname is exactly
    one player's nickname or alias (one bulk update)."""
    from tournaments.models import TableSeat

    unlinked = list(
        GameSeat.objects.filter(game_id__in=game_ids, player__isnull=True).only("pk", "game_id", "seat_no", "nickname")
    )
    if not unlinked:
        return {}
    by_table = {
        (gid, seat_no): pid
        for gid, seat_no, pid in TableSeat.objects.filter(
            table__game_id__in=game_ids, participant__player__isnull=False
        ).values_list("table__game_id", "seat_no", "participant__player_id")
    }
    if index is None:
        from players.services import name_index

        index = name_index()
    out: dict[tuple[int, int], int | None] = {}
    linked = []
    for s in unlinked:
        found = by_table.get((s.game_id, s.seat_no))
        if found is None:
            m = index.match(s.nickname)
            found = m.player.player_id if m.status == KNOWN and m.player is not None else None
        if found is not None:
            s.player_id = found
            linked.append(s)
            out[(s.game_id, s.seat_no)] = found
    if linked:
        GameSeat.objects.bulk_update(linked, ["player"])
    return out


# --- incremental -------------------------------------------------------------------


def on_results_changed(sender: Any = None, *, game: Game, **kwargs: Any) -> None:
    sync_game(game)


def _at_or_after(finished_at: datetime, game_id: int) -> Q:
    return Q(finished_at__gt=finished_at) | Q(finished_at=finished_at, game_id__gte=game_id)


def _probe(game: Game, counts: bool, reads: _Reads) -> Callable[[], _Probed]:
    """Queue the probe: (game, finished_at) of the player-game rows and (game,
    finished_at, games_after, red_score_after) of the counted games that are this
    game's or (when it counts) at or after its position, and the last counted game.
    One statement (UNION ALL of index lookups; an OR over both conditions made
    SQLite scan); the returned function reads its rows once the batch has run."""
    number = reads.add_prepared("probe", _probe_sql(connection.vendor, counts), _probe_params(game, counts))

    def probed() -> _Probed:
        players: set[tuple[int, datetime]] = set()
        rated: set[tuple[int, datetime, int, float]] = set()
        for source, gid, at, games_after, red_after in reads.rows(number):
            if source == "p":
                players.add((gid, _from_db_datetime(at)))
            else:
                rated.add((gid, _from_db_datetime(at), games_after, red_after))
        last = max(rated, key=lambda r: (r[1], r[0]), default=None)
        return sorted(players), sorted(rated), last

    return probed


_Probed = tuple[
    list[tuple[int, datetime]], list[tuple[int, datetime, int, float]], tuple[int, datetime, int, float] | None
]


@functools.lru_cache(maxsize=8)
def _probe_sql(vendor: str, counts: bool) -> str:
    q = connection.ops.quote_name
    parts: list[str] = []
    for source, model in (("p", PlayerGame), ("r", RatedGame)):
        table = q(model._meta.db_table)
        gid, at = q(_column(model, "game_id")), q(_column(model, "finished_at"))
        extra = (
            f"{q('games_after')}, {q('red_score_after')}"
            if model is RatedGame
            else "CAST(NULL AS INTEGER), CAST(NULL AS DOUBLE PRECISION)"
        )
        head = f"SELECT '{source}', {gid}, {at}, {extra} FROM {table}"
        parts.append(f"{head} WHERE {gid} = %s")
        if counts:
            parts.append(f"{head} WHERE {at} > %s")
            parts.append(f"{head} WHERE {at} = %s AND {gid} > %s")
        if model is RatedGame:
            parts.append(f"SELECT * FROM ({head} ORDER BY {at} DESC, {gid} DESC LIMIT 1) last_rated")
    return " UNION ALL ".join(parts)


def _probe_params(game: Game, counts: bool) -> list[Any]:
    if not counts:
        return [game.pk, game.pk]
    at = _db_datetime(game.finished_at)  # type: ignore[arg-type]
    return [game.pk, at, at, game.pk] * 2


def _from_db_datetime(value: Any) -> datetime:
    """A DateTimeField value read by a plain cursor (SQLite gives text, naive UTC)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if settings.USE_TZ and value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value  # type: ignore[no-any-return]


def sync_game(game: Game) -> None:
    """Bring the stored rows in line with this game's result rows (see the module docstring).

    The newest game's end costs one batch of reads (one round trip on
    PostgreSQL: the probe, the game's result rows with their players, its checks,
    whether it counts, its players' totals and month rows) and six writes.
    """
    # No savepoint: the caller's transaction (games.services) rolls back as a whole.
    with transaction.atomic(savepoint=False):
        counts = _counts(game)
        reads = _Reads()
        _queue_ratings_lock(reads)
        # The probe: this game's own rows, and (when it counts) any row at or after
        # its new position — for the newest game's end, nothing — and the last
        # counted game: the side totals to start from. Sent with the reads of the
        # usual case (the newest game, nothing to rewind): they are used then.
        probed = _probe(game, counts, reads)
        newest = _NewestGameReads(game, reads) if counts else None
        reads.run()
        seen, rated, last = probed()
        in_probe = [r for r in rated if r[0] == game.pk or (counts and (r[1], r[0]) >= (game.finished_at, game.pk))]
        seen += [(gid, at) for gid, at, _n, _s in in_probe]
        old = min((at for gid, at in seen if gid == game.pk), default=None)
        later_ids = {gid for gid, _at in seen if gid != game.pk}
        if old is not None and (not counts or old < game.finished_at):  # type: ignore[operator]
            # It stood earlier than its new position: every game after the old one is played again.
            later_ids |= set(PlayerGame.objects.filter(_at_or_after(old, game.pk)).values_list("game_id", flat=True))
            later_ids |= set(RatedGame.objects.filter(_at_or_after(old, game.pk)).values_list("game_id", flat=True))
            later_ids.discard(game.pk)
        if old is None and not counts:
            return
        rewind = later_ids | {game.pk} if old is not None or later_ids else set()
        replay = (
            list(Game.objects.filter(pk__in=later_ids, status=GameStatus.FINISHED, finished_at__isnull=False))
            if later_ids
            else []
        )
        if counts:
            replay.append(game)
        replay.sort(key=lambda g: (g.finished_at, g.pk))
        # The side totals before the first game played again: the last counted game
        # overall when nothing is rewound (then it is not in the probe), else read.
        start = SideTotals(last[2], last[3]) if last is not None and not rewind and last not in in_probe else None
        _replay(rewind, replay, start, newest if not rewind else None)
        from players.consumers import push_ratings_changed

        transaction.on_commit(push_ratings_changed)


# The counted games form one chain (each starts from the side totals the one
# before it left), so the transactions that change stored ratings take turns:
# two tables of a round ending together would both start from the same totals.
# SQLite's transactions are IMMEDIATE (settings.py): one writer at a time
# already. PostgreSQL: an advisory lock held to the end of the transaction (the
# host's action that ended the game), taken by the first statement of the
# reads, so the reads after it see what the previous holder committed (READ
# COMMITTED: each statement its own snapshot) and it costs no round trip.
RATINGS_LOCK = 0x7261_7469_6E67  # "rating"
_TAKE_RATINGS_LOCK = "SELECT pg_advisory_xact_lock(%s)"


def _queue_ratings_lock(reads: _Reads) -> None:
    if connection.vendor == "postgresql":
        reads.add_prepared("lock", _TAKE_RATINGS_LOCK, [RATINGS_LOCK])


def _take_ratings_lock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_TAKE_RATINGS_LOCK, [RATINGS_LOCK])


@dataclass
class _NewestGameReads:
    """The reads of the usual game's end, queued beside the probe: its facts'
    reads, and the totals and month rows (from its month on) of the players
    seated in it."""

    game: Game
    reads: _Reads
    facts: _FactsReads = field(init=False)
    totals: int = field(init=False)
    months: int = field(init=False)

    def __post_init__(self) -> None:
        self.facts = _FactsReads([self.game], self.reads)
        vendor = connection.vendor
        self.totals = self.reads.add_prepared("totals", _totals_sql(vendor, 1, seated=True), [self.game.pk])
        since = _db_date(month_of(self.game.finished_at))
        self.months = self.reads.add_prepared("months", _months_sql(vendor, 1, seated=True), [self.game.pk, since])


def replay_from(finished_at: datetime, game_id: int) -> int:
    """Rewind every stored game at or after this position and play them again (after
    a merge: the merged person's history from his first game on changes, and with
    it every later rating change). Returns the games played again."""
    with transaction.atomic():
        _take_ratings_lock()
        ids = set(PlayerGame.objects.filter(_at_or_after(finished_at, game_id)).values_list("game_id", flat=True))
        ids |= set(RatedGame.objects.filter(_at_or_after(finished_at, game_id)).values_list("game_id", flat=True))
        if not ids:
            return 0
        games = sorted(
            Game.objects.filter(pk__in=ids, status=GameStatus.FINISHED, finished_at__isnull=False),
            key=lambda g: (g.finished_at, g.pk),
        )
        _replay(ids, games, None)
        from players.consumers import push_ratings_changed

        transaction.on_commit(push_ratings_changed)
    return len(games)


@dataclass
class MonthTotals:
    counts: list[int]
    rated_games: int = 0
    rating_first: float | None = None
    rating_last: float | None = None


def month_of(at: Any) -> date:
    """The calendar month (its first day) a game ended in, in the site's time zone."""
    return timezone.localtime(_from_db_datetime(at)).date().replace(day=1)


def _as_date(value: Any) -> date:
    return date.fromisoformat(value) if isinstance(value, str) else value


@dataclass
class Ledger:
    """Players' totals and ratings in memory while games are played (the rebuild
    and the incremental path share it, so both give the same numbers)."""

    book: Book
    counters: dict[int, list[int]] = field(default_factory=dict)
    rated_games: dict[int, int] = field(default_factory=dict)
    player_rows: list[tuple[Any, ...]] = field(default_factory=list)
    rated_rows: list[tuple[Any, ...]] = field(default_factory=list)
    months: dict[tuple[int, date], MonthTotals] = field(default_factory=dict)
    touched_months: set[tuple[int, date]] = field(default_factory=set)
    lines: dict[int, tuple[int, ...]] = field(default_factory=dict)  # the player-game rows' lines, by code

    def load_months(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Stored month rows: (player_id, month, rated_games, rating_first, rating_last, *COUNTERS)."""
        for pid, month, rated, first, last, *counts in rows:
            self.months[(pid, _as_date(month))] = MonthTotals(list(counts), rated, first, last)

    def month(self, pid: int, month: date) -> MonthTotals:
        key = (pid, month)
        self.touched_months.add(key)
        found = self.months.get(key)
        if found is None:
            found = self.months[key] = MonthTotals([0] * len(COUNTERS))
        return found

    def load(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Stored totals rows: (player_id, rating, rated_games, *COUNTERS)."""
        for pid, rating, rated_games, *counts in rows:
            self.counters[pid] = list(counts)
            self.rated_games[pid] = rated_games
            if rating is not None:
                self.book.ratings[pid] = rating

    def unplay(self, row: dict[str, Any], first_rated: bool) -> None:
        """Take a stored player-game row back out of his totals (rows of one player
        come in end order: his rating goes back to the first one's 'before')."""
        pid = row["player_id"]
        mine = self.counters[pid]
        month = self.month(pid, month_of(row["finished_at"]))
        for i, name in enumerate(COUNTERS):
            mine[i] -= row[name]
            month.counts[i] -= row[name]
        if row["rated"]:
            self.rated_games[pid] -= 1
            month.rated_games -= 1
            # The rewound rows are every row from one position on (a suffix in end
            # order): the month of his first rewound counted game ends at the rating
            # he had before it, and every later month has no counted game left.
            if not month.rated_games:
                month.rating_first = month.rating_last = None
            elif first_rated:
                month.rating_last = row["rating_before"]
            if first_rated:
                self.book.ratings[pid] = row["rating_before"]

    def settle(self, rewound: set[int]) -> None:
        """A player whose counted games were all rewound has no rating."""
        for pid in rewound:
            if not self.rated_games.get(pid):
                self.book.ratings.pop(pid, None)

    def play(self, facts: GameFacts) -> None:
        book = self.book
        at = _db_datetime(facts.finished_at)
        before = {s.player_id: book.rating(s.player_id) for s in facts.seats}
        result = None
        if facts.counted:
            result, after = book.play(facts.counted_game())
            self.rated_rows.append(_rated_row(facts.game_id, at, result, after))
        zero = [0] * len(COUNTERS)
        month_now = month_of(facts.finished_at)
        for seat in facts.seats:
            pid = seat.player_id
            if pid is None:
                continue
            counts = seat.counts
            self.counters[pid] = [a + b for a, b in zip(self.counters.get(pid, zero), counts, strict=True)]
            month = self.month(pid, month_now)
            month.counts = [a + b for a, b in zip(month.counts, counts, strict=True)]
            r_before = r_after = None
            if result is not None:
                r_before, r_after = before[pid], book.ratings[pid]
                self.rated_games[pid] = self.rated_games.get(pid, 0) + 1
                if not month.rated_games:
                    month.rating_first = r_before
                month.rated_games += 1
                month.rating_last = r_after
            code = line_code(counts)
            self.lines[code] = counts
            self.player_rows.append(
                (
                    pid,
                    facts.game_id,
                    seat.seat_no,
                    at,
                    seat.role,
                    seat.team,
                    seat.won,
                    facts.counted,
                    r_before,
                    r_after,
                    code,
                )
            )

    def stats_rows(self) -> list[tuple[Any, ...]]:
        return [
            (pid, self.book.ratings.get(pid), self.rated_games.get(pid, 0), *counts)
            for pid, counts in self.counters.items()
            if counts[_GAMES] > 0
        ]

    def month_rows(self) -> tuple[list[tuple[Any, ...]], list[tuple[int, date]]]:
        """The touched months to store (MONTH_COLUMNS order) and those left empty."""
        keep, gone = [], []
        for key in sorted(self.touched_months):
            m = self.months[key]
            if m.counts[_GAMES] > 0:
                keep.append((key[0], key[1], m.rated_games, m.rating_first, m.rating_last, *m.counts))
            else:
                gone.append(key)
        return keep, gone

    def flush_rows(self, writes: _Writes) -> None:
        writes.insert_missing(
            StatisticsLine, LINE_TABLE_COLUMNS, [(code, *c) for code, c in sorted(self.lines.items())]
        )
        writes.insert(RatedGame, RG_COLUMNS, self.rated_rows)
        writes.insert(PlayerGame, PG_COLUMNS, self.player_rows)
        self.rated_rows, self.player_rows, self.lines = [], [], {}


def _replay(
    rewind: set[int], games: list[Game], start: SideTotals | None, newest: _NewestGameReads | None = None
) -> None:
    """Rewind the stored rows of `rewind` games, then play `games` (in end order):
    the rows needed read in two batches (or, for the newest game with nothing to
    rewind, already read: `newest`), the arithmetic in memory, bulk writes."""
    if newest is not None:
        assert not rewind and [g.pk for g in games] == [newest.game.pk]
        facts = _facts(games, queued=newest.facts)
        old_rows: list[dict[str, Any]] = []
        totals, months = newest.reads.rows(newest.totals), newest.reads.rows(newest.months)
        # A seat linked just now (``_link_seats``) had no player for the reads.
        seated = {r["seat_player"] for r in newest.reads.dicts(newest.facts.results)}
        missing = {s.player_id for f in facts for s in f.seats if s.player_id is not None} - seated
    else:
        facts = _facts(games) if games else []
        # The rewound rows with their lines' counters (joined: a row names its line).
        counters = {name: F(f"line__{name}") for name in COUNTERS}
        rewound = PlayerGame.objects.filter(game_id__in=rewind).order_by("finished_at", "game_id")
        old_rows = (
            [
                dict(r)
                for r in rewound.values(
                    "player_id", "finished_at", "rated", "rating_before", "rating_after", **counters
                )
            ]
            if rewind
            else []
        )
        totals, months = [], []
        missing = {r["player_id"] for r in old_rows} | {
            s.player_id for f in facts for s in f.seats if s.player_id is not None
        }
    moments = [r["finished_at"] for r in old_rows] + [f.finished_at for f in facts]
    if missing and moments:
        reads = _Reads()
        vendor, ids = connection.vendor, sorted(missing)
        more_totals = reads.add(_totals_sql(vendor, len(ids)), ids)
        more_months = reads.add(_months_sql(vendor, len(ids)), [*ids, _db_date(month_of(min(moments)))])
        reads.run()
        totals, months = [*totals, *reads.rows(more_totals)], [*months, *reads.rows(more_months)]
    pids = {r["player_id"] for r in old_rows} | {s.player_id for f in facts for s in f.seats if s.player_id is not None}
    ledger = Ledger(Book(settings=rating_settings()))
    ledger.load(totals)
    ledger.load_months(months)
    seen_rated: set[int] = set()
    for r in old_rows:
        ledger.unplay(r, r["rated"] and r["player_id"] not in seen_rated)
        if r["rated"]:
            seen_rated.add(r["player_id"])
    ledger.settle({r["player_id"] for r in old_rows})
    if rewind:
        PlayerGame.objects.filter(game_id__in=rewind).delete()
        RatedGame.objects.filter(game_id__in=rewind).delete()
    if any(f.counted for f in facts):
        if start is None:
            last = (
                RatedGame.objects.order_by("-finished_at", "-game_id")
                .values_list("games_after", "red_score_after")
                .first()
            )
            start = SideTotals(*last) if last else SideTotals()
        ledger.book.totals = start
    for f in facts:
        ledger.play(f)
    with _Writes() as writes:
        ledger.flush_rows(writes)
        _store_stats(ledger, pids, writes)


def _store_stats(ledger: Ledger, pids: set[int], writes: _Writes) -> None:
    """Replace the players' totals rows and their touched month rows (a player
    without games has no totals row; a month without games has no row)."""
    rows = ledger.stats_rows()
    writes.replace(PlayerStats, STATS_COLUMNS, [(pid,) for pid in sorted(pids - {r[0] for r in rows})], rows, 1)
    months, empty = ledger.month_rows()
    writes.replace(
        PlayerMonth,
        MONTH_COLUMNS,
        [(pid, _db_date(m)) for pid, m in empty],
        [(pid, _db_date(m), *rest) for pid, m, *rest in months],
        2,
    )


# Keys per DELETE: below SQLite's 32,766 and PostgreSQL's 65,535 parameters.
KEYS_PER_DELETE = 500
# Statistics lines per INSERT of the missing ones (PostgreSQL).
LINES_PER_STATEMENT = 200


class _Writes:
    """The stored rows' writes of one sync, run in the order given.

    On PostgreSQL the few rows of a game's end are sent as one query of
    several statements (one round trip, when the block ends): per table one
    prepared statement (``prepared``) whose parameters are the rows' columns as
    arrays (``INSERT … SELECT * FROM unnest(…)``; a totals or month row that
    exists is updated in place, ON CONFLICT). Written as text instead, a game's
    ten rows of 33 columns are parsed and planned on every game's end (the
    writes' query 1.55 ms instead of ~1.3); as a statement of parameters they cost
    ~2 ms (psycopg converts a query of over 50 parameters without its cache);
    apart, two DELETEs and four COPYs took ten round trips. Many rows (a
    replay after a merge) go by COPY. On SQLite every write runs at once: it
    is in the process, there are no round trips.
    """

    # Rows of one table above which they go by COPY instead of one prepared statement.
    LITERAL_ROWS = 200

    def __init__(self) -> None:
        self._statements: list[str | prepared.Call] = []
        self._postgres = connection.vendor == "postgresql"
        self._cursor: Any = connection.cursor() if self._postgres else None
        self._prepared = self._postgres and _several_statements_per_query(self._cursor) and prepared.usable()

    def replace(
        self, model: Any, columns: list[str], gone: list[tuple[Any, ...]], rows: list[tuple[Any, ...]], keys: int
    ) -> None:
        """The rows of these keys (their first `keys` columns) become `rows`; the
        keys in `gone` have no row any more. On SQLite one INSERT OR REPLACE
        (the old row of a key is deleted); on PostgreSQL a DELETE of the keys
        gone and an INSERT … ON CONFLICT DO UPDATE (by COPY: a DELETE of every
        key and the COPY)."""
        if not self._postgres:
            self.delete(model, columns[:keys], gone)
            self.insert(model, columns, rows, verb="INSERT OR REPLACE")
        elif self._prepared and len(rows) <= self.LITERAL_ROWS:
            self.delete(model, columns[:keys], gone)
            if rows:
                self._call("upsert", _unnest_insert_sql(model, tuple(columns), keys), _as_arrays(rows))
        else:
            self.delete(model, columns[:keys], [*gone, *(r[:keys] for r in rows)])
            self.insert(model, columns, rows)

    def delete(self, model: Any, columns: list[str], keys: Sequence[tuple[Any, ...]]) -> None:
        if not keys:
            return
        if self._prepared:
            for start in range(0, len(keys), KEYS_PER_DELETE):
                chunk = keys[start : start + KEYS_PER_DELETE]
                self._call("delete", _unnest_delete_sql(model, tuple(columns)), _as_arrays(chunk))
            return
        q = connection.ops.quote_name
        table = q(model._meta.db_table)
        key_cols = [q(_column(model, c)) for c in columns]
        for start in range(0, len(keys), KEYS_PER_DELETE):
            chunk = keys[start : start + KEYS_PER_DELETE]
            if len(key_cols) == 1:
                where = f"{key_cols[0]} IN ({_placeholders(chunk)})"
            else:
                row = f"({', '.join(['%s'] * len(key_cols))})"
                where = f"({', '.join(key_cols)}) IN (VALUES {', '.join([row] * len(chunk))})"
            self._statement(f"DELETE FROM {table} WHERE {where}", [v for key in chunk for v in key])

    def insert(self, model: Any, columns: list[str], rows: list[tuple[Any, ...]], verb: str = "INSERT") -> None:
        """INSERT plain tuples (values already in database form), no model instances."""
        if not rows:
            return
        if not self._postgres:
            table = connection.ops.quote_name(model._meta.db_table)
            names = ", ".join(connection.ops.quote_name(_column(model, c)) for c in columns)
            _sqlite_insert(table, names, rows, verb)
        elif self._prepared and len(rows) <= self.LITERAL_ROWS:
            self._call("insert", _unnest_insert_sql(model, tuple(columns)), _as_arrays(rows))
        else:
            self._send()
            table = connection.ops.quote_name(model._meta.db_table)
            names = ", ".join(connection.ops.quote_name(_column(model, c)) for c in columns)
            _copy_text(self._cursor, table, names, rows)

    def insert_missing(self, model: Any, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
        """INSERT the rows whose key (the first column, the table's primary key)
        the table does not hold yet; the others are left as they are (the
        statistics lines: a line's row never changes, its key is its code)."""
        if not rows:
            return
        if not self._postgres:
            self.insert(model, columns, rows, verb="INSERT OR IGNORE")
            return
        # Never by COPY, which cannot leave out the rows held already: a few
        # hundred distinct lines at most (a long replay), in statements of 200.
        for start in range(0, len(rows), LINES_PER_STATEMENT):
            chunk = rows[start : start + LINES_PER_STATEMENT]
            sql = _unnest_insert_sql(model, tuple(columns), 0)
            if self._prepared:
                self._call("insert_missing", sql, _as_arrays(chunk))
            else:
                self._statement(sql, _as_arrays(chunk))

    def _call(self, label: str, sql: str, params: Sequence[Any]) -> None:
        self._statements.append(prepared.statement(f"ratings_{label}", sql).call(params))

    def _statement(self, sql: str, params: Sequence[Any]) -> None:
        if self._postgres:
            self._send()
            self._cursor.execute(sql, params)
        else:
            with connection.cursor() as cursor:
                cursor.execute(sql, params)

    def _send(self) -> None:
        if self._statements:
            prepared.send(self._cursor, self._statements)
            self._statements = []

    def __enter__(self) -> _Writes:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_rest: Any) -> None:
        """The writes' end: what is still queued is sent (PostgreSQL: as one
        query), unless the block failed (its transaction is rolled back)."""
        try:
            if kind is None:
                self._send()
        finally:
            if self._postgres:
                self._cursor.close()


def _as_arrays(rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Rows as one list per column: the parameters of an ``unnest`` statement."""
    return [list(column) for column in zip(*rows, strict=True)]


def _array_type(model: Any, name: str) -> str:
    return f"{model._meta.get_field(name).db_type(connection)}[]"


@functools.lru_cache(maxsize=64)
def _unnest_insert_sql(model: Any, columns: tuple[str, ...], on_conflict: int | None = None) -> str:
    """PostgreSQL: INSERT the rows given as one array per column (a fixed shape
    for any number of rows). ``on_conflict``: 0 leaves a row whose key exists
    as it is; k > 0 updates it (the first k columns are the key)."""
    q = connection.ops.quote_name
    names = [q(_column(model, c)) for c in columns]
    arrays = ", ".join(f"%s::{_array_type(model, c)}" for c in columns)
    sql = f"INSERT INTO {q(model._meta.db_table)} ({', '.join(names)}) SELECT * FROM unnest({arrays})"
    if on_conflict == 0:
        return f"{sql} ON CONFLICT DO NOTHING"
    if on_conflict:
        updates = ", ".join(f"{n} = EXCLUDED.{n}" for n in names[on_conflict:])
        return f"{sql} ON CONFLICT ({', '.join(names[:on_conflict])}) DO UPDATE SET {updates}"
    return sql


@functools.lru_cache(maxsize=64)
def _unnest_delete_sql(model: Any, columns: tuple[str, ...]) -> str:
    """PostgreSQL: DELETE the rows of the keys given as one array per key column."""
    q = connection.ops.quote_name
    names = ", ".join(q(_column(model, c)) for c in columns)
    arrays = ", ".join(f"%s::{_array_type(model, c)}" for c in columns)
    return f"DELETE FROM {q(model._meta.db_table)} WHERE ({names}) IN (SELECT * FROM unnest({arrays}))"


def _sqlite_insert(table: str, names: str, rows: Sequence[Sequence[Any]], verb: str = "INSERT") -> None:
    """One prepared INSERT run per row (executemany: SQLite is in the process, no
    round trips; 0.5 ms less than parsing a statement of ten rows)."""
    with connection.cursor() as cursor:
        cursor.executemany(f"{verb} INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(rows[0]))})", rows)


def _db_date(value: date) -> Any:
    return connection.ops.adapt_datefield_value(value)


PG_COLUMNS = [
    "player_id",
    "game_id",
    "seat_no",
    "finished_at",
    "role",
    "team",
    "won",
    "rated",
    "rating_before",
    "rating_after",
    "line_id",
]
LINE_TABLE_COLUMNS = ["id", *COUNTERS]
RG_COLUMNS = [
    "game_id",
    "finished_at",
    "base_rate",
    "red_mean",
    "black_mean",
    "expected_red",
    "red_score",
    "red_delta",
    "games_after",
    "red_score_after",
]
STATS_COLUMNS = ["player_id", "rating", "rated_games", *COUNTERS]
MONTH_COLUMNS = ["player_id", "month", "rated_games", "rating_first", "rating_last", *COUNTERS]


# --- rebuild -------------------------------------------------------------------------


def rebuild_games_sql() -> tuple[str, list[Any]]:
    """The games a rebuild plays, in end order, and whether each counts for the
    rating: (id, finished_at, winner, ppk, counted). Which games count is
    players.trust's one rule (a tournament of a trusted organizer, or marked rated
    by a trusted host, issue 22), inlined as a subquery; the incremental path asks
    the same function (``_facts``)."""
    from players.trust import counted_games

    q = connection.ops.quote_name
    g = q(Game._meta.db_table)
    gid, at = q(_column(Game, "id")), q(_column(Game, "finished_at"))
    counted_sql, counted_params = (
        counted_games(Game.objects.filter(status=GameStatus.FINISHED)).values("pk").query.sql_with_params()
    )
    sql = (
        f"SELECT g.{gid}, g.{at}, g.{q('winner')}, g.{q('ppk')}, CASE WHEN g.{gid} IN ({counted_sql}) THEN 1 ELSE 0 END "
        f"FROM {g} g WHERE g.{q('status')} = %s AND g.{at} IS NOT NULL ORDER BY g.{at}, g.{gid}"
    )
    return sql, [*counted_params, GameStatus.FINISHED]


# The statistics line of a seat depends only on these result columns and on the
# night checks the seat made: the rebuild computes each distinct line once (with
# players/statistics.py) and writes the seats as (seat, line) pairs.
LINE_COLUMNS = RESULT_COLUMNS[2:]  # all but game_id and seat_no


# Where the last rebuild spent its time: (phase, wall seconds, process CPU seconds),
# filled by every ``recompute`` (benchmarks/ratings.py prints it).
REBUILD_PHASES: list[tuple[str, float, float]] = []


class _Phases:
    def __init__(self) -> None:
        REBUILD_PHASES.clear()
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def done(self, name: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        REBUILD_PHASES.append((name, wall - self.wall, cpu - self.cpu))
        self.wall, self.cpu = wall, cpu


def recompute() -> int:
    """Rebuild every stored row from the games in end order; returns the games played.

    Python does what only it may do: play the counted games in end order with the
    same pure rating as the incremental path (``Book.play``), compute each
    statistics line once (``seat_counts``), and sum the month and totals rows.
    The database does the per-seat work in bulk:

    - the night checks summed per seat; the statistics lines from the distinct
      result keys and check pairs (a few hundred for a million seats);
    - one narrow row per seat (end order, seat, player, side, line) from one
      join, its line numbered by the database from its key (``LineCode``);
    - the player-game rows by INSERT … SELECT, a batch of games at a time: each
      seat's row joined with its line (by number: its role, side, result and
      stored code, ``StatisticsLine``) and with its
      game's wide row, which Python wrote (each seat's rating before and after:
      a tenth of the rows a row per seat would be; binary COPY on PostgreSQL).
      Each batch's INSERT runs in the background while Python plays the next.

    Python reads the narrow seat rows once, in end order, plays the counted games
    and adds each seat's line to his month's sums, a line's counters packed into
    one integer (``PackedCounters``: one addition per seat instead of one per
    counter). The month and totals rows are those sums unpacked (integer sums:
    the same as the incremental path's). All inside one transaction, the stored
    tables' indexes (and on PostgreSQL their keys and constraints) built after
    their rows: one sort each instead of a million B-tree inserts.
    """
    postgres = connection.vendor == "postgresql"
    phases = _Phases()
    with _sqlite_bulk_settings(), transaction.atomic():
        _take_ratings_lock()
        _postgres_bulk_settings(postgres)
        games = _rebuild_into_empty_tables(postgres, phases)
        _reset_player_game_ids()
    phases.done("indexes and foreign keys rebuilt, commit")
    if postgres and games:
        q = connection.ops.quote_name
        tables = []
        for model, columns in ANALYZED_AFTER_REBUILD.items():
            names = f" ({', '.join(q(_column(model, c)) for c in columns)})" if columns else ""
            tables.append(f"{q(model._meta.db_table)}{names}")
        with connection.cursor() as cursor:
            # Fresh statistics for the pages' plans (autovacuum would come later).
            cursor.execute(f"ANALYZE {', '.join(tables)}")
            if not connection.in_atomic_block:  # VACUUM runs in no transaction
                # The month rows' pages marked all-visible: the season's sums read
                # the (month, player, counted games) index alone, not every month
                # row of the table (34 ms → 15 ms of the season page's 12 months).
                cursor.execute(f"VACUUM {q(PlayerMonth._meta.db_table)}")
        phases.done("analyze")
    return games


# The columns the pages' queries filter, join, group or sort the stored rows by
# (players/leaderboard.py, players/views.py), analyzed after a rebuild on
# PostgreSQL (None: every column; the totals are a row per player). The counters
# are only summed: statistics of their values plan nothing, and computing them
# for every column took 0.48 s instead of 0.19.
ANALYZED_AFTER_REBUILD: dict[Any, tuple[str, ...] | None] = {
    PlayerGame: ("player_id", "game_id", "seat_no", "finished_at", "role", "team", "won", "rated"),
    PlayerMonth: ("player_id", "month", "rated_games"),
    PlayerStats: None,
    RatedGame: ("game_id", "finished_at"),
    StatisticsLine: ("id",),
}


# Indexes whose rows the rebuild writes in their own order (end order), kept while
# it writes on SQLite: each row goes at the index's end, which costs less there
# than a sort of a million keys after. PostgreSQL, whose writes run beside the
# Python half of the rebuild, builds every index after them.
KEPT_WHILE_LOADING_ON_SQLITE = ("players_pg_finished",)


def _rebuild_into_empty_tables(postgres: bool, phases: _Phases) -> int:
    """recompute's work inside its transaction; returns the games played."""
    from players.services import name_index

    with _bulk_load(STORED_MODELS, postgres, keep=() if postgres else KEPT_WHILE_LOADING_ON_SQLITE):
        _empty_stored_tables(postgres)
        games_sql, params = rebuild_games_sql()
        with connection.cursor() as cursor:
            cursor.execute(games_sql, params)
            games = cursor.fetchall()
        if not games:
            return 0
        _link_unlinked_seats(name_index())
        slots = _seat_slots()
        _create_rebuild_tables(postgres, slots)
        _copy_rows("players_rebuild_order", ["ord", "game_id"], list(enumerate(g[0] for g in games)), postgres)
        _fill_rebuild_checks()
        _analyze_temporary(postgres, "players_rebuild_order", "players_rebuild_check")
        phases.done("games read, seats linked, night checks summed")
        code, lines = _fill_rebuild_lines(postgres)
        phases.done("distinct statistics lines")
        seats = _fill_rebuild_seats(postgres, slots, code)
        _analyze_temporary(postgres, "players_rebuild_seat", "players_rebuild_line")
        phases.done("seat rows")
        played = _play_in_end_order(games, slots, PackedCounters(lines, seats), postgres)
        phases.done("games played, their player-game and counted-game rows written")
        _copy_rows(
            PlayerMonth._meta.db_table, [_column(PlayerMonth, c) for c in MONTH_COLUMNS], played.months, postgres
        )
        _copy_rows(
            PlayerStats._meta.db_table, [_column(PlayerStats, c) for c in STATS_COLUMNS], played.totals, postgres
        )
        with connection.cursor() as cursor:
            for table in REBUILD_TABLES:
                cursor.execute(f"DROP TABLE {table}")
        phases.done("month and totals rows written")
    return len(games)


class PackedCounters:
    """Sums of counter vectors (the statistics lines, and a counted game) kept as
    one Python integer each: field i of a sum is bits [i·width, (i+1)·width) of
    it, so adding a seat's line to a player's month is one addition instead of
    one per counter. The width holds the largest possible sum (every seat of the
    rebuild with the largest counter of any line), so no field ever carries into
    the next; counters are never negative (a line with a negative one is refused)."""

    def __init__(self, lines: dict[int, tuple[int, ...]], seats: int) -> None:
        if any(value < 0 for counts in lines.values() for value in counts):
            raise ValueError("a statistics counter is negative: sums cannot be packed")
        biggest = max((max(counts, default=0) for counts in lines.values()), default=0)
        self.width = max(1, (max(1, seats) * max(1, biggest)).bit_length())
        self.fields = len(COUNTERS) + 1  # the counters, then the counted games
        self.mask = (1 << self.width) - 1
        self.shifts = [self.width * i for i in range(self.fields)]
        self.counted = 1 << self.shifts[-1]
        self.lines = {line: self.pack(counts) for line, counts in lines.items()}

    def pack(self, values: Sequence[int]) -> int:
        return sum(value << shift for value, shift in zip(values, self.shifts, strict=False))

    def unpack(self, packed: int) -> list[int]:
        """The fields: COUNTERS, then the counted games."""
        mask = self.mask
        return [(packed >> shift) & mask for shift in self.shifts]


@dataclass
class _Played:
    months: list[tuple[Any, ...]]  # MONTH_COLUMNS order
    totals: list[tuple[Any, ...]]  # STATS_COLUMNS order


# Games per batch of the play loop: the seat rows of a batch are read, its games
# played and its player-game rows written as one unit, so that the database writes
# one batch while Python plays the next.
PLAY_BATCH = 10_000


def _play_in_end_order(games: list[tuple[Any, ...]], slots: int, packed: PackedCounters, postgres: bool) -> _Played:
    """Every rebuilt game in end order, in batches: its seats from the narrow seat
    rows, the counted ones played (``Book.play``) with the ratings before and
    after each seat written to the game's wide row, and each linked seat's line
    added to his sums of the game's month; then the batch's player-game rows
    written (``_insert_player_games``). That INSERT … SELECT, the database's
    work, runs in the background (``_background_statement``) while Python plays
    the next batch: the rebuild's two halves share the machine's cores instead
    of taking turns. Returns the month and totals rows."""
    book = Book(settings=rating_settings())
    ratings, initial = book.ratings, book.settings.initial
    lines, counted_bit = packed.lines, packed.counted
    base = _seat_key_base(slots)
    month_rows: list[tuple[Any, ...]] = []
    totals: dict[int, int] = {}
    month_sums: dict[int, int] = {}  # this month's sums per player
    month_start: dict[int, float] = {}  # the ratings when this month began
    month: date | None = None
    month_end: Any = None  # the first moment after this month, as the database gives `at`
    db_month: Any = None

    def close_month() -> None:
        # A rating changes only in counted games, so a player's rating before his
        # first counted game of the month is the one he had when the month began,
        # and the one after his last is the one he has when it ends.
        for pid, value in month_sums.items():
            *counts, rated = packed.unpack(value)
            first, last = (month_start.get(pid, initial), ratings[pid]) if rated else (None, None)
            month_rows.append((pid, db_month, rated, first, last, *counts))
            totals[pid] = totals.get(pid, 0) + value

    def read(start: int, stop: int) -> list[tuple[Any, ...]]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT ord, seat_no, player_id, black, line_id FROM players_rebuild_seat "
                "WHERE k >= %s AND k < %s ORDER BY k",
                [start * base, stop * base],
            )
            return list(cursor.fetchall())

    uncounted = [None] * (2 * slots)
    batches = [(start, min(start + PLAY_BATCH, len(games))) for start in range(0, len(games), PLAY_BATCH)]
    rows = read(*batches[0])
    with _background_statement() as background:
        for i, (start, stop) in enumerate(batches):
            wide: list[tuple[Any, ...]] = []
            rated_out: list[tuple[Any, ...]] = []
            by_game = groupby(rows, key=itemgetter(0))
            pending = next(by_game, None)
            for ord_ in range(start, stop):
                game_id, at, winner, ppk, counted = games[ord_]
                seats: list[tuple[Any, ...]] = []
                if pending is not None and pending[0] == ord_:
                    seats = list(pending[1])
                    pending = next(by_game, None)
                if month_end is None or at >= month_end:  # end order: a later month
                    if month is not None:
                        close_month()
                    month, month_end = _month_and_end(at)
                    db_month = _db_date(month)
                    month_start, month_sums = dict(ratings), {}
                if not counted:
                    for _ord, _seat, pid, _black, line in seats:
                        if pid is not None:
                            month_sums[pid] = month_sums.get(pid, 0) + lines[line]
                    wide.append((ord_, at, False, *uncounted))
                    continue
                # seats: (ord, seat_no, player or None, 1 black / 0 red, line)
                red: list[int | None] = []
                black: list[int | None] = []
                before: list[float | None] = [None] * slots
                linked = []  # (slot, player) of the seats with a player
                for _ord, seat, pid, is_black, line in seats:
                    (black if is_black else red).append(pid)
                    if pid is not None:
                        month_sums[pid] = month_sums.get(pid, 0) + lines[line] + counted_bit
                        before[seat - 1] = ratings.get(pid, initial)
                        linked.append((seat - 1, pid))
                result, totals_after = book.play(CountedGame(game_id, {RED: red, BLACK: black}, winner, ppk))
                after: list[float | None] = [None] * slots
                for slot, pid in linked:
                    after[slot] = ratings[pid]
                wide.append((ord_, at, True, *before, *after))
                rated_out.append(_rated_row(game_id, at, result, totals_after))
            background.wait()  # the previous batch's player-game rows are written: the connection is free
            _copy_rows("players_rebuild_game", _wide_columns(slots), wide, postgres)
            _copy_rows(RatedGame._meta.db_table, [_column(RatedGame, c) for c in RG_COLUMNS], rated_out, postgres)
            if i + 1 < len(batches):
                rows = read(*batches[i + 1])
            background.start(_insert_player_games, slots, start, stop)
    close_month()
    total_rows = []
    for pid, value in totals.items():
        *counts, rated = packed.unpack(value)
        total_rows.append((pid, ratings.get(pid), rated, *counts))
    return _Played(month_rows, total_rows)


def _month_and_end(at: Any) -> tuple[date, Any]:
    """The calendar month (its first day, in the site's time zone) of a game that
    ended at `at` (a value as the database gives it: a datetime, naive UTC on
    SQLite, or text), and the first moment after that month in the same form,
    so that the play loop finds a month's end with one comparison per game."""
    first = month_of(at)
    following = (first + timedelta(days=32)).replace(day=1)
    end = timezone.make_aware(datetime.combine(following, dt_time.min)).astimezone(UTC)
    if isinstance(at, str):
        return first, end.strftime("%Y-%m-%d %H:%M:%S")
    return first, end if at.tzinfo is not None else end.replace(tzinfo=None)


class _Background:
    """One statement at a time run on this thread's database connection by a thread
    of its own, inside its transaction (the connection shared the way Django's
    live server shares it with its thread), while the caller computes: sqlite3
    and psycopg let go of the GIL while the database works. Between ``start``
    and ``wait`` the caller must not use the connection; its own reads and bulk
    writes stay on its thread (they hold the GIL row by row: in the thread they
    waited for it)."""

    def __init__(self, pool: ThreadPoolExecutor) -> None:
        self.pool = pool
        self.running: Future[None] | None = None

    def start(self, statement: Callable[..., None], *args: Any) -> None:
        self.wait()
        self.running = self.pool.submit(statement, *args)

    def wait(self) -> None:
        if self.running is not None:
            running, self.running = self.running, None
            running.result()  # its error, if any, raised here


@contextmanager
def _background_statement() -> Iterator[_Background]:
    """A ``_Background`` for the block; leaving waits for the statement still
    running (the transaction never ends under it) and raises its error."""
    shared = connections[DEFAULT_DB_ALIAS]
    shared.inc_thread_sharing()

    def adopt() -> None:
        connections[DEFAULT_DB_ALIAS] = shared

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rebuild-db", initializer=adopt)
    background = _Background(pool)
    try:
        yield background
        background.wait()
    finally:
        pool.shutdown(wait=True)
        shared.dec_thread_sharing()


STORED_MODELS = (PlayerGame, RatedGame, PlayerStats, PlayerMonth, StatisticsLine)


def _empty_stored_tables(postgres: bool) -> None:
    """Every stored row goes (the rebuild writes them all again): TRUNCATE on
    PostgreSQL (a DELETE of a million rows writes each one), DELETE on SQLite
    (its truncate optimization)."""
    q = connection.ops.quote_name
    with connection.cursor() as cursor:
        if postgres:
            # Rows written earlier in this transaction (an archive's import, a test's
            # games) queue deferred foreign-key checks, and PostgreSQL refuses to
            # TRUNCATE a table they concern while they are pending: run them first.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"TRUNCATE {', '.join(q(m._meta.db_table) for m in STORED_MODELS)}")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")  # Django's default for the rest of the transaction
            return
        for model in STORED_MODELS:
            cursor.execute(f"DELETE FROM {q(model._meta.db_table)}")


@contextmanager
def _bulk_load(models: Sequence[Any], postgres: bool, keep: Sequence[str] = ()) -> Iterator[None]:
    """The models' secondary indexes (but those named in `keep`) dropped while
    their rows are written in bulk and built again after (one sort each instead
    of a million B-tree inserts in another order); on PostgreSQL their primary
    keys, unique constraints and foreign keys too (each index is one more B-tree
    insert per row; each row written would queue a deferred foreign-key check,
    run one by one at the commit: 0.8 s for the month, totals and counted-game
    rows alone; ADD CONSTRAINT builds or validates each in one pass). SQLite
    cannot drop a table's constraint: its primary key and unique indexes take
    the rows in end order, near their end. Inside the caller's transaction: on
    an error everything is rolled back, indexes included."""
    q = connection.ops.quote_name
    editor = connection.schema_editor(collect_sql=True)  # only builds statements (never entered)
    editor.deferred_sql = []  # what __enter__ would set; the index statements look at it
    foreign_keys: list[tuple[str, str, str, str, str]] = []
    primary_keys: list[tuple[str, str, list[str]]] = []
    indexes = [(model, index) for model in models for index in model._meta.indexes if index.name not in keep]
    uniques = [
        (model, c) for model in models for c in model._meta.constraints if postgres and isinstance(c, UniqueConstraint)
    ]
    with connection.cursor() as cursor:
        if postgres:
            # Rows written earlier in this transaction (an archive's import) queue deferred
            # foreign-key checks; PostgreSQL refuses to ALTER a table they concern while
            # they are pending («pending trigger events»): run them now.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            for model in models:
                table = model._meta.db_table
                for name, c in connection.introspection.get_constraints(cursor, table).items():
                    if c["foreign_key"]:
                        foreign_keys.append((table, name, c["columns"][0], *c["foreign_key"]))
                    elif c["primary_key"]:
                        primary_keys.append((table, name, c["columns"]))
            for table, name, *_rest in foreign_keys:
                cursor.execute(f"ALTER TABLE {q(table)} DROP CONSTRAINT {q(name)}")
            for table, name, _columns in primary_keys:
                cursor.execute(f"ALTER TABLE {q(table)} DROP CONSTRAINT {q(name)}")
        for model, unique in uniques:
            cursor.execute(str(unique.remove_sql(model, editor)))
        for model, index in indexes:
            cursor.execute(str(index.remove_sql(model, editor)))
    yield
    with connection.cursor() as cursor:
        for table, name, columns in primary_keys:
            cursor.execute(
                f"ALTER TABLE {q(table)} ADD CONSTRAINT {q(name)} PRIMARY KEY ({', '.join(map(q, columns))})"
            )
        for model, unique in uniques:
            cursor.execute(str(unique.create_sql(model, editor)))
        for model, index in indexes:
            cursor.execute(str(index.create_sql(model, editor)))
        # NOT VALID: the constraint holds every later write to the table; the
        # rows written here are not checked again (the scan joining each of the
        # million player-game rows to its line, and before migration 0009 to its
        # player and game: 0.65 s of the rebuild). They hold by construction and
        # by lock: each row's line is one just written, and dropping the foreign
        # key locked the lines' table (ACCESS EXCLUSIVE, itself rebuilt here)
        # until the commit. (The stored rows' games and players have no
        # constraint to drop: players/models.py.)
        for table, name, column, to_table, to_column in foreign_keys:
            cursor.execute(
                f"ALTER TABLE {q(table)} ADD CONSTRAINT {q(name)} FOREIGN KEY ({q(column)}) REFERENCES {q(to_table)} ({q(to_column)}) DEFERRABLE INITIALLY DEFERRED NOT VALID"
            )
        if postgres:
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")  # Django's default for the rest of the transaction


@contextmanager
def _sqlite_bulk_settings() -> Iterator[None]:
    """SQLite settings for the rebuild's duration (the connection's own, restored
    after): 256 MB of page cache (2 MB by default: the player-game table's indexes
    take rows in player order, not in end order, and would go to disk page by
    page); temporary tables and sorts in memory; and the per-row constraint
    checks off for the rows it writes: CHECK (every counter ≥ 0, ~30 per
    player-game row) and foreign keys. Every row it writes is derived, inside its
    transaction, from rows that passed those checks — a player-game row's player
    and game are its seat's, counters come from ``seat_counts`` (never negative:
    ``PackedCounters`` refuses a negative one) — so they only cost time: half of
    the player-game INSERT's. SQLite changes temp_store and foreign_keys only
    outside a transaction: inside a caller's they stay as they are. The journal
    stays WAL and synchronous stays as configured: the rebuild commits like any
    write."""
    if connection.vendor != "sqlite":
        yield
        return
    settings_ = {"cache_size": "-262144", "ignore_check_constraints": "1"}
    if not connection.in_atomic_block:
        settings_["temp_store"] = "2"
    old = {}
    with connection.cursor() as cursor:
        for name, value in settings_.items():
            cursor.execute(f"PRAGMA {name}")
            (old[name],) = cursor.fetchone()
            cursor.execute(f"PRAGMA {name} = {value}")
    foreign_keys_off = not connection.in_atomic_block and connection.disable_constraint_checking()
    try:
        yield
    finally:
        if foreign_keys_off:
            connection.enable_constraint_checking()
        with connection.cursor() as cursor:
            for name, value in old.items():
                cursor.execute(f"PRAGMA {name} = {int(value)}")


def _postgres_bulk_settings(postgres: bool) -> None:
    """PostgreSQL settings for the rebuild's transaction (SET LOCAL: gone at its
    end): no JIT compilation (it cost ~0.8 s of compiling per big statement and
    saved less), and memory for the sums, sorts and hashes of a million rows and
    for the index builds (4 MB by default: the joins and sorts went to disk)."""
    if postgres:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL jit = off")
            cursor.execute("SET LOCAL work_mem = '256MB'")
            cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")


REBUILD_TABLES = (
    "players_rebuild_order",
    "players_rebuild_check",
    "players_rebuild_line",
    "players_rebuild_seat",
    "players_rebuild_game",
)
# A line's key beside LINE_COLUMNS: the Sheriff's or the Don's checks made from
# the seat (of the seat's own role: seat_counts counts no other), and how many
# found what they look for (a black; the Sheriff) — all of the checks a line depends on.
CHECK_KEY = ("k_checks", "k_check_hits")


def _analyze_temporary(postgres: bool, *tables: str) -> None:
    """PostgreSQL never analyzes temporary tables by itself: without their sizes the
    planner took the million-row join's plan for a join of small tables (80 s instead of seconds)."""
    if postgres:
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {', '.join(tables)}")


def _seat_slots() -> int:
    """The highest seat number of any result row (a wide row has a slot per seat)."""
    q = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT MAX({q(_column(SeatResult, 'seat_no'))}) FROM {q(SeatResult._meta.db_table)}")
        (top,) = cursor.fetchone()
    return max(1, int(top or 0))


def _seat_key_base(slots: int) -> int:
    """A seat row's key is ord · base + seat (seats 1…slots): a game's keys are
    consecutive, in seat order, and the games' in end order."""
    return slots + 1


def _wide_columns(slots: int) -> list[str]:
    """A game's wide row: its end order, its end, whether it counts, and (when it
    counts) each seat's rating before, then after (None: no player). Its end is
    here so that the player-game rows need no join of the games table (on
    PostgreSQL a hash of all games per batch)."""
    return ["ord", "at", "counted", *(f"rb{i}" for i in range(1, slots + 1)), *(f"ra{i}" for i in range(1, slots + 1))]


def _sql_type(model: Any, name: str) -> str:
    """The temporary tables' type of a result column (same kind as the model's, so joins compare alike)."""
    f = model._meta.get_field(name)
    kind = f.get_internal_type()
    if kind == "BooleanField":
        return "BOOLEAN"
    if kind == "CharField":
        return f"VARCHAR({f.max_length})"
    return "INTEGER"


def _create_rebuild_tables(postgres: bool, slots: int) -> None:
    temp = "CREATE TEMPORARY TABLE"
    tail = " ON COMMIT DROP" if postgres else ""
    key = ", ".join(f"k_{c} {_sql_type(SeatResult, c)} NOT NULL" for c in LINE_COLUMNS)
    ratings = ", ".join(f"{c}{i} DOUBLE PRECISION" for c in ("rb", "ra") for i in range(1, slots + 1))
    # k: the seat row's key (``_seat_key_base``). On SQLite an INTEGER PRIMARY KEY
    # (64 bits) is the row id itself: no index beside the table.
    big_key = "BIGINT" if postgres else "INTEGER"
    with connection.cursor() as cursor:
        for table in REBUILD_TABLES:
            cursor.execute(f"DROP TABLE IF EXISTS {table}")
        cursor.execute(f"{temp} players_rebuild_order (ord INTEGER PRIMARY KEY, game_id BIGINT NOT NULL){tail}")
        cursor.execute(
            f"{temp} players_rebuild_check (game_id BIGINT NOT NULL, actor_seat INTEGER NOT NULL, "
            f"sheriff_checks INTEGER NOT NULL, sheriff_hits INTEGER NOT NULL, don_checks INTEGER NOT NULL, don_hits INTEGER NOT NULL, "
            f"PRIMARY KEY (game_id, actor_seat)){tail}"
        )
        cursor.execute(
            f"{temp} players_rebuild_line (line_id {big_key} PRIMARY KEY, {key}, k_checks INTEGER NOT NULL, k_check_hits INTEGER NOT NULL, "
            f"code BIGINT NOT NULL){tail}"
        )
        if not postgres:  # PostgreSQL's comes from CREATE TABLE AS (``_fill_rebuild_seats``)
            cursor.execute(
                f"{temp} players_rebuild_seat (k {big_key} PRIMARY KEY, ord INTEGER NOT NULL, seat_no INTEGER NOT NULL, "
                f"game_id BIGINT NOT NULL, player_id BIGINT, black INTEGER NOT NULL, line_id BIGINT NOT NULL){tail}"
            )
        at = Game._meta.get_field("finished_at").db_type(connection)
        cursor.execute(
            f"{temp} players_rebuild_game (ord INTEGER PRIMARY KEY, at {at} NOT NULL, counted BOOLEAN NOT NULL, {ratings}){tail}"
        )


def _fill_rebuild_checks() -> None:
    """The Sheriff's and the Don's night checks summed per (game, seat that made them)."""
    q = connection.ops.quote_name
    kind, result = q(_column(NightAction, "kind")), q(_column(NightAction, "result"))
    gid, actor = q(_column(NightAction, "game_id")), q(_column(NightAction, "actor_seat"))

    def count(check: str, hit: str | None = None) -> str:
        found = f" AND {result} = '{hit}'" if hit else ""
        return f"SUM(CASE WHEN {kind} = '{check}'{found} THEN 1 ELSE 0 END)"

    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO players_rebuild_check SELECT {gid}, {actor}, {count('sheriff_check')}, {count('sheriff_check', 'black')}, "
            f"{count('don_check')}, {count('don_check', 'sheriff')} FROM {q(NightAction._meta.db_table)} "
            f"WHERE {kind} IN ('sheriff_check', 'don_check') AND {actor} IS NOT NULL GROUP BY {gid}, {actor}"
        )


def _line_keys() -> list[str]:
    """Each line key column's expression (LINE_COLUMNS, then CHECK_KEY) over a result
    row r and its seat's summed checks c (LEFT JOIN players_rebuild_check)."""
    q = connection.ops.quote_name
    role = f"r.{q(_column(SeatResult, 'role'))}"

    def of_role(sheriff: str, don: str) -> str:
        return (
            f"CASE {role} WHEN 'sheriff' THEN COALESCE(c.{sheriff}, 0) WHEN 'don' THEN COALESCE(c.{don}, 0) ELSE 0 END"
        )

    keys = [f"r.{q(_column(SeatResult, c))}" for c in LINE_COLUMNS]
    return [*keys, of_role("sheriff_checks", "don_checks"), of_role("sheriff_hits", "don_hits")]


def _checks_join() -> str:
    q = connection.ops.quote_name
    gid, seat = f"r.{q(_column(SeatResult, 'game_id'))}", f"r.{q(_column(SeatResult, 'seat_no'))}"
    return f"LEFT JOIN players_rebuild_check c ON c.game_id = {gid} AND c.actor_seat = {seat}"


@dataclass
class LineCode:
    """A statistics line's number computed from its key by the database, with no
    join: each key column's value becomes a digit (its place among the values
    that column takes in the distinct lines) and the digits one number in mixed
    radix. ``sql`` is that expression over a result row r and its summed checks c
    (``_line_keys``), ``params`` its values in order. A value no distinct line
    has gives NULL, which the seat table refuses: a result row written after the
    lines were read fails the rebuild (rolled back) instead of losing its seat."""

    sql: str
    params: list[Any]
    digits: list[dict[Any, int]]
    radices: list[int]

    @classmethod
    def of(cls, keys: Sequence[tuple[Any, ...]]) -> LineCode:
        exprs = _line_keys()
        digits: list[dict[Any, int]] = []
        radices: list[int] = []
        terms, params = [], []
        radix = 1
        for i, expr in enumerate(exprs):
            values = sorted({key[i] for key in keys})
            digits.append({value: d for d, value in enumerate(values)})
            radices.append(radix)
            terms.append(f"(CASE {expr} {' '.join(f'WHEN %s THEN {d * radix}' for d in range(len(values)))} END)")
            params.extend(values)
            radix *= max(1, len(values))
        if radix >= 2**62:  # every combination numbered: past what a BIGINT holds
            raise OverflowError("statistics line keys take too many values to number")
        return cls(" + ".join(terms), params, digits, radices)

    def number(self, key: Sequence[Any]) -> int:
        return sum(self.digits[i][value] * self.radices[i] for i, value in enumerate(key))


def _fill_rebuild_lines(postgres: bool) -> tuple[LineCode, dict[int, tuple[int, ...]]]:
    """The statistics lines the seats can have, each's counters computed once with
    players/statistics.py ``seat_counts``, written to the rebuild's lines table
    under its number (``LineCode``) with its stored code (``line_code``), and the
    distinct stored lines to ``StatisticsLine``. A line is a result row's key (LINE_COLUMNS) with the
    checks its seat made (CHECK_KEY), and both are read on their own, with no
    join of a million result rows to their checks: the distinct keys of all
    result rows, and the distinct (checks, hits) pairs of the summed checks —
    a Sheriff's key takes each Sheriff's pair and (0, 0), a Don's each Don's
    pair and (0, 0), any other (0, 0). That is every line a seat has, and some
    no seat has (nobody reads those). Returns the numbering and each line's
    counters by its number."""
    q = connection.ops.quote_name
    keys = [f"r.{q(_column(SeatResult, c))}" for c in LINE_COLUMNS]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT DISTINCT {', '.join(keys)} FROM {q(SeatResult._meta.db_table)} r")
        results = cursor.fetchall()
        pairs: dict[str, set[tuple[int, int]]] = {}
        for role, checks, hits in (("sheriff", "sheriff_checks", "sheriff_hits"), ("don", "don_checks", "don_hits")):
            cursor.execute(f"SELECT DISTINCT {checks}, {hits} FROM players_rebuild_check")
            pairs[role] = {(0, 0), *((int(a), int(b)) for a, b in cursor.fetchall())}
    role_at = LINE_COLUMNS.index("role")
    lines = [(*key, checks, hits) for key in results for checks, hits in sorted(pairs.get(key[role_at], {(0, 0)}))]
    code = LineCode.of(lines)
    n = len(LINE_COLUMNS)
    rows = []
    counts_by_line: dict[int, tuple[int, ...]] = {}
    stored: dict[int, tuple[int, ...]] = {}  # the stored lines (by their code: ``line_code``)
    for key in lines:
        result = dict(zip(LINE_COLUMNS, key[:n], strict=True), seat_no=0)
        checks, hits = key[n:]
        # As many checks as the seat made of its role's kind, `hits` of them finding what they look for.
        kind, hit, miss = (
            ("sheriff_check", "black", "red") if result["role"] == "sheriff" else ("don_check", "sheriff", "")
        )
        made = [{"kind": kind, "actor_seat": 0, "result": hit if i < hits else miss} for i in range(checks)]
        counts = seat_counts(result, made)
        line, stored_as = code.number(key), line_code(counts)
        if stored.setdefault(stored_as, counts) != counts:
            raise ValueError(f"two statistics lines have one code ({stored_as}): {counts} and {stored[stored_as]}")
        counts_by_line[line] = counts
        rows.append((line, *key, stored_as))
    columns = ["line_id", *(f"k_{c}" for c in LINE_COLUMNS), *CHECK_KEY, "code"]
    _copy_rows("players_rebuild_line", columns, rows, postgres)
    _copy_rows(
        StatisticsLine._meta.db_table,
        [q(_column(StatisticsLine, c)) for c in LINE_TABLE_COLUMNS],
        [(line, *counts) for line, counts in sorted(stored.items())],
        postgres,
    )
    return code, counts_by_line


def _seat_rows_select(slots: int, code: LineCode) -> str:
    """One narrow row per result row of a rebuilt game: its seat row's key, its
    game's end order, its seat, the seat's player (None: unlinked, or no seat
    row), 1 for black, 0 for red, and its line's number (``LineCode``: no join
    on the key's thirteen columns; summed from a BIGINT zero: its terms may pass
    what an INTEGER holds). Its parameters are ``code.params``."""
    q = connection.ops.quote_name
    r_gid, r_seat, team = (f"r.{q(_column(SeatResult, c))}" for c in ("game_id", "seat_no", "team"))
    s_gid, s_seat, s_pid = (f"s.{q(_column(GameSeat, c))}" for c in ("game_id", "seat_no", "player_id"))
    return (
        f"SELECT CAST(o.ord AS BIGINT) * {_seat_key_base(slots)} + {r_seat} AS k, o.ord AS ord, {r_seat} AS seat_no, "
        f"CAST({r_gid} AS BIGINT) AS game_id, CAST({s_pid} AS BIGINT) AS player_id, "
        f"CASE WHEN {team} = 'black' THEN 1 ELSE 0 END AS black, CAST(0 AS BIGINT) + {code.sql} AS line_id "
        f"FROM players_rebuild_order o JOIN {q(SeatResult._meta.db_table)} r ON {r_gid} = o.game_id "
        f"LEFT JOIN {q(GameSeat._meta.db_table)} s ON {s_gid} = {r_gid} AND {s_seat} = {r_seat} "
        f"{_checks_join()}"
    )


def _fill_rebuild_seats(postgres: bool, slots: int, code: LineCode) -> int:
    """Every seat row (``_seat_rows_select``); returns how many were written.

    On SQLite in end order (the order table's rows, each game's result rows by
    seat from their unique index: the ORDER BY costs no sort), so that the seat
    table (its key is end order and seat) takes each at its end. (Written a
    batch at a time in the background beside the play loop instead, the
    rebuild took 14.1 s instead of 11.5: the play loop waited for it.) On
    PostgreSQL the table is made by CREATE TABLE AS, its key and NOT NULLs
    added after: unlike an INSERT … SELECT, that statement may run its join in
    parallel workers (the result rows with their seats, the million-row hash
    join), and one sort builds the key's index instead of a million inserts in
    hash-join order (3.2 s before, 1.9 s so). A result row written after the
    lines were read has no line: its NULL is refused (the rebuild fails and is
    rolled back, no seat is lost)."""
    select = _seat_rows_select(slots, code)
    with connection.cursor() as cursor:
        if not postgres:
            cursor.execute(
                "INSERT INTO players_rebuild_seat (k, ord, seat_no, game_id, player_id, black, line_id) "
                f"{select} ORDER BY o.ord, r.{connection.ops.quote_name(_column(SeatResult, 'seat_no'))}",
                code.params,
            )
            return int(cursor.rowcount)
        # A parallel plan is worth its start for a million rows; the defaults
        # (planned for small queries) price each row through the Gather too high.
        cursor.execute("SET LOCAL parallel_setup_cost = 10")
        cursor.execute("SET LOCAL parallel_tuple_cost = 0.001")
        cursor.execute(f"CREATE TEMPORARY TABLE players_rebuild_seat ON COMMIT DROP AS {select}", code.params)
        written = int(cursor.rowcount)
        cursor.execute("SET LOCAL parallel_setup_cost TO DEFAULT")
        cursor.execute("SET LOCAL parallel_tuple_cost TO DEFAULT")
        cursor.execute(
            "ALTER TABLE players_rebuild_seat ADD PRIMARY KEY (k), ALTER COLUMN ord SET NOT NULL, "
            "ALTER COLUMN seat_no SET NOT NULL, ALTER COLUMN game_id SET NOT NULL, "
            "ALTER COLUMN black SET NOT NULL, ALTER COLUMN line_id SET NOT NULL"
        )
        return written


def _link_unlinked_seats(index: NameIndex) -> None:
    ids = sorted(
        set(
            GameSeat.objects.filter(
                player__isnull=True, game__status=GameStatus.FINISHED, game__finished_at__isnull=False
            ).values_list("game_id", flat=True)
        )
    )
    for start in range(0, len(ids), 5000):
        _link_seats(ids[start : start + 5000], index)


def _copy_rows(table: str, columns: list[str], rows: Sequence[Sequence[Any]], postgres: bool) -> None:
    """Rows into a table in bulk: binary COPY on PostgreSQL (15× text COPY's speed
    for rows of numbers: no formatting or parsing of text), one prepared INSERT
    (executemany, ``_sqlite_insert``) on SQLite."""
    if not rows:
        return
    if not postgres:
        _sqlite_insert(table, ", ".join(columns), rows)
        return
    with connection.cursor() as cursor:
        raw = cursor.cursor  # the psycopg cursor: COPY, the bulk path of PostgreSQL
        types = _postgres_column_types(raw, table, columns)
        with raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(types)
            for row in rows:
                copy.write_row(row)


def _postgres_column_types(raw: Any, table: str, columns: list[str]) -> list[int]:
    """The type (oid) of each of a table's columns: binary COPY sends each value in
    its column's own binary form, with no cast on the server."""
    raw.execute(
        "SELECT attname, atttypid FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
        [table],
    )
    oids = dict(raw.fetchall())
    return [int(oids[c.strip('"')]) for c in columns]


def _insert_player_games(slots: int, start: int, stop: int) -> None:
    """The stored player-game rows of the games in end order [start, stop) (one
    batch), one statement: every linked seat's narrow row, its line's role, side,
    result and stored code (joined by number), and from its game's wide row the
    game's end, whether it counts and the seat's ratings. Its id is the seat row's key (end order, then
    seat): PostgreSQL generating a million identity values cost a third of the
    INSERT."""
    q = connection.ops.quote_name

    def by_seat(prefix: str) -> str:
        return f"CASE x.seat_no {' '.join(f'WHEN {i} THEN t.{prefix}{i}' for i in range(1, slots + 1))} END"

    target = ", ".join(q(_column(PlayerGame, c)) for c in ("id", *PG_COLUMNS))
    source = {
        "player_id": "x.player_id", "game_id": "x.game_id", "seat_no": "x.seat_no",
        "finished_at": "t.at", "rated": "t.counted",
        "rating_before": by_seat("rb"), "rating_after": by_seat("ra"),
        "role": "l.k_role", "team": "l.k_team", "won": "l.k_won", "line_id": "l.code",
    }  # fmt: skip
    values = ", ".join(source[c] for c in PG_COLUMNS)
    sql = (
        f"INSERT INTO {q(PlayerGame._meta.db_table)} ({target}) SELECT x.k, {values} "
        f"FROM players_rebuild_seat x JOIN players_rebuild_game t ON t.ord = x.ord AND t.ord >= %s AND t.ord < %s "
        f"JOIN players_rebuild_line l ON l.line_id = x.line_id "
        f"WHERE x.k >= %s AND x.k < %s AND x.player_id IS NOT NULL"
    )
    base = _seat_key_base(slots)
    with connection.cursor() as cursor:
        cursor.execute(sql, [start, stop, start * base, stop * base])


def _reset_player_game_ids() -> None:
    """The rebuild gave the player-game ids: the next row the incremental path
    writes takes the one after the last."""
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [PlayerGame]):
            cursor.execute(statement)


def _rated_row(game_id: int, at: Any, result: GameRating, after: SideTotals) -> tuple[Any, ...]:
    """A RatedGame row (the incremental path and the rebuild write the same columns)."""
    return (
        game_id,
        at,
        result.base_rate,
        result.red_mean,
        result.black_mean,
        result.expected_red,
        result.red_score,
        result.red_delta,
        after.games,
        after.red_score,
    )


def _db_datetime(value: datetime) -> Any:
    return connection.ops.adapt_datetimefield_value(value)


@functools.cache
def _column(model: Any, name: str) -> str:
    return str(model._meta.get_field(name.removesuffix("_id") if name.endswith("_id") else name).column)


def _copy_text(cursor: Any, table: str, names: str, rows: list[tuple[Any, ...]]) -> None:
    """Rows into a PostgreSQL table by a text COPY (the rows' values in any type
    psycopg adapts; ``_copy_rows`` is the binary COPY of the rebuild's rows of numbers)."""
    with (
        connection.wrap_database_errors,  # a refused row raises Django's IntegrityError, as an INSERT would
        cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row(row)
