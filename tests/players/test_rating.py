"""The rating formula (players/rating.py, pure) against numbers worked out by hand.

Three counted games, K = 20, everybody from 1500; players 1–10.

Game 1: red = 1..7, black = 8..10, red wins. No game before: p = (0 + 1) / (0 + 2)
= 0.5, handicap 0, equal means: E_red = 0.5; red gets 20 · (1 − 0.5) = +10.
→ 1..7: 1510, 8..10: 1490.

Game 2: same teams, black wins. p = (1 + 1) / (1 + 2) = 2/3; handicap =
400 · log10(2) = 120.41199826559247. E_red = 1 / (1 + 10^((1490 − 1510 − 120.412) / 400))
= 1 / (1 + 10^−0.351030) = 1 / 1.445645 = 0.6917421015316528; red gets
20 · (0 − 0.69174) = −13.834842030633057. → reds 1496.1651579693669, blacks 1503.8348420306331.

Game 3: red = 4..10 (4–7 at 1496.165…, 8–10 at 1503.834…), black = 1..3 (1496.165…),
a draw. p = (1 + 1) / (2 + 2) = 0.5. Red mean = (4 · 1496.1651579693669 + 3 · 1503.8348420306331) / 7
= 1499.4521654241955; E_red = 1 / (1 + 10^((1496.1651579693669 − 1499.4521654241955) / 400))
= 0.5047302428510448; red gets 20 · (0.5 − 0.50473) = −0.09460485702089683.
"""

import pytest

from players.rating import (
    BLACK,
    RED,
    Book,
    CountedGame,
    RatingSettings,
    SideTotals,
    expected_red,
    handicap,
    red_base_rate,
    red_score,
)

A = pytest.approx


def game(key, red, black, winner, ppk=""):
    return CountedGame(key, {RED: list(red), BLACK: list(black)}, winner, ppk)


def test_hand_computed_sequence():
    book = Book(RatingSettings(k=20.0, initial=1500.0))
    g1, g2, g3 = book.play_all(
        [
            game(1, range(1, 8), range(8, 11), "red"),
            game(2, range(1, 8), range(8, 11), "black"),
            game(3, range(4, 11), range(1, 4), "draw"),
        ]
    )
    assert (g1.base_rate, g1.expected_red, g1.red_delta) == (0.5, 0.5, 10.0)
    assert g2.base_rate == A(2 / 3)
    assert g2.expected_red == A(0.6917421015316528, abs=1e-12)
    assert g2.red_delta == A(-13.834842030633057, abs=1e-9)
    assert g3.base_rate == 0.5
    assert g3.red_mean == A(1499.4521654241955, abs=1e-9)
    assert g3.expected_red == A(0.5047302428510448, abs=1e-12)
    assert g3.red_delta == A(-0.09460485702089683, abs=1e-9)
    r = book.ratings
    assert r[1] == A(1496.1651579693669 - 0.09460485702089683 * -1, abs=1e-9)  # black in game 3: −Δ_red
    assert r[4] == A(1496.1651579693669 - 0.09460485702089683, abs=1e-9)
    assert r[8] == A(1503.8348420306331 - 0.09460485702089683, abs=1e-9)
    assert book.totals == SideTotals(3, 1.5)


def test_equal_teams_expect_the_side_base_rate():
    # After 8 counted games in which red scored 6: p = 7/10.
    p = red_base_rate(SideTotals(8, 6.0))
    assert p == A(0.7)
    assert expected_red(1500, 1500, p) == A(0.7)
    assert handicap(0.5) == 0.0


def test_base_rate_is_clamped():
    assert red_base_rate(SideTotals(1000, 1000.0)) == 0.95
    assert red_base_rate(SideTotals(1000, 0.0)) == 0.05


def test_ppk_is_a_loss_of_the_offending_team_and_draw_half():
    assert red_score("black", ppk="red") == 0.0
    assert red_score("red", ppk="black") == 1.0
    assert red_score("draw") == 0.5
    assert red_score("red") == 1.0 and red_score("black") == 0.0


def test_unlinked_seats_count_at_the_initial_rating():
    book = Book(RatingSettings(k=20.0, initial=1500.0))
    book.ratings[1] = 1600.0
    result, _ = book.play(game(1, [1, None, None, None, None, None, None], [None, None, None], "red"))
    assert result.red_mean == A((1600 + 6 * 1500) / 7)
    assert None not in book.ratings


def test_k_is_a_setting():
    book = Book(RatingSettings(k=40.0))
    (g,) = book.play_all([game(1, range(1, 8), range(8, 11), "red")])
    assert g.red_delta == 20.0 and book.ratings[1] == 1520.0 and book.ratings[9] == 1480.0
