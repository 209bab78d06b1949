"""Benchmark: players' statistics and ratings (issue 18), on a throwaway database.

Random legal games (games.rules.simulate) among a pool of players, stored
with their result rows and night checks as the services write them, in end
order; every game counted. Figures, best and median of several runs, wall
time, side by side with the naive design (aggregating every seat's result row
on each request, without the stored statistics):

- recompute_ratings: every player's statistics and rating rebuilt from all
  games (aim ≤ 10 s for 100,000 games), beside the pure rating arithmetic
  alone (players/rating.py over the same games in memory);
- the leaderboard page (/ratings/, server time through the test client) and
  its query from the stored totals, beside the naive per-request aggregation
  (aim ≤ 50 ms);
- a player page (/players/<id>/) of the busiest player, beside his totals
  aggregated per request from his seats (aim ≤ 50 ms);
- the incremental update when one more game ends (aim ≤ 5 ms), beside a
  full recompute (what a design without incremental rows would do).

    .venv/bin/python benchmarks/ratings.py [--games 2000] [--players 2000] [--distinct 300] [--repeat 5]
    DATABASE_URL=postgres://... .venv/bin/python benchmarks/ratings.py ...   (PostgreSQL; a test database is created and dropped)

The issue's sizes are --games 100000 --players 10000 (2,000 of them playing
is what the recompute aim names; the rest have no game and only weigh on the
tables). `--distinct` logs are generated and reused with other players.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_tmp = tempfile.mkdtemp(prefix="ratings-bench-")
if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
    os.environ.pop("DATABASE_URL", None)
    os.environ["SQLITE_PATH"] = str(Path(_tmp) / "bench.sqlite3")
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_protocol.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-not-for-use-anywhere-else-0123456789")

import django  # noqa: E402

django.setup()
# Pages render without a collectstatic manifest (DEBUG off still picks the manifest storage).
django.conf.settings.STORAGES = {**django.conf.settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import get_runner, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from games.models import Game, GameAction, GameSeat, GameStatus, NightAction  # noqa: E402
from games.rules import GameState, Regulations, replay  # noqa: E402
from games.rules.simulate import random_game  # noqa: E402
from games.services import _write_results  # noqa: E402
from players import book, leaderboard  # noqa: E402
from players.models import Player, PlayerGame, PlayerStats  # noqa: E402
from players.rating import Book  # noqa: E402

CPU: list[float] = []


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best and median wall time; the best run's process CPU time goes to CPU[-1]
    (on a shared machine the wall time also holds waiting for a core)."""
    runs = []
    cpus = []
    for _ in range(repeat):
        c0 = time.process_time()
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    CPU.append(min(cpus))
    return min(runs), statistics.median(runs)


def cpu() -> str:
    return f"[cpu {CPU[-1] * 1000:.1f} ms]"


def finished_logs(n: int, rng: random.Random) -> list[tuple[list[dict[str, object]], GameState]]:
    out: list[tuple[list[dict[str, object]], GameState]] = []
    while len(out) < n:
        log = random_game(rng)
        state = replay(log, Regulations())
        if state.status == "finished":
            out.append((log, state))
    return out


def store_game(host: object, state: GameState, names: list[str], ids: list[int], at: object) -> Game:
    """One finished game's rows as the services leave them (seats, result rows, checks)."""
    public = state.public_dict()
    game = Game.objects.create(host=host, title="bench", status=GameStatus.FINISHED, winner=public["winner"] or "", ppk=public["ppk"] or "", finished_at=at, rated=True, public_state={})
    GameSeat.objects.bulk_create(GameSeat(game=game, seat_no=i, nickname=names[i - 1], role=state.roles.get(i, "civilian"), player_id=ids[i - 1]) for i in range(1, 11))
    state.players = names  # the result rows carry the seat's nickname
    _write_results(game, state)
    captains = {role: seat for seat, role in state.roles.items() if role in ("sheriff", "don")}
    checks = list(state.record.checks)
    # Each check with the host action that recorded it (a projection row points at its action).
    actions = GameAction.objects.bulk_create(GameAction(game=game, seq=n, payload={"do": f"{c['by']}_check", "target": c["target"]}) for n, c in enumerate(checks, start=1))
    NightAction.objects.bulk_create(
        NightAction(game=game, action=a, night=c["night"], kind=f"{c['by']}_check", actor_seat=captains.get(c["by"]), target_seat=c["target"], result=("sheriff" if c["result"] else "not_sheriff") if c["by"] == "don" else str(c["result"]))
        for c, a in zip(checks, actions, strict=True)
    )
    return game


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=2000, help="players who play")
    parser.add_argument("--extra-players", type=int, default=0, help="registered players without games (the issue: 8,000)")
    parser.add_argument("--distinct", type=int, default=300, help="distinct random logs, reused with other players")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    postgres = connection.vendor == "postgresql"
    if postgres:
        setup_test_environment()
        runner = get_runner(django.conf.settings)(verbosity=0)
        old_config = runner.setup_databases()
    else:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
    try:
        run(args)
    finally:
        if postgres:
            runner.teardown_databases(old_config)


def run(args: argparse.Namespace) -> None:
    from players.models import RatedGame

    rng = random.Random(2026)
    t0 = time.perf_counter()
    logs = finished_logs(args.distinct, rng)
    t_logs = time.perf_counter() - t0
    host = get_user_model().objects.create_user(username="bench-host", password="x" * 12)
    total_players = args.players + args.extra_players
    Player.objects.bulk_create([Player(nickname=f"P{i:05d}", key=f"p{i:05d}") for i in range(total_players)], batch_size=5000)
    pids = list(Player.objects.order_by("pk").values_list("pk", flat=True))[: args.players]
    start = timezone.now() - timedelta(days=365)
    t0 = time.perf_counter()
    # The result-row hook is not connected while building: the rows are made as a finished game leaves them.
    from games.signals import results_changed

    results_changed.disconnect(dispatch_uid="players.book.on_results_changed")
    with transaction.atomic():
        for g in range(args.games):
            _log, state = logs[g % len(logs)]
            seated = rng.sample(pids, 10)
            store_game(host, state.copy(), [f"P{p:05d}" for p in seated], seated, start + timedelta(minutes=g))
    results_changed.connect(book.on_results_changed, dispatch_uid="players.book.on_results_changed")
    t_build = time.perf_counter() - t0
    print(f"{connection.vendor}: {args.games} finished games ({args.distinct} distinct random logs) among {args.players} players (+{args.extra_players} without games); logs {t_logs:.1f} s, rows {t_build:.1f} s")

    # 1. recompute
    rb, rm = timed(book.recompute, max(1, min(3, args.repeat)))
    print(f"recompute_ratings (all statistics and ratings, DB writes included): best {rb:.2f} s, median {rm:.2f} s  (aim ≤ 10 s at 100,000 games) [cpu {CPU[-1]:.2f} s]")
    facts_games = list(Game.objects.filter(status=GameStatus.FINISHED).order_by("finished_at", "pk"))
    counted = [f.counted_game() for f in book._facts(facts_games)]
    pb, _pm = timed(lambda: Book().play_all(counted), max(1, min(3, args.repeat)))
    print(f"  the rating arithmetic alone over the same games (pure, in memory): {pb:.2f} s — the rest is reading result rows and writing the stored rows")

    # 2. leaderboard
    client = Client()
    assert client.get("/ratings/").status_code == 200
    qb, qm = timed(lambda: leaderboard.leaderboard(leaderboard.Filters()), args.repeat)
    nb, nm = timed(lambda: leaderboard.naive_leaderboard(), max(1, args.repeat // 2))
    pgb, pgm = timed(lambda: client.get("/ratings/"), args.repeat)
    print(f"leaderboard rows, stored totals: best {qb * 1000:.1f} ms, median {qm * 1000:.1f} ms {CPU[-3] * 1000:.1f} cpu; naive per-request aggregation: best {nb * 1000:.0f} ms, median {nm * 1000:.0f} ms {CPU[-2] * 1000:.1f} cpu → {nb / qb:.1f}×")
    print(f"leaderboard page /ratings/ (first page, 100 rows rendered): best {pgb * 1000:.1f} ms, median {pgm * 1000:.1f} ms  (aim ≤ 50 ms) {cpu()}")
    sb, sm = timed(lambda: client.get("/ratings/?from=2000-01-01&to=2100-01-01"), max(1, args.repeat // 2))
    print(f"leaderboard page with a season filter (sums over the season's rows): best {sb * 1000:.0f} ms, median {sm * 1000:.0f} ms {cpu()}")

    # 3. player page
    busiest = PlayerStats.objects.order_by("-games").first()
    assert busiest is not None
    url = f"/players/{busiest.player_id}/"
    assert client.get(url).status_code == 200
    ppb, ppm = timed(lambda: client.get(url), args.repeat)
    page_cpu = CPU[-1]
    tb, _tm = timed(lambda: PlayerStats.objects.get(player_id=busiest.player_id), args.repeat)
    nb2, nm2 = timed(lambda: leaderboard.naive_player_totals(busiest.player_id), args.repeat)
    assert leaderboard.naive_player_totals(busiest.player_id) == {n: getattr(busiest, n) for n in leaderboard.COUNTERS}
    print(f"player page of the busiest player ({busiest.games} games): best {ppb * 1000:.1f} ms, median {ppm * 1000:.1f} ms  (aim ≤ 50 ms) [cpu {page_cpu * 1000:.1f} ms]")
    print(f"  his totals: stored row {tb * 1000:.2f} ms; naive aggregation of his seats {nb2 * 1000:.1f} ms (median {nm2 * 1000:.1f})  → {nb2 / tb:.0f}×")

    # 4. incremental update
    runs = []
    cpus = []
    last = Game.objects.order_by("-finished_at").values_list("finished_at", flat=True).first()
    assert last is not None
    for i in range(max(10, args.repeat * 4)):
        _log, state = logs[i % len(logs)]
        seated = rng.sample(pids, 10)
        game = store_game(host, state.copy(), [f"P{p:05d}" for p in seated], seated, last + timedelta(minutes=i + 1))
        c0 = time.process_time()
        t0 = time.perf_counter()
        book.sync_game(game)
        runs.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    ib, im = min(runs), statistics.median(runs)
    print(f"incremental update on a game's end: best {ib * 1000:.2f} ms, median {im * 1000:.2f} ms  (aim ≤ 5 ms) [cpu median {statistics.median(cpus) * 1000:.2f} ms]; a full recompute instead: {rb:.2f} s → {rb / im:.0f}×")
    incremental = sorted(PlayerStats.objects.values_list("player_id", "rating", "games"))
    book.recompute()
    assert sorted(PlayerStats.objects.values_list("player_id", "rating", "games")) == incremental, "recompute != incremental"
    print(f"check: recompute equals the incremental result ({RatedGame.objects.count()} counted games, {PlayerGame.objects.count()} player-game rows)")


if __name__ == "__main__":
    main()
