"""Benchmark: the seating generator (tournaments/seating.py) against random seating.

For several fields (P participants, R rounds, tables of ten) the generator and
two baselines are measured side by side, averaged over a few seeds:

- "random": every round a fresh shuffle, the first 10·T players sit (sit-outs
  at random too);
- "random+": the same, but the sit-outs rotate like the generator's, so only
  tables and seats are random — it isolates what the table and seat
  optimisation brings.

Columns: games per player (min..max), the most times anyone sat on one seat
(and the ideal, ceil(games/10)), seat excess (Σ over players and seats of the
sittings above that ideal; 0 = perfect), repeated pairs (Σ over pairs of
max(0, games together − 1)), the most games any two players shared, Σ m²
over pairs (m = games together; lower = meetings spread more evenly), and the
generator's run time. A second table seats a second stage with the first as
history (seat spread over the whole tournament).

    .venv/bin/python benchmarks/seating.py [--seeds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.seating import Schedule, generate, measure, random_schedule  # noqa: E402

FIELDS = [(10, 10), (20, 10), (23, 7), (30, 10), (37, 9), (50, 8), (100, 10), (200, 12)]


def pair_squares(rounds: list[list[list[int]]]) -> int:
    pairs: Counter[tuple[int, int]] = Counter()
    for rnd in rounds:
        for t in rnd:
            for i, a in enumerate(t):
                for b in t[i + 1 :]:
                    pairs[(a, b) if a < b else (b, a)] += 1
    return sum(c * c for c in pairs.values())


def row(label: str, scheds: list[Schedule], seconds: float | None) -> str:
    qs = [s.quality() for s in scheds]
    gmin = min(q.games_min for q in qs)
    gmax = max(q.games_max for q in qs)
    seat_max = max(q.seat_max for q in qs)
    ideal = max(q.seat_ideal for q in qs)
    excess = statistics.mean(q.seat_excess for q in qs)
    rep = statistics.mean(q.pairs_repeated for q in qs)
    pmax = max(q.pair_max for q in qs)
    sq = statistics.mean(pair_squares(s.rounds) for s in scheds)
    opp = statistics.mean(q.opponents_mean for q in qs)
    t = f"{seconds * 1000:8.0f}" if seconds is not None else " " * 8
    return f"  {label:<9} {gmin:>3}..{gmax:<3} {seat_max:>4} ({ideal}) {excess:>8.1f} {rep:>9.1f} {pmax:>5} {sq:>9.0f} {opp:>7.1f} {t}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    seeds = [f"bench-{i}" for i in range(args.seeds)]
    print(f"averages over {len(seeds)} seeds")
    print(
        f"  {'':<9} {'games':>8} {'seat max':>8} {'excess':>8} {'rep.pairs':>9} {'pmax':>5} {'Σm²':>9} {'opp.':>7} {'ms':>8}"
    )
    for p, r in FIELDS:
        players = list(range(p))
        print(f"P={p}, R={r} ({p // 10} tables a round)")
        t0 = time.perf_counter()
        ours = [generate(players, r, seed=s) for s in seeds]
        elapsed = (time.perf_counter() - t0) / len(seeds)
        print(row("generator", ours, elapsed))
        print(row("random", [random_schedule(players, r, seed=s) for s in seeds], None))
        print(row("random+", [random_schedule(players, r, seed=s, balance_games=True) for s in seeds], None))
    print()
    print("two stages: the second seated with the first as history (seat excess over the whole tournament)")
    for p, r1, r2 in [(20, 5, 5), (30, 4, 6), (50, 6, 6), (100, 5, 5)]:
        players = list(range(p))
        ex_hist, ex_blind, ex_rand = [], [], []
        for s in seeds:
            first = generate(players, r1, seed=s + "a")
            history = [t for rnd in first.rounds for t in rnd]
            ex_hist.append(
                measure(players, first.rounds + generate(players, r2, seed=s + "b", history=history).rounds).seat_excess
            )
            ex_blind.append(measure(players, first.rounds + generate(players, r2, seed=s + "b").rounds).seat_excess)
            ex_rand.append(
                measure(
                    players, first.rounds + random_schedule(players, r2, seed=s + "b", balance_games=True).rounds
                ).seat_excess
            )
        print(
            f"  P={p}, {r1}+{r2} rounds: with history {statistics.mean(ex_hist):.1f}, second stage blind {statistics.mean(ex_blind):.1f}, second stage random {statistics.mean(ex_rand):.1f}"
        )
    print()
    print("quality as the stage page prints it (P=37, R=9):")
    print("  " + "\n  ".join(generate(list(range(37)), 9, seed="bench-0").quality().lines()))


if __name__ == "__main__":
    main()
