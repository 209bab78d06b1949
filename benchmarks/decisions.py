"""Benchmark: what one decision of the decision queue costs (issue 28), on a throwaway database.

A seat left «решить позже» in a finished, counted game is linked to a player
(players/decisions.py ``decide``): the link, the alias, the record, and the
incremental update of the stored statistics and ratings (players/book.py
``sync_game``) from that game on. Measured side by side in one run, as ratios:

- deciding a seat of the newest game (nothing after it to play again);
- deciding a seat of the game in the middle (half the games played again);
- deciding a seat of the first game (every game played again: the worst case);
- a full recompute (recompute_ratings), what a design without the
  incremental rows would run after each decision.

Each decision runs in a transaction rolled back afterwards, so every repeat
decides the same seat from the same state. The first run's result is checked
against a recompute (same numbers).

    .venv/bin/python benchmarks/decisions.py [--games 2000] [--players 500] [--repeat 5]
    DATABASE_URL=postgres://... .venv/bin/python benchmarks/decisions.py ...   (a test database is created and dropped)
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

_tmp = tempfile.mkdtemp(prefix="decisions-bench-")
if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
    os.environ.pop("DATABASE_URL", None)
    os.environ["SQLITE_PATH"] = str(Path(_tmp) / "bench.sqlite3")
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_protocol.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-not-for-use-anywhere-else-0123456789")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import get_runner, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from benchmarks.finished_game import store_finished_game  # noqa: E402
from games.models import GameSeat  # noqa: E402
from games.rules import GameState, Regulations, replay  # noqa: E402
from games.rules.simulate import random_game  # noqa: E402
from players import book, decisions  # noqa: E402
from players.models import Player, PlayerStats  # noqa: E402


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, float]:
    """Best and median wall time, and the best run's process CPU time."""
    runs, cpus = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(runs), statistics.median(runs), min(cpus)


def finished_states(n: int, rng: random.Random) -> list[GameState]:
    out: list[GameState] = []
    while len(out) < n:
        state = replay(random_game(rng), Regulations())
        if state.status == "finished":
            out.append(state)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=500)
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
    rng = random.Random(28)
    states = finished_states(200, rng)
    host = get_user_model().objects.create_user(username="bench-host", password="x" * 12)
    Player.objects.bulk_create(
        [Player(nickname=f"P{i:05d}", key=f"р{i:05d}") for i in range(args.players)], batch_size=5000
    )
    pids = list(Player.objects.order_by("pk").values_list("pk", flat=True))
    start = timezone.now() - timedelta(days=365)
    positions = {"first": 0, "middle": args.games // 2, "newest": args.games - 1}
    pending: dict[str, tuple[int, int]] = {}  # where -> (seat pk, the player it is)
    from games.signals import results_changed

    results_changed.disconnect(dispatch_uid="players.book.on_results_changed")
    results_changed.disconnect(dispatch_uid="players.discipline.on_results_changed")
    with transaction.atomic():
        for g in range(args.games):
            seated: list[int | None] = list(rng.sample(pids, 10))
            names = [f"P{p:05d}" for p in seated]
            where = next((w for w, pos in positions.items() if pos == g), None)
            if where is not None:
                names[9] = f"{names[9]}-typo"  # left «решить позже»: linked to nobody
                real, seated[9] = seated[9], None
            game = store_finished_game(
                host, states[g % len(states)].copy(), names, seated, start + timedelta(minutes=g)
            )
            if where is not None:
                pending[where] = (GameSeat.objects.get(game=game, seat_no=10).pk, real)  # type: ignore[assignment]
    results_changed.connect(book.on_results_changed, dispatch_uid="players.book.on_results_changed")
    book.recompute()
    print(
        f"{connection.vendor}: {args.games} finished counted games among {args.players} players; one seat left undecided in the first, the middle and the newest game"
    )

    def decide(where: str) -> Callable[[], None]:
        seat_pk, player_pk = pending[where]

        def once() -> None:
            with transaction.atomic():
                decisions.decide(kind="seat", pk=seat_pk, player=Player.objects.get(pk=player_pk))
                transaction.set_rollback(True)

        return once

    rb, rm, rc = timed(book.recompute, max(1, min(3, args.repeat)))
    figures = {}
    for where in ("newest", "middle", "first"):
        figures[where] = timed(decide(where), args.repeat)
    print(
        f"full recompute (what each decision would cost without incremental rows): best {rb * 1000:.0f} ms, median {rm * 1000:.0f} ms [cpu {rc * 1000:.0f} ms]"
    )
    for where, (b, m, c) in figures.items():
        later = args.games - 1 - positions[where]
        print(
            f"decision on a seat of the {where} game ({later} later games played again): best {b * 1000:.1f} ms, median {m * 1000:.1f} ms [cpu {c * 1000:.1f} ms] — recompute ÷ decision = {rm / m:.1f}×"
        )
    # Same numbers as a recompute.
    seat_pk, player_pk = pending["middle"]
    decisions.decide(kind="seat", pk=seat_pk, player=Player.objects.get(pk=player_pk))
    after = sorted(PlayerStats.objects.values_list("player_id", "rating", "games", "rated_games"))
    book.recompute()
    assert sorted(PlayerStats.objects.values_list("player_id", "rating", "games", "rated_games")) == after, (
        "decision != recompute"
    )
    print("check: after a decision the stored totals equal a recompute")


if __name__ == "__main__":
    main()
