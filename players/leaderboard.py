"""The leaderboard and player pages' queries: stored totals, or sums over a season.

Without a season the rows come from ``PlayerStats`` (one row per player,
kept up to date when games end). A season of whole months (the first of a
month to the last day of a month, or open on either side) is summed over the
players' ``PlayerMonth`` rows: at most one row per player and month, ranked
and paged in the database. A season bounded inside a month is summed over the
``PlayerGame`` rows of that range (slower: every game of the range; the page
says so). The rating shown for a season is the one after the player's last
counted game in it.

*Provisional*: a rating from fewer than ``provisional_games()`` counted games
(players/rating.py PROVISIONAL_GAMES) has not settled yet; the rating table
hides those players unless asked to show them. The ``naive_*`` functions
compute the same from the result rows on every request (the design the
stored statistics replace; benchmarks/ratings.py compares them).
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import (
    Count,
    ExpressionWrapper,
    F,
    FloatField,
    Q,
)
from django.utils import timezone

from games.models import SeatResult
from games.rules.nicknames import nickname_sort_key
from players.models import Player, PlayerGame, PlayerMonth, PlayerStats, StatisticsLine
from players.rating import PROVISIONAL_GAMES
from players.statistics import COUNTERS, ROLES, rate

TABS = ("rating", *ROLES)


@dataclass
class Filters:
    tab: str = "rating"
    start: date | None = None
    end: date | None = None
    min_games: int = 0
    page: int = 1
    limit: int = 100
    show_provisional: bool = False

    @property
    def whole_months(self) -> tuple[date | None, date | None] | None:
        """(first month, last month) when the season is made of whole months (either
        side may be open), else None (a bound inside a month)."""
        if self.start is not None and self.start.day != 1:
            return None
        if self.end is not None and self.end.day != calendar.monthrange(self.end.year, self.end.month)[1]:
            return None
        return self.start, self.end.replace(day=1) if self.end else None

    @property
    def hides_provisional(self) -> bool:
        return self.tab == "rating" and not self.show_provisional

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit

    @property
    def season(self) -> bool:
        return self.start is not None or self.end is not None

    def bounds(self) -> tuple[datetime | None, datetime | None]:
        """The season as [start, end) moments in the current time zone (days inclusive)."""
        tz = timezone.get_current_timezone()
        start = datetime.combine(self.start, time.min, tz) if self.start else None
        end = datetime.combine(self.end + timedelta(days=1), time.min, tz) if self.end else None
        return start, end

    def range_q(self, prefix: str = "") -> Q:
        q = Q()
        start, end = self.bounds()
        if start is not None:
            q &= Q(**{f"{prefix}finished_at__gte": start})
        if end is not None:
            q &= Q(**{f"{prefix}finished_at__lt": end})
        return q


@dataclass
class Row:
    player_id: int
    nickname: str
    rating: float | None
    rated_games: int
    counters: dict[str, int]
    delta: float | None = None
    rank: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    established: int | None = None  # all his counted games (a season's row: not only the season's)

    @property
    def provisional(self) -> bool:
        n = self.rated_games if self.established is None else self.established
        return self.rating is not None and n < provisional_games()

    @property
    def games(self) -> int:
        return self.counters.get("games", 0)

    @property
    def wins(self) -> int:
        return self.counters.get("wins", 0)

    @property
    def win_rate(self) -> float | None:
        return rate(self.wins, self.games)

    def role(self, role: str) -> tuple[int, int, float | None]:
        g, w = self.counters.get(f"{role}_games", 0), self.counters.get(f"{role}_wins", 0)
        return g, w, rate(w, g)

    @property
    def role_cells(self) -> list[tuple[str, int, int, float | None]]:
        return [(role, *self.role(role)) for role in ROLES]

    @property
    def tab_games(self) -> int:
        tab = self.extra.get("tab", "rating")
        return self.rated_games if tab == "rating" else self.counters.get(f"{tab}_games", 0)


def provisional_games() -> int:
    """Counted games below which a rating is provisional (setting PLAYERS_PROVISIONAL_GAMES)."""
    return int(getattr(settings, "PLAYERS_PROVISIONAL_GAMES", PROVISIONAL_GAMES))


def leaderboard(f: Filters) -> tuple[list[Row], int]:
    """One page of the ranked rows, and how many rows there are in all."""
    if not f.season:
        return _stored_page(f)
    if f.whole_months is not None:
        return _month_page(f)
    rows = [r for r in _season_rows(f) if _tab_games(r, f.tab) >= max(1, f.min_games)]
    established = dict(
        PlayerStats.objects.filter(player_id__in=[r.player_id for r in rows]).values_list("player_id", "rated_games")
    )
    for r in rows:
        r.established = established.get(r.player_id, 0)
    if f.hides_provisional:
        rows = [r for r in rows if not r.provisional]
    if f.tab == "rating":
        rows.sort(key=lambda r: (-(r.rating or 0.0), -r.rated_games, nickname_sort_key(r.nickname)))
    else:
        rows.sort(key=lambda r: (-(r.role(f.tab)[2] or 0.0), -r.role(f.tab)[0], nickname_sort_key(r.nickname)))
    for i, r in enumerate(rows, start=1):
        r.rank = i
        r.extra["tab"] = f.tab
    return rows[f.offset : f.offset + f.limit], len(rows)


def _tab_games(r: Row, tab: str) -> int:
    return r.rated_games if tab == "rating" else r.counters.get(f"{tab}_games", 0)


def _stored_page(f: Filters) -> tuple[list[Row], int]:
    """Ranked in the database from the stored totals: one page is read, never all players."""
    qs = PlayerStats.objects.select_related("player")
    if f.tab == "rating":
        least = max(1, f.min_games, provisional_games() if f.hides_provisional else 0)
        qs = qs.filter(rated_games__gte=least, rating__isnull=False).order_by(
            "-rating", "-rated_games", "player__nickname"
        )
    else:
        games, wins = f"{f.tab}_games", f"{f.tab}_wins"
        qs = (
            qs.filter(**{f"{games}__gte": max(1, f.min_games)})
            .annotate(tab_rate=ExpressionWrapper(F(wins) * 1.0 / F(games), output_field=FloatField()))
            .order_by("-tab_rate", f"-{games}", "player__nickname")
        )
    count = qs.count()
    rows = []
    for i, s in enumerate(qs[f.offset : f.offset + f.limit], start=f.offset + 1):
        row = Row(s.player_id, s.player.nickname, s.rating, s.rated_games, {n: getattr(s, n) for n in COUNTERS}, rank=i)
        row.extra["tab"] = f.tab
        rows.append(row)
    return rows, count


def _month_page(f: Filters) -> tuple[list[Row], int]:
    """A season of whole months from the month rows, in two statements. The first
    ranks: each player's rows of the season summed (GROUP BY over the (month,
    player) index) only in what the ranking needs (counted games, or the tab's
    role games and wins), his rating after the season's last counted month and
    before its first one (lookups by the unique (player, month) key), filtered,
    ordered and paged in the database, with the number of rows (COUNT(*) OVER ()).
    The second sums every counter for the page's players only."""
    q = connection.ops.quote_name
    mt, player, stats = PlayerMonth._meta, Player._meta, PlayerStats._meta
    first, last = f.whole_months or (None, None)
    where, params = ["1 = 1"], []
    if first is not None:
        where.append(f"{q('month')} >= %s")
        params.append(connection.ops.adapt_datefield_value(first))
    if last is not None:
        where.append(f"{q('month')} <= %s")
        params.append(connection.ops.adapt_datefield_value(last))
    in_season = " AND ".join(where)
    pid, table = q(str(mt.get_field("player").column)), q(mt.db_table)
    role_sums = (
        "" if f.tab == "rating" else f", SUM({q(f'{f.tab}_games')}) AS tab_games, SUM({q(f'{f.tab}_wins')}) AS tab_wins"
    )
    inner = (
        f"SELECT {pid} AS pid, SUM({q('rated_games')}) AS season_rated{role_sums}, "
        f"MIN(CASE WHEN {q('rated_games')} > 0 THEN {q('month')} END) AS first_m, MAX(CASE WHEN {q('rated_games')} > 0 THEN {q('month')} END) AS last_m "
        f"FROM {table} WHERE {in_season} GROUP BY {pid}"
    )
    rating = f"(SELECT x.{q('rating_last')} FROM {table} x WHERE x.{pid} = g.pid AND x.{q('month')} = g.last_m)"
    established = f"COALESCE(st.{q('rated_games')}, 0)"
    if f.tab == "rating":
        tab_cols, tab_rate = "", "z.rating"
        filters = "z.season_rated >= %s AND z.rating IS NOT NULL" + (
            " AND z.established >= %s" if f.hides_provisional else ""
        )
        filter_params = [max(1, f.min_games), *([provisional_games()] if f.hides_provisional else [])]
        order = "z.rating DESC, z.season_rated DESC, z.nickname"
    else:
        tab_cols = ", g.tab_games, g.tab_wins"
        tab_rate = "CASE WHEN z.tab_games > 0 THEN z.tab_wins * 1.0 / z.tab_games END"
        filters, filter_params = "z.tab_games >= %s", [max(1, f.min_games)]
        order = "tab_rate DESC, z.tab_games DESC, z.nickname"
    sql = (
        f"SELECT z.pid, z.nickname, z.season_rated, z.rating, z.established, {tab_rate} AS tab_rate, COUNT(*) OVER () AS total FROM ("
        f"SELECT g.pid, p.{q(str(player.get_field('nickname').column))} AS nickname, g.season_rated{tab_cols}, "
        f"{rating} AS rating, {established} AS established "
        f"FROM ({inner}) g JOIN {q(player.db_table)} p ON p.{q(str(player.pk.column))} = g.pid "
        f"LEFT JOIN {q(stats.db_table)} st ON st.{q(str(stats.pk.column))} = g.pid"
        # A fence (a LIMIT that cuts nothing): z is computed once; flattened into the
        # outer query, SQLite looked each player's rating up twice.
        f"{' LIMIT -1' if connection.vendor == 'sqlite' else ' OFFSET 0'}) z WHERE {filters} ORDER BY {order} LIMIT %s OFFSET %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *filter_params, f.limit, f.offset])
        data = cursor.fetchall()
    if not data:
        return [], (_month_count(f) if f.offset else 0)
    ids = [row[0] for row in data]
    # The page's players only: every counter summed, and the rating before the
    # season's first counted month (for the change shown; not needed to rank).
    sums = ", ".join(f"SUM({q(n)})" for n in COUNTERS)
    first_rated = f"MIN(CASE WHEN {q('rated_games')} > 0 THEN {q('month')} END)"
    before = f"(SELECT x.{q('rating_first')} FROM {table} x WHERE x.{pid} = s.pid AND x.{q('month')} = s.first_m)"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT s.*, {before} FROM (SELECT {pid} AS pid, {first_rated} AS first_m, {sums} FROM {table} "
            f"WHERE {in_season} AND {pid} IN ({', '.join(['%s'] * len(ids))}) GROUP BY {pid}) s",
            [*params, *ids],
        )
        found = cursor.fetchall()
    counters_of = {row[0]: {name: int(v or 0) for name, v in zip(COUNTERS, row[2:-1], strict=True)} for row in found}
    before_of = {row[0]: row[-1] for row in found}
    rows = []
    for i, (player_id, nick, season_rated, rating_now, established_games, _tab_rate, _total) in enumerate(
        data, start=f.offset + 1
    ):
        rating_before = before_of.get(player_id)
        delta = rating_now - rating_before if rating_now is not None and rating_before is not None else None
        row = Row(
            player_id,
            nick,
            rating_now,
            int(season_rated or 0),
            counters_of.get(player_id, {}),
            delta,
            rank=i,
            established=int(established_games),
        )
        row.extra["tab"] = f.tab
        rows.append(row)
    return rows, int(data[0][-1])


def _month_count(f: Filters) -> int:
    probe = Filters(**{**f.__dict__, "page": 1, "limit": 1})
    _rows, count = _month_page(probe)
    return count


def _season_rows(f: Filters) -> list[Row]:
    """Every player's sums over the season's rows, with the rating after his last
    counted game of the season: one aggregated query (GROUP BY player over the
    range, which also finds when his last counted game of the range ended; his
    rating is read from that one row through the (player, finished_at) index),
    plain SQL that SQLite and PostgreSQL both run, values read straight from the
    cursor (no per-value converters for the thousands of rows). The counters are
    each row's line's (a join of the few hundred ``StatisticsLine`` rows)."""
    q = connection.ops.quote_name
    pg, player, line = PlayerGame._meta, Player._meta, StatisticsLine._meta

    def col(name: str) -> str:
        return q(str(getattr(pg.get_field(name), "column", name)))

    where, params = ["1 = 1"], []
    start, end = f.bounds()
    if start is not None:
        where.append(f"{col('finished_at')} >= %s")
        params.append(connection.ops.adapt_datetimefield_value(start))
    if end is not None:
        where.append(f"{col('finished_at')} < %s")
        params.append(connection.ops.adapt_datetimefield_value(end))
    in_range = " AND ".join(where)
    rated, table, pid, at = col("rated"), q(pg.db_table), col("player"), col("finished_at")
    nickname = q(str(player.get_field("nickname").column))
    sums = ", ".join(f"SUM(l.{q(n)})" for n in COUNTERS)  # a counter's column is its name
    sql = (
        f"SELECT g.*, p.{nickname}, "
        f"(SELECT x.{col('rating_after')} FROM {table} x WHERE x.{pid} = g.pid AND x.{rated} AND x.{at} = g.last_at "
        f"ORDER BY x.{col('game')} DESC LIMIT 1) "
        f"FROM (SELECT {pid} AS pid, {sums}, SUM(CASE WHEN {rated} THEN 1 ELSE 0 END), "
        f"SUM(CASE WHEN {rated} THEN {col('rating_after')} - {col('rating_before')} END), "
        f"MAX(CASE WHEN {rated} THEN {at} END) AS last_at "
        f"FROM {table} JOIN {q(line.db_table)} l ON l.{q(str(line.pk.column))} = {col('line')} "
        f"WHERE {in_range} GROUP BY {pid}) g "
        f"JOIN {q(player.db_table)} p ON p.{q(str(player.pk.column))} = g.pid"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        data = cursor.fetchall()
    n = len(COUNTERS)
    out = []
    for player_id, *values in data:
        counters = {name: int(v or 0) for name, v in zip(COUNTERS, values[:n], strict=True)}
        rated_games, delta, _last_at, nick, rating = values[n:]
        out.append(Row(player_id, nick, rating, int(rated_games or 0), counters, delta))
    return out


# --- the naive design (benchmarks only) --------------------------------------------


def naive_leaderboard(limit: int = 500) -> list[tuple[int, int, int, float | None]]:
    """Per request: sum every seat's result row per player, and take each player's
    latest rating from his history rows — no stored totals."""
    data = (
        SeatResult.objects.filter(
            game__seats__seat_no=F("seat_no"), game__seats__player__isnull=False, winner__in=("red", "black", "draw")
        )
        .values("game__seats__player_id")
        .annotate(games=Count("pk"), wins=Count("pk", filter=Q(won=True)))
        .order_by()
    )
    last = dict(
        PlayerGame.objects.filter(rated=True)
        .order_by("player_id", "finished_at", "game_id")
        .values_list("player_id", "rating_after")
    )
    rows = [(d["game__seats__player_id"], d["games"], d["wins"], last.get(d["game__seats__player_id"])) for d in data]
    rows.sort(key=lambda r: -(r[3] or 0.0))
    return rows[:limit]


def naive_player_totals(player_id: int) -> dict[str, int]:
    """Per request: the player's totals from the result rows of every game he sat in."""
    from collections import defaultdict

    from games.models import GameSeat, NightAction
    from players.statistics import seat_line, total

    seats = list(
        GameSeat.objects.filter(player_id=player_id, game__status="finished").values_list("game_id", "seat_no")
    )
    game_ids = [g for g, _s in seats]
    mine = set(seats)
    checks: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for c in NightAction.objects.filter(game_id__in=game_ids, kind__in=("sheriff_check", "don_check")).values(
        "game_id", "kind", "actor_seat", "result"
    ):
        checks[c["game_id"]].append(dict(c))
    lines = [
        seat_line(dict(r), checks[r["game_id"]])
        for r in SeatResult.objects.filter(game_id__in=game_ids).values()
        if (r["game_id"], r["seat_no"]) in mine
    ]
    return total(lines).as_dict()
