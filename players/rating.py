"""The rating: Elo for team games (pure: no Django).

Formula (shown to players on the «Как считается рейтинг» page):

- Every player starts at ``initial`` (1500).
- A *counted* game is a finished tournament game or a finished game its host
  marked rated; an annulled game never counts.
- The red side's *base rate* ``p`` is its score share over all counted games
  before this one (a win 1, a draw 0.5, a loss 0), with one pseudo-win and one
  pseudo-loss so it starts at 0.5: ``p = (red_score + 1) / (games + 2)``,
  kept within [0.05, 0.95]. Red and black do not win equally often; ``p``
  turns that into a handicap of ``400·log10(p / (1 − p))`` rating points.
- ``R_red`` and ``R_black`` are the mean ratings of the two teams (7 and 3
  players) before the game. The red expected score is
  ``E_red = 1 / (1 + 10^((R_black − R_red − handicap) / 400))``, black's is
  ``1 − E_red``; with equal teams red is expected to score exactly ``p``.
- The actual score ``S``: the winning team 1, the losing 0, a draw 0.5 each;
  a team that gets ППК (W5) loses (0), whatever else happened.
- Every player of a team gets ``K · (S − E)`` for his team (K is a setting,
  20 by default): a red player and a black player of the same game move by
  the same amount in opposite directions.

Everything here is a function of the ordered list of counted games, so a
rebuild from the games in end order gives exactly the incremental result.

How sure a rating is: a player's first games move him from 1500 towards where
he belongs, so a rating from few games says little. Below
``PROVISIONAL_GAMES`` counted games it is *provisional* (marked, and left out
of the main table by default), and ``uncertainty(n)`` is the typical distance
between a rating after n counted games and the player's true strength — the
band on his chart. Both were measured, not guessed: benchmarks/ratings.py
plays 100,000 games among 4,000 simulated players with known strengths
(spread 150 points) and prints that distance by games played; UNCERTAINTY
below is its output (K = 20).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

RED = "red"
BLACK = "black"


@dataclass(frozen=True)
class RatingSettings:
    k: float = 20.0
    initial: float = 1500.0
    min_base: float = 0.05
    max_base: float = 0.95


# Root-mean-square distance (rating points) between a rating after n counted
# games and the player's true strength, measured by benchmarks/ratings.py
# (the settle table it prints first: 200,000 simulated games, 2,000 players,
# strengths spread 150, K = 20). It starts at the spread of strengths (everybody
# at 1500) and settles near 97 after ~300 games: with K = 20 and teams of ten one
# game says little about one player. Between the measured n it is interpolated;
# past the last one it stays.
UNCERTAINTY: tuple[tuple[int, float], ...] = (
    (0, 151.0), (5, 148.0), (10, 146.0), (20, 141.0), (30, 136.0), (50, 127.0),
    (75, 120.0), (100, 115.0), (150, 109.0), (200, 103.0), (300, 98.0),
)  # fmt: skip

# Counted games below which a rating is provisional: where the typical error has
# come halfway from its start (151) to where it settles (97), i.e. ~124 — between
# the measured 50 (127) and 75 (120) games. A club with a few games a month may
# lower it (setting PLAYERS_PROVISIONAL_GAMES).
PROVISIONAL_GAMES = 60


def uncertainty(games: int) -> float:
    """The typical error of a rating after this many counted games (the chart's band)."""
    table = UNCERTAINTY
    if games <= table[0][0]:
        return table[0][1]
    for (n0, e0), (n1, e1) in zip(table, table[1:], strict=False):
        if games <= n1:
            return e0 + (e1 - e0) * (games - n0) / (n1 - n0)
    return table[-1][1]


@dataclass(frozen=True)
class SideTotals:
    """The counted games so far: how many, and the red side's total score."""

    games: int = 0
    red_score: float = 0.0

    def plus(self, red_score: float) -> SideTotals:
        return SideTotals(self.games + 1, self.red_score + red_score)


def red_base_rate(totals: SideTotals, settings: RatingSettings = RatingSettings()) -> float:
    p = (totals.red_score + 1.0) / (totals.games + 2.0)
    return min(settings.max_base, max(settings.min_base, p))


def handicap(base_rate: float) -> float:
    """The red side's advantage in rating points that makes equal teams expect `base_rate`."""
    return 400.0 * math.log10(base_rate / (1.0 - base_rate))


def expected_red(red_mean: float, black_mean: float, base_rate: float) -> float:
    exponent: float = (black_mean - red_mean - handicap(base_rate)) / 400.0
    return 1.0 / (1.0 + math.pow(10.0, exponent))


def red_score(winner: str, ppk: str = "") -> float:
    """The red side's score: 1 win, 0.5 draw, 0 loss; ППК is a loss of the offending team (W5)."""
    if ppk == RED:
        return 0.0
    if ppk == BLACK:
        return 1.0
    return {RED: 1.0, BLACK: 0.0}.get(winner, 0.5)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


@dataclass(frozen=True)
class GameRating:
    base_rate: float
    red_mean: float
    black_mean: float
    expected_red: float
    red_score: float
    red_delta: float

    @property
    def black_delta(self) -> float:
        return -self.red_delta

    def delta(self, team: str) -> float:
        return self.red_delta if team == RED else -self.red_delta


def rate_game(
    red: Sequence[float],
    black: Sequence[float],
    score: float,
    totals: SideTotals,
    settings: RatingSettings = RatingSettings(),
) -> GameRating:
    """The change of one counted game, from the teams' ratings before it."""
    base = red_base_rate(totals, settings)
    red_mean, black_mean = mean(red), mean(black)
    e = expected_red(red_mean, black_mean, base)
    return GameRating(base, red_mean, black_mean, e, score, settings.k * (score - e))


@dataclass(frozen=True)
class CountedGame:
    """One counted game for a rebuild: who sat on which side (None = an unlinked seat)."""

    key: object
    teams: dict[str, list[int | None]]  # red / black -> player ids
    winner: str
    ppk: str = ""


@dataclass
class Book:
    """Ratings of everybody after a sequence of counted games (used by the rebuild)."""

    settings: RatingSettings = field(default_factory=RatingSettings)
    ratings: dict[int, float] = field(default_factory=dict)
    totals: SideTotals = field(default_factory=SideTotals)

    def rating(self, player_id: int | None) -> float:
        return self.settings.initial if player_id is None else self.ratings.get(player_id, self.settings.initial)

    def play(self, game: CountedGame) -> tuple[GameRating, SideTotals]:
        """Apply one game; returns its rating and the totals after it."""
        # ``rating`` and ``GameRating.delta`` spelled out inline: a rebuild plays
        # a hundred thousand games, and a call per seat was most of its cost.
        ratings, initial = self.ratings, self.settings.initial
        red_ids, black_ids = game.teams.get(RED, ()), game.teams.get(BLACK, ())
        red = [initial if p is None else ratings.get(p, initial) for p in red_ids]
        black = [initial if p is None else ratings.get(p, initial) for p in black_ids]
        score = red_score(game.winner, game.ppk)
        result = rate_game(red, black, score, self.totals, self.settings)
        for ids, delta in ((red_ids, result.red_delta), (black_ids, result.black_delta)):
            for p in ids:
                if p is not None:
                    ratings[p] = ratings.get(p, initial) + delta
        self.totals = self.totals.plus(score)
        return result, self.totals

    def play_all(self, games: Iterable[CountedGame]) -> list[GameRating]:
        return [self.play(g)[0] for g in games]
