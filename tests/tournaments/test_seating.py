"""Seating generator: properties over many P and R, determinism, and random seating as the baseline."""

import math
from collections import Counter

import pytest

from tournaments.seating import SeatingError, generate, measure, random_schedule

CASES = [(p, r) for p in (10, 11, 15, 19, 20, 23, 30, 37, 40, 55) for r in (1, 3, 7, 10, 12)]


def _pair_squares(sched):
    pairs = Counter()
    for rnd in sched.rounds:
        for t in rnd:
            for i, a in enumerate(t):
                for b in t[i + 1 :]:
                    pairs[frozenset((a, b))] += 1
    return sum(c * c for c in pairs.values())


def _check_structure(sched, players, rounds):
    assert len(sched.rounds) == rounds
    for tables, out in zip(sched.rounds, sched.sitting_out, strict=True):
        assert len(tables) == len(players) // 10
        seated = [k for t in tables for k in t]
        assert all(len(t) == 10 for t in tables)
        assert len(set(seated)) == len(seated)  # nobody twice in a round
        assert sorted(seated + list(out)) == sorted(players)


@pytest.mark.parametrize(("p", "r"), CASES)
def test_equal_games_and_perfect_seat_spread(p, r):
    players = list(range(p))
    sched = generate(players, r, seed=f"{p}-{r}")
    _check_structure(sched, players, r)
    q = sched.quality()
    total = 10 * (p // 10) * r
    # Everyone plays the same number of games, or as close as P allows.
    assert q.games_min == total // p
    assert q.games_max == math.ceil(total / p)
    # Seats spread: nobody sits on a seat more than ceil(games / 10) times.
    assert q.seat_excess == 0
    games = Counter(k for rnd in sched.rounds for t in rnd for k in t)
    for k in games:
        seats = Counter(t.index(k) for rnd in sched.rounds for t in rnd if k in t)
        assert max(seats.values()) <= math.ceil(games[k] / 10)


@pytest.mark.parametrize(("p", "r"), [(20, 10), (30, 10), (37, 9), (50, 8), (80, 6)])
def test_fewer_repeated_pairs_than_random(p, r):
    players = list(range(p))
    ours = [generate(players, r, seed=str(s)).quality() for s in range(3)]
    rand = [random_schedule(players, r, seed=str(s), balance_games=True).quality() for s in range(3)]
    assert max(q.pair_max for q in ours) <= min(q.pair_max for q in rand)
    assert (
        sum(q.pairs_repeated for q in ours) <= sum(q.pairs_repeated for q in rand) + 3
    )  # equal when every pair meets anyway (P=20)
    # Meetings spread evenly: Σ m² over pairs (m = games together) is lower.
    assert sum(_pair_squares(generate(players, r, seed=str(s))) for s in range(3)) < sum(
        _pair_squares(random_schedule(players, r, seed=str(s), balance_games=True)) for s in range(3)
    )
    assert sum(q.opponents_mean for q in ours) >= sum(q.opponents_mean for q in rand) - 0.5  # saturated at P=20
    assert sum(q.seat_excess for q in ours) < sum(q.seat_excess for q in rand)


def test_large_field_hardly_meets_anyone_twice():
    # 100 players, 3 rounds: 27 opponents each out of 99, room for no repeat at all.
    q = generate(list(range(100)), 3, seed="x").quality()
    r = random_schedule(list(range(100)), 3, seed="x").quality()
    assert q.pairs_repeated <= 4 < r.pairs_repeated and q.pair_max <= 2


def test_deterministic_from_seed():
    a = generate(list(range(37)), 6, seed="abc")
    b = generate(list(range(37)), 6, seed="abc")
    c = generate(list(range(37)), 6, seed="abd")
    assert a.rounds == b.rounds and a.sitting_out == b.sitting_out
    assert a.rounds != c.rounds


def test_history_is_balanced_against():
    # A second stage seated with the first as history: seats spread over the
    # tournament far better than a second stage seated blind; opponents too.
    players = list(range(30))
    first = generate(players, 4, seed="s1")
    history = [t for rnd in first.rounds for t in rnd]
    second = generate(players, 6, seed="s2", history=history)
    blind = generate(players, 6, seed="s2")
    both = measure(players, first.rounds + second.rounds)
    both_blind = measure(players, first.rounds + blind.rounds)
    assert both.seat_excess * 3 <= both_blind.seat_excess
    assert both.pairs_repeated <= both_blind.pairs_repeated
    assert measure(players, second.rounds).seat_excess == 0  # the stage itself stays perfect


def test_quality_lines_print():
    text = str(generate(list(range(25)), 4, seed="q").quality())
    assert "games per player: 3..4" in text and "seat spread" in text and "repeats" in text


def test_refusals():
    with pytest.raises(SeatingError):
        generate(list(range(9)), 3, seed="x")
    with pytest.raises(SeatingError):
        generate([1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3, seed="x")
    with pytest.raises(SeatingError):
        generate(list(range(10)), 0, seed="x")


def test_pair_history_from_elsewhere_splits_players_who_often_met():
    """Players 0..9 played together often elsewhere (another tournament): with that
    pair history they are spread over both tables; seats and sit-outs ignore it."""
    players = list(range(20))
    often = {(a, b): 5 for a in range(10) for b in range(a + 1, 10)}
    often[(3, 99)] = 7  # a player not in this field: ignored

    def worst(schedule):
        return max(sum(1 for k in table if k < 10) for rnd in schedule.rounds for table in rnd)

    seeds = ("ab", "cd", "ef", "gh", "ph")
    blind = [generate(players, 1, seed=s) for s in seeds]
    aware = [generate(players, 1, seed=s, pair_history=often) for s in seeds]
    assert max(worst(b) for b in blind) > 5  # blind, some seeds put 6 or 7 of them at one table
    assert [worst(a) for a in aware] == [5] * len(seeds)
    aware = aware[0]
    assert measure(players, aware.rounds).seat_excess == 0
    assert aware.quality().as_dict() == measure(players, aware.rounds).as_dict()
