"""Benchmark: tournament standings and the tournament workbook (issue 6), on a throwaway SQLite database.

A tournament of 50 participants, two stages of 10 rounds, five tables a
round: 100 random legal games (games.rules.simulate, stored with their result
rows), host's extra points on every third game. Figures, best and median of
several runs, wall time:

- standings from the result rows (3 queries + scoring + ranking): aim ≤ 50 ms;
  beside it, the same standings computed by replaying every game's log — the
  design the result rows avoid;
- rendering the live standings fragment (both languages: what one push costs);
- the tournament workbook (standings sheet + 100 protocol sheets) built and
  saved to memory: aim ≤ 1.5 s.

    .venv/bin/python benchmarks/standings.py [--repeat 5] [--players 50] [--rounds 10]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_tmp = tempfile.mkdtemp(prefix="standings-bench-")
os.environ["SQLITE_PATH"] = str(Path(_tmp) / "bench.sqlite3")
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_protocol.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-not-for-use-anywhere-else-0123456789")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from games import reading as game_reading  # noqa: E402
from games.rules import replay  # noqa: E402
from tests.tournaments.helpers import play_random, seated_tournament  # noqa: E402
from tournaments import live, services, standings  # noqa: E402
from tournaments.exports import tournament_workbook_bytes  # noqa: E402
from tournaments.models import Table  # noqa: E402


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return min(runs), statistics.median(runs)


def standings_by_replay(t: object) -> dict[str, int]:
    """The baseline: replay every game's log and count wins (no scoring detail even)."""
    wins: dict[str, int] = {}
    for table in Table.objects.filter(round__stage__tournament=t, game__isnull=False).select_related("game"):
        game = table.game
        assert game is not None
        state = replay(game.action_payloads(), game_reading.game_regulations(game))
        d = state.public_dict()
        if d["status"] != "finished":
            continue
        for seat, nick in enumerate(state.players or [], start=1):
            team = "black" if state.roles.get(seat) in ("don", "mafia") else "red"
            wins[nick] = wins.get(nick, 0) + int(d["winner"] == team)
    return wins


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=10, help="rounds per stage (two stages)")
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    User = get_user_model()
    organizer = User.objects.create_user(username="org", password="x" * 10)
    tables_n = args.players // 10
    hosts = [User.objects.create_user(username=f"host{i}", password="x" * 10) for i in range(1, tables_n + 1)]
    t0 = time.perf_counter()
    t = seated_tournament(organizer, hosts, players=args.players, rounds=args.rounds, stages=2, seed="bench")
    rng = random.Random(2026)
    n = 0
    for stage in t.stages.order_by("order"):
        for rnd in stage.rounds.order_by("number"):
            for table in services.round_start_games(round=rnd, by=organizer).started:
                game = play_random(table, rng)
                if n % 3 == 0:
                    services.extra_points_set(
                        game=game, seat_no=1 + n % 10, points="0.25", comment="bench", by=organizer
                    )
                n += 1
    build = time.perf_counter() - t0
    data = standings.compute(t)
    print(
        f"tournament: {args.players} participants, 2 stages × {args.rounds} rounds, {n} games ({data.games} finished, the rest annulled), built in {build:.1f} s"
    )

    with CaptureQueriesContext(connection) as ctx:
        standings.compute(t)
    best, med = timed(lambda: standings.compute(t), args.repeat)
    print(
        f"standings from result rows ({len(ctx.captured_queries)} queries): best {best * 1000:.1f} ms, median {med * 1000:.1f} ms  (aim ≤ 50 ms)"
    )
    rb, rm = timed(lambda: standings_by_replay(t), max(1, args.repeat // 2))
    print(
        f"baseline, replaying every game's log (wins only): best {rb * 1000:.0f} ms, median {rm * 1000:.0f} ms  → result rows are {rb / best:.0f}× faster"
    )
    fb, fm = timed(lambda: live.standings_fragments(t.pk), args.repeat)
    print(
        f"live push: standings + fragment in {len(live.standings_fragments(t.pk))} languages: best {fb * 1000:.1f} ms, median {fm * 1000:.1f} ms"
    )
    size = len(tournament_workbook_bytes(t))
    wb, wm = timed(lambda: tournament_workbook_bytes(t), args.repeat)
    print(
        f"tournament workbook (standings + {n} protocol sheets, {size / 1024:.0f} KiB): best {wb:.2f} s, median {wm:.2f} s  (aim ≤ 1.5 s)"
    )


if __name__ == "__main__":
    main()
