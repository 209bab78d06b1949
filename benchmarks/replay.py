"""Benchmark: replaying a complete game through the pure rules engine.

Engine part: the time to replay a complete ~300-action game (best of N runs),
printed as µs per action and ms per game; also the shared example logs.
Target (DESIGN/brief): ≤ 2 ms for a ~300-action game (≈ 7 µs per action).

Service part: the same game recorded action by action through
``games.services.game_record_action`` on a fresh SQLite file (WAL, the
embedded default): p50 / p99 / max per recorded action. Target p50 ≤ 10 ms.

    .venv/bin/python benchmarks/replay.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.rules import replay  # noqa: E402
from games.rules.simulate import DEFAULT_WEIGHTS, random_game  # noqa: E402

SHARED = Path(os.environ.get("SHARED_DIR", ROOT.parent / "shared"))

# A host's real protocol carries many small actions (fouls, grey cards, winks,
# technical pauses) besides the steps; this profile pads a random game with
# them until it is about 300 actions long.
LONG_GAME_WEIGHTS = dict(
    DEFAULT_WEIGHTS,
    foul=1.5,
    wink=1.5,
    tech_pause=1,
    grey_card=45,
    nominate=12,
    disqualify=0.01,
    remove=0.005,
    warning=0.05,
    ppk=0,
    annul=0,
)


def long_game(target: int = 300) -> list[dict]:
    """The deterministic complete game whose length is nearest to ``target``."""
    best: list[dict] = []
    for seed in range(200):
        log = random_game(seed, weights=LONG_GAME_WEIGHTS, hit=0.85)
        if abs(len(log) - target) < abs(len(best) - target):
            best = log
        if abs(len(best) - target) <= 5:
            break
    return best


def best_of(actions: list[dict], runs: int) -> float:
    """Best wall time of `runs` replays, in seconds."""
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        replay(actions)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()

    game = long_game()
    state = replay(game)
    assert state.status in ("finished", "annulled"), "the benchmark game must be complete"
    t = best_of(game, args.runs)
    print(f"engine: complete game of {len(game)} actions ({state.status}, winner {state.winner}), best of {args.runs}:")
    print(
        f"  {t * 1e6 / len(game):.2f} µs per action, {t * 1e3:.3f} ms per game, {t * 1e3 * 300 / len(game):.3f} ms per 300 actions"
    )

    examples = sorted((SHARED / "protocol-log" / "examples").rglob("*.json"))
    if examples:
        total_actions = 0
        total_time = 0.0
        for path in examples:
            actions = [
                a
                for a in json.loads(path.read_text(encoding="utf-8"))["actions"]
                if a.get("do") != "expect" and not a.get("reject")
            ]
            total_actions += len(actions)
            total_time += best_of(actions, args.runs)
        print(
            f"engine: {len(examples)} example logs, {total_actions} actions: {total_time * 1e6 / total_actions:.2f} µs per action"
        )


def service_figures(game: list[dict]) -> None:
    """Record `game` through the service on a throw-away SQLite database."""
    import tempfile

    tmp = tempfile.mkdtemp(prefix="bench-replay-")
    os.environ["SQLITE_PATH"] = str(Path(tmp) / "bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_protocol.settings")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from games import reading, services
    from games import reading as game_reading

    call_command("migrate", verbosity=0)
    host = get_user_model().objects.create_user("bench", password="bench-pass")
    record = services.game_create(host=host)
    times = []
    for action in game:
        t0 = time.perf_counter()
        services.game_record_action(game=record, action=action, expected_seq=record.seq, by=host)
        times.append(time.perf_counter() - t0)
    times.sort()
    p = lambda q: times[min(len(times) - 1, int(q * len(times)))] * 1e3  # noqa: E731
    print(f"service: {len(times)} actions recorded through game_record_action on SQLite (WAL):")
    print(
        f"  p50 {p(0.50):.2f} ms, p99 {p(0.99):.2f} ms, max {times[-1] * 1e3:.2f} ms (the last ones replay ~{len(game)} actions)"
    )
    t0 = time.perf_counter()
    game_reading.game_state(record)
    cached = time.perf_counter() - t0
    reading.clear_cache()  # a worker that has not seen the game yet
    t0 = time.perf_counter()
    game_reading.game_state(record)
    cold = time.perf_counter() - t0
    print(
        f"  the game's state: loading + replaying the stored log {cold * 1e3:.2f} ms; from the per-process cache {cached * 1e3:.3f} ms"
    )
    print(
        "  (each recorded action also renders and publishes the live-board frames after the commit: benchmarks/host_actions.py splits the parts)"
    )


if __name__ == "__main__":
    main()
    service_figures(long_game())
