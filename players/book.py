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

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q

from games.models import Game, GameSeat, GameStatus, NightAction, SeatResult
from players.matching import KNOWN, NameIndex
from players.models import PlayerGame, PlayerStats, RatedGame
from players.rating import (
    BLACK,
    RED,
    Book,
    CountedGame,
    RatingSettings,
    SideTotals,
    rate_game,
    red_score,
)
from players.statistics import COUNTERS, Line, seat_line


def rating_settings() -> RatingSettings:
    return RatingSettings(k=float(getattr(settings, "PLAYERS_RATING_K", 20.0)), initial=float(getattr(settings, "PLAYERS_RATING_INITIAL", 1500.0)))


@dataclass
class SeatFacts:
    seat_no: int
    player_id: int | None
    role: str
    team: str
    won: bool
    line: Line


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
RESULT_COLUMNS = ("game_id", "seat_no", "role", "team", "won", "winner", "fouls", "removed_by_fouls", "disqualified", "ppk", "first_night_victim", "best_move_accepted", "best_move_blacks")


def _counts(game: Game) -> bool:
    return game.status == GameStatus.FINISHED and game.finished_at is not None


def tournament_game_ids(game_ids: Iterable[int] | None = None) -> set[int]:
    from tournaments.models import Table

    qs = Table.objects.filter(game__isnull=False)
    if game_ids is not None:
        qs = qs.filter(game_id__in=list(game_ids))
    return {gid for gid in qs.values_list("game_id", flat=True) if gid is not None}


def _facts(games: list[Game], index: NameIndex | None = None) -> list[GameFacts]:
    """The facts of finished games, in the given order (few queries for many games)."""
    ids = [g.pk for g in games]
    results: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in SeatResult.objects.filter(game_id__in=ids).order_by("game_id", "seat_no").values(*RESULT_COLUMNS):
        results[r["game_id"]].append(dict(r))
    checks: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for c in NightAction.objects.filter(game_id__in=ids, kind__in=("sheriff_check", "don_check")).values("game_id", "kind", "actor_seat", "result"):
        checks[c["game_id"]].append(dict(c))
    seat_players = _seat_players(ids, index)
    in_tournament = tournament_game_ids(ids)
    out = []
    for g in games:
        assert g.finished_at is not None
        facts = GameFacts(g.pk, g.finished_at, g.winner, g.ppk, bool(g.rated or g.pk in in_tournament))
        for row in results[g.pk]:
            facts.seats.append(SeatFacts(row["seat_no"], seat_players.get((g.pk, row["seat_no"])), row["role"], row["team"], row["won"], seat_line(row, checks[g.pk])))
        out.append(facts)
    return out


def _seat_players(game_ids: list[int], index: NameIndex | None) -> dict[tuple[int, int], int | None]:
    """(game, seat) -> player; a seat not yet linked is linked when its nickname
    is exactly one player's nickname or alias (or its tournament participant's player)."""
    out: dict[tuple[int, int], int | None] = {}
    unlinked: list[tuple[int, int, str]] = []
    for gid, seat_no, pid, nick in GameSeat.objects.filter(game_id__in=game_ids).values_list("game_id", "seat_no", "player_id", "nickname"):
        out[(gid, seat_no)] = pid
        if pid is None:
            unlinked.append((gid, seat_no, nick))
    if not unlinked:
        return out
    from tournaments.models import TableSeat

    by_table = {
        (gid, seat_no): pid
        for gid, seat_no, pid in TableSeat.objects.filter(table__game_id__in={u[0] for u in unlinked}, participant__player__isnull=False).values_list("table__game_id", "seat_no", "participant__player_id")
    }
    if index is None:
        from players.services import name_index

        index = name_index()
    for gid, seat_no, nick in unlinked:
        found = by_table.get((gid, seat_no))
        if found is None:
            m = index.match(nick)
            found = m.player.player_id if m.status == KNOWN and m.player is not None else None
        if found is not None:
            GameSeat.objects.filter(game_id=gid, seat_no=seat_no).update(player_id=found)
            out[(gid, seat_no)] = found
    return out


# --- incremental -------------------------------------------------------------------


def on_results_changed(sender: Any = None, *, game: Game, **kwargs: Any) -> None:
    sync_game(game)


def _at_or_after(finished_at: datetime, game_id: int) -> Q:
    return Q(finished_at__gt=finished_at) | Q(finished_at=finished_at, game_id__gte=game_id)


def sync_game(game: Game) -> None:
    """Bring the stored rows in line with this game's result rows (see the module docstring)."""
    with transaction.atomic():
        counts = _counts(game)
        # One probe per table: this game's own rows, and (when it counts) any row at
        # or after its new position — for the newest game's end, nothing.
        probe = Q(game_id=game.pk)
        if counts:
            assert game.finished_at is not None
            probe |= _at_or_after(game.finished_at, game.pk)
        seen = list(PlayerGame.objects.filter(probe).values_list("game_id", "finished_at").distinct())
        seen += list(RatedGame.objects.filter(probe).values_list("game_id", "finished_at"))
        old = min((at for gid, at in seen if gid == game.pk), default=None)
        later_ids = {gid for gid, _at in seen if gid != game.pk}
        if old is not None and (not counts or old < game.finished_at):  # type: ignore[operator]
            # It stood earlier than its new position: every game after the old one is played again.
            later_ids |= set(PlayerGame.objects.filter(_at_or_after(old, game.pk)).values_list("game_id", flat=True))
            later_ids |= set(RatedGame.objects.filter(_at_or_after(old, game.pk)).values_list("game_id", flat=True))
            later_ids.discard(game.pk)
        if old is None and not counts:
            return
        if old is not None or later_ids:
            _rewind(later_ids | {game.pk})
        replay = list(Game.objects.filter(pk__in=later_ids, status=GameStatus.FINISHED, finished_at__isnull=False))
        if counts:
            replay.append(game)
        replay.sort(key=lambda g: (g.finished_at, g.pk))
        for facts in _facts(replay):
            _apply(facts)
        from players.consumers import push_ratings_changed

        transaction.on_commit(push_ratings_changed)


def replay_from(finished_at: datetime, game_id: int) -> int:
    """Rewind every stored game at or after this position and play them again (after
    a merge: the merged person's history from his first game on changes, and with
    it every later rating change). Returns the games played again."""
    with transaction.atomic():
        ids = set(PlayerGame.objects.filter(_at_or_after(finished_at, game_id)).values_list("game_id", flat=True))
        ids |= set(RatedGame.objects.filter(_at_or_after(finished_at, game_id)).values_list("game_id", flat=True))
        if not ids:
            return 0
        _rewind(ids)
        games = sorted(Game.objects.filter(pk__in=ids, status=GameStatus.FINISHED, finished_at__isnull=False), key=lambda g: (g.finished_at, g.pk))
        for facts in _facts(games):
            _apply(facts)
        from players.consumers import push_ratings_changed

        transaction.on_commit(push_ratings_changed)
    return len(games)


def _rewind(game_ids: set[int]) -> None:
    rows = list(PlayerGame.objects.filter(game_id__in=game_ids).order_by("finished_at", "game_id"))
    if rows:
        stats = {s.player_id: s for s in PlayerStats.objects.filter(player_id__in={r.player_id for r in rows})}
        earliest_rating: dict[int, float | None] = {}
        for r in rows:
            s = stats[r.player_id]
            for name in COUNTERS:
                setattr(s, name, getattr(s, name) - getattr(r, name))
            if r.rated:
                s.rated_games -= 1
                earliest_rating.setdefault(r.player_id, r.rating_before)
        for pid, before in earliest_rating.items():
            stats[pid].rating = before if stats[pid].rated_games else None
        _store_stats(stats.values())
        PlayerGame.objects.filter(game_id__in=game_ids).delete()
    RatedGame.objects.filter(game_id__in=game_ids).delete()


def _apply(facts: GameFacts) -> None:
    conf = rating_settings()
    pids = [s.player_id for s in facts.seats if s.player_id is not None]
    stats = {s.player_id: s for s in PlayerStats.objects.filter(player_id__in=pids)}
    stats.update({pid: PlayerStats(player_id=pid) for pid in pids if pid not in stats})

    def rating(pid: int | None) -> float:
        if pid is None or stats[pid].rating is None:
            return conf.initial
        return float(stats[pid].rating)  # type: ignore[arg-type]

    result = None
    at = _db_datetime(facts.finished_at)
    if facts.counted:
        last = RatedGame.objects.order_by("-finished_at", "-game_id").values_list("games_after", "red_score_after").first()
        totals = SideTotals(*last) if last else SideTotals()
        red = [rating(s.player_id) for s in facts.seats if s.team == RED]
        black = [rating(s.player_id) for s in facts.seats if s.team == BLACK]
        result = rate_game(red, black, red_score(facts.winner, facts.ppk), totals, conf)
        after = totals.plus(result.red_score)
        _insert(RatedGame, RG_COLUMNS, [(facts.game_id, at, result.base_rate, result.red_mean, result.black_mean, result.expected_red, result.red_score, result.red_delta, after.games, after.red_score)])
    rows = []
    for seat in facts.seats:
        if seat.player_id is None:
            continue
        s = stats[seat.player_id]
        counts = seat.line.as_tuple()
        for name, n in zip(COUNTERS, counts, strict=True):
            setattr(s, name, getattr(s, name) + n)
        before = after_rating = None
        if result is not None:
            before = rating(seat.player_id)
            after_rating = before + result.delta(seat.team)
            s.rating = after_rating
            s.rated_games += 1
        rows.append((seat.player_id, facts.game_id, seat.seat_no, at, seat.role, seat.team, seat.won, facts.counted, before, after_rating, *counts))
    _insert(PlayerGame, PG_COLUMNS, rows)
    _store_stats(stats.values())


def _store_stats(rows: Iterable[PlayerStats]) -> None:
    """Replace the players' totals rows (two statements: bulk_update's CASE per
    column costs far more to build for ten rows); a player without games has none."""
    rows = list(rows)
    PlayerStats.objects.filter(player_id__in=[r.player_id for r in rows]).delete()
    _insert(PlayerStats, STATS_COLUMNS, [(r.player_id, r.rating, r.rated_games, *(getattr(r, n) for n in COUNTERS)) for r in rows if r.games > 0])


PG_COLUMNS = ["player_id", "game_id", "seat_no", "finished_at", "role", "team", "won", "rated", "rating_before", "rating_after", *COUNTERS]
RG_COLUMNS = ["game_id", "finished_at", "base_rate", "red_mean", "black_mean", "expected_red", "red_score", "red_delta", "games_after", "red_score_after"]
STATS_COLUMNS = ["player_id", "rating", "rated_games", *COUNTERS]


# --- rebuild -------------------------------------------------------------------------


def recompute(*, batch: int = 5000) -> int:
    """Rebuild every stored row from the games in end order; returns the games played.

    The same arithmetic as the incremental path (``Book.play`` is ``rate_game``
    over the stored ratings); the rows are written with plain multi-row
    INSERTs, since building a million model instances costs more than the rating.
    """
    from players.services import name_index

    conf = rating_settings()
    index = name_index()
    with transaction.atomic():
        PlayerGame.objects.all().delete()
        RatedGame.objects.all().delete()
        PlayerStats.objects.all().delete()
        book = Book(settings=conf)
        zero = [0] * len(COUNTERS)
        totals: dict[int, list[int]] = {}
        rated_games: dict[int, int] = defaultdict(int)
        games = list(Game.objects.filter(status=GameStatus.FINISHED, finished_at__isnull=False).order_by("finished_at", "pk").only("pk", "finished_at", "winner", "ppk", "rated"))
        for start in range(0, len(games), batch):
            rows: list[tuple[Any, ...]] = []
            rated_rows: list[tuple[Any, ...]] = []
            for facts in _facts(games[start : start + batch], index):
                at = _db_datetime(facts.finished_at)
                before = {s.player_id: book.rating(s.player_id) for s in facts.seats}
                result = None
                if facts.counted:
                    result, after = book.play(facts.counted_game())
                    rated_rows.append((facts.game_id, at, result.base_rate, result.red_mean, result.black_mean, result.expected_red, result.red_score, result.red_delta, after.games, after.red_score))
                for seat in facts.seats:
                    if seat.player_id is None:
                        continue
                    counts = seat.line.as_tuple()
                    mine = totals.get(seat.player_id, zero)
                    totals[seat.player_id] = [a + b for a, b in zip(mine, counts, strict=True)]
                    r_before = r_after = None
                    if result is not None:
                        r_before, r_after = before[seat.player_id], book.ratings[seat.player_id]
                        rated_games[seat.player_id] += 1
                    rows.append((seat.player_id, facts.game_id, seat.seat_no, at, seat.role, seat.team, seat.won, facts.counted, r_before, r_after, *counts))
            _insert(PlayerGame, PG_COLUMNS, rows)
            _insert(RatedGame, RG_COLUMNS, rated_rows)
        _insert(PlayerStats, STATS_COLUMNS, [(pid, book.ratings.get(pid), rated_games[pid], *counts) for pid, counts in totals.items()])
    return len(games)


def _db_datetime(value: datetime) -> Any:
    return connection.ops.adapt_datetimefield_value(value)


def _insert(model: Any, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    """INSERT plain tuples (values already in database form) with one prepared
    statement: executemany, no model instances."""
    if not rows:
        return
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(model._meta.get_field(c.removesuffix("_id") if c.endswith("_id") else c).column) for c in columns)
    placeholders = ", ".join(["%s"] * len(columns))
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({placeholders})", rows)
