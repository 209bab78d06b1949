"""The leaderboard and player pages' queries: stored totals, or sums over a season.

Without a season the rows come from ``PlayerStats`` (one row per player,
kept up to date when games end). With a season (a date range) they are
summed over ``PlayerGame`` rows of that range; the rating shown is the one
after the player's last counted game of the range. The ``naive_*`` functions
compute the same from the result rows on every request (the design the
stored statistics replace; benchmarks/ratings.py compares them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

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
from players.models import Player, PlayerGame, PlayerStats
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


def leaderboard(f: Filters) -> tuple[list[Row], int]:
    """One page of the ranked rows, and how many rows there are in all."""
    if not f.season:
        return _stored_page(f)
    rows = [r for r in _season_rows(f) if _tab_games(r, f.tab) >= max(1, f.min_games)]
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
        qs = qs.filter(rated_games__gte=max(1, f.min_games), rating__isnull=False).order_by("-rating", "-rated_games", "player__nickname")
    else:
        games, wins = f"{f.tab}_games", f"{f.tab}_wins"
        qs = qs.filter(**{f"{games}__gte": max(1, f.min_games)}).annotate(tab_rate=ExpressionWrapper(F(wins) * 1.0 / F(games), output_field=FloatField())).order_by("-tab_rate", f"-{games}", "player__nickname")
    count = qs.count()
    rows = []
    for i, s in enumerate(qs[f.offset : f.offset + f.limit], start=f.offset + 1):
        row = Row(s.player_id, s.player.nickname, s.rating, s.rated_games, {n: getattr(s, n) for n in COUNTERS}, rank=i)
        row.extra["tab"] = f.tab
        rows.append(row)
    return rows, count


def _season_rows(f: Filters) -> list[Row]:
    """Every player's sums over the season's rows, with the rating after his last
    counted game of the season: one aggregated query (GROUP BY player over the
    range, which also finds when his last counted game of the range ended; his
    rating is read from that one row through the (player, finished_at) index),
    plain SQL that SQLite and PostgreSQL both run, values read straight from the
    cursor (no per-value converters for the thousands of rows)."""
    q = connection.ops.quote_name
    pg, player = PlayerGame._meta, Player._meta

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
    sums = ", ".join(f"SUM({col(n)})" for n in COUNTERS)
    sql = (
        f"SELECT g.*, p.{nickname}, "
        f"(SELECT x.{col('rating_after')} FROM {table} x WHERE x.{pid} = g.pid AND x.{rated} AND x.{at} = g.last_at "
        f"ORDER BY x.{col('game')} DESC LIMIT 1) "
        f"FROM (SELECT {pid} AS pid, {sums}, SUM(CASE WHEN {rated} THEN 1 ELSE 0 END), "
        f"SUM(CASE WHEN {rated} THEN {col('rating_after')} - {col('rating_before')} END), "
        f"MAX(CASE WHEN {rated} THEN {at} END) AS last_at "
        f"FROM {table} WHERE {in_range} GROUP BY {pid}) g "
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
        SeatResult.objects.filter(game__seats__seat_no=F("seat_no"), game__seats__player__isnull=False, winner__in=("red", "black", "draw"))
        .values("game__seats__player_id")
        .annotate(games=Count("pk"), wins=Count("pk", filter=Q(won=True)))
        .order_by()
    )
    last = dict(PlayerGame.objects.filter(rated=True).order_by("player_id", "finished_at", "game_id").values_list("player_id", "rating_after"))
    rows = [(d["game__seats__player_id"], d["games"], d["wins"], last.get(d["game__seats__player_id"])) for d in data]
    rows.sort(key=lambda r: -(r[3] or 0.0))
    return rows[:limit]


def naive_player_totals(player_id: int) -> dict[str, int]:
    """Per request: the player's totals from the result rows of every game he sat in."""
    from collections import defaultdict

    from games.models import GameSeat, NightAction
    from players.statistics import seat_line, total

    seats = list(GameSeat.objects.filter(player_id=player_id, game__status="finished").values_list("game_id", "seat_no"))
    game_ids = [g for g, _s in seats]
    mine = set(seats)
    checks: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for c in NightAction.objects.filter(game_id__in=game_ids, kind__in=("sheriff_check", "don_check")).values("game_id", "kind", "actor_seat", "result"):
        checks[c["game_id"]].append(dict(c))
    lines = [seat_line(dict(r), checks[r["game_id"]]) for r in SeatResult.objects.filter(game_id__in=game_ids).values() if (r["game_id"], r["seat_no"]) in mine]
    return total(lines).as_dict()
