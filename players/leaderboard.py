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

from django.db.models import Count, F, OuterRef, Q, Subquery, Sum
from django.utils import timezone

from games.models import SeatResult
from players.models import PlayerGame, PlayerStats
from players.statistics import COUNTERS, ROLES, rate

TABS = ("rating", *ROLES)


@dataclass
class Filters:
    tab: str = "rating"
    start: date | None = None
    end: date | None = None
    min_games: int = 0
    limit: int = 500

    @property
    def season(self) -> bool:
        return self.start is not None or self.end is not None

    def range_q(self, prefix: str = "") -> Q:
        q = Q()
        tz = timezone.get_current_timezone()
        if self.start:
            q &= Q(**{f"{prefix}finished_at__gte": datetime.combine(self.start, time.min, tz)})
        if self.end:
            q &= Q(**{f"{prefix}finished_at__lt": datetime.combine(self.end + timedelta(days=1), time.min, tz)})
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
    def tab_games(self) -> int:
        tab = self.extra.get("tab", "rating")
        return self.rated_games if tab == "rating" else self.counters.get(f"{tab}_games", 0)


def leaderboard(f: Filters) -> list[Row]:
    rows = _season_rows(f) if f.season else _stored_rows(f)
    for r in rows:
        r.extra["tab"] = f.tab
    rows = [r for r in rows if r.tab_games >= max(1, f.min_games)]
    if f.tab == "rating":
        rows.sort(key=lambda r: (-(r.rating or 0.0), -r.rated_games, r.nickname.casefold()))
    else:
        rows.sort(key=lambda r: (-(r.role(f.tab)[2] or 0.0), -r.role(f.tab)[0], r.nickname.casefold()))
    rows = rows[: f.limit]
    for i, r in enumerate(rows, start=1):
        r.rank = i
    return rows


def _stored_rows(f: Filters) -> list[Row]:
    qs = PlayerStats.objects.select_related("player")
    if f.tab == "rating":
        qs = qs.filter(rated_games__gte=max(1, f.min_games)).order_by("-rating")[: f.limit]
    else:
        qs = qs.filter(**{f"{f.tab}_games__gte": max(1, f.min_games)})
    return [Row(s.player_id, s.player.nickname, s.rating, s.rated_games, {n: getattr(s, n) for n in COUNTERS}) for s in qs]


def _season_rows(f: Filters) -> list[Row]:
    in_range = PlayerGame.objects.filter(f.range_q())
    last_rating = PlayerGame.objects.filter(f.range_q(), player_id=OuterRef("player_id"), rated=True).order_by("-finished_at", "-game_id").values("rating_after")[:1]
    sums = {n: Sum(n) for n in COUNTERS}
    data = (
        in_range.values("player_id", "player__nickname")
        .annotate(**sums, rated_games=Count("pk", filter=Q(rated=True)), delta=Sum(F("rating_after") - F("rating_before"), filter=Q(rated=True)), rating=Subquery(last_rating))
        .order_by()
    )
    out = []
    for d in data:
        values: dict[str, Any] = dict(d)
        out.append(Row(values["player_id"], values["player__nickname"], values["rating"], values["rated_games"], {n: values[n] or 0 for n in COUNTERS}, values["delta"]))
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
