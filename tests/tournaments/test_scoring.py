"""Scoring policy and seat points (pure; RULES.md N6–N11, F15, W5, X2)."""

from decimal import Decimal

import pytest

from tournaments.scoring import PRESETS, Line, ScoringPolicy, preset, score_lines


def line(
    game_id, seat_no=1, *, player="A", stage=1, order=None, team="red", role="civilian", won=False, winner="black", **kw
):
    return Line(
        game_id=game_id,
        seat_no=seat_no,
        player=player,
        stage=stage,
        order=order or (stage, game_id),
        role=role,
        team=team,
        won=won,
        winner=winner,
        **kw,
    )


def test_win_loss_draw_points():
    p = ScoringPolicy(win=Decimal(1), loss=Decimal("0.1"), draw=Decimal("0.4"))
    s = score_lines([line(1, won=True, winner="red"), line(2), line(3, winner="draw")], p)
    assert [s[(g, 1)].total for g in (1, 2, 3)] == [Decimal(1), Decimal("0.1"), Decimal("0.4")]


def test_n11_ci_progression_per_player():
    p = ScoringPolicy()  # first 0.5, step 0.5
    lines = [line(g, first_night_victim=True) for g in (1, 2, 3)] + [line(4, player="B", first_night_victim=True)]
    s = score_lines(lines, p)
    assert [s[(g, 1)].ci for g in (1, 2, 3)] == [Decimal("0.5"), Decimal("1.0"), Decimal("1.5")]
    assert s[(4, 1)].ci == Decimal("0.5")  # counted per player
    assert [s[(g, 1)].ci_count for g in (1, 2, 3)] == [1, 2, 3]


def test_n11_ci_counts_in_tournament_order_not_input_order():
    lines = [line(1, order=(1, 3), first_night_victim=True), line(2, order=(1, 1), first_night_victim=True)]
    s = score_lines(lines, ScoringPolicy())
    assert s[(2, 1)].ci == Decimal("0.5") and s[(1, 1)].ci == Decimal("1.0")


def test_n11_ci_resets_per_stage():
    lines = [
        line(1, stage=1, first_night_victim=True),
        line(2, stage=1, first_night_victim=True),
        line(3, stage=2, first_night_victim=True),
    ]
    s = score_lines(lines, ScoringPolicy())
    assert s[(2, 1)].ci == Decimal("1.0")
    assert s[(3, 1)].ci == Decimal("0.5")


def test_n11_ci_first_and_step_are_settings():
    p = ScoringPolicy(ci_first=Decimal("0.3"), ci_step=Decimal("0.2"))
    s = score_lines([line(g, first_night_victim=True) for g in (1, 2, 3)], p)
    assert [s[(g, 1)].ci for g in (1, 2, 3)] == [Decimal("0.3"), Decimal("0.5"), Decimal("0.7")]
    assert score_lines([line(1, first_night_victim=True)], ScoringPolicy(ci_enabled=False))[(1, 1)].ci == 0


def test_n10_black_n1_victim_gets_neither_ci_nor_best_move_points():
    lines = [line(1, team="black", role="mafia", first_night_victim=True, best_move_accepted=True, best_move_blacks=2)]
    s = score_lines(lines, ScoringPolicy())[(1, 1)]
    assert s.ci == 0 and s.best_move == 0 and s.total == 0


def test_n11_every_n1_shot_advances_the_count_by_default():
    # RULES N11 INTERP: the text counts every N1 shot of the player, whatever
    # his team; the black shot itself gets no Ci (N10).
    lines = [line(1, team="black", role="don", first_night_victim=True), line(2, first_night_victim=True)]
    s = score_lines(lines, ScoringPolicy())
    assert s[(1, 1)].ci == 0
    assert s[(2, 1)].ci == Decimal("1.0") and s[(2, 1)].ci_count == 2
    assert score_lines(lines, ScoringPolicy(ci_red_shots_only=True))[(2, 1)].ci == Decimal("0.5")


def _issue9_lines():
    """Red, black, red in N1 of stage 1, then red in N1 of stage 2."""
    return [
        line(1, stage=1, first_night_victim=True),
        line(2, stage=1, team="black", role="mafia", first_night_victim=True),
        line(3, stage=1, first_night_victim=True),
        line(4, stage=2, first_night_victim=True),
    ]


def test_n11_red_black_red_then_next_stage_literal_default():
    s = score_lines(_issue9_lines(), ScoringPolicy())
    assert [s[(g, 1)].ci for g in (1, 2, 3, 4)] == [Decimal("0.5"), 0, Decimal("1.5"), Decimal("0.5")]


def test_n11_red_black_red_then_next_stage_red_only_setting():
    s = score_lines(_issue9_lines(), ScoringPolicy(ci_red_shots_only=True))
    assert [s[(g, 1)].ci for g in (1, 2, 3, 4)] == [Decimal("0.5"), 0, Decimal("1.0"), Decimal("0.5")]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_n11_every_preset_counts_every_n1_shot(name):
    assert PRESETS[name]["ci_red_shots_only"] is False
    assert preset(name).ci_red_shots_only is False
    assert "ci_counts_black_shots" not in PRESETS[name]


@pytest.mark.parametrize(
    ("stored", "red_only"),
    [
        ({"schema": 1, "ci_counts_black_shots": False}, True),  # the old default: red shots only
        ({"schema": 1, "ci_counts_black_shots": True}, False),
        ({"schema": 1, "win": 1}, True),  # schema 1 without the key: its default then (off)
        ({"schema": 2, "ci_red_shots_only": True}, True),
        ({"schema": 2, "ci_red_shots_only": False}, False),
        ({"win": 2}, False),  # a partial dict of today: today's default
    ],
)
def test_n11_stored_policies_keep_what_they_meant(stored, red_only):
    assert ScoringPolicy.from_dict(stored).ci_red_shots_only is red_only


def test_n11_policy_dict_round_trip_and_bad_value():
    p = ScoringPolicy(ci_red_shots_only=True)
    d = p.to_dict()
    assert d["schema"] == 2 and d["ci_red_shots_only"] is True and "ci_counts_black_shots" not in d
    assert ScoringPolicy.from_dict(d) == p
    with pytest.raises(ValueError):
        ScoringPolicy.from_dict({"schema": 1, "ci_counts_black_shots": "yes"})
    with pytest.raises(ValueError):
        ScoringPolicy.from_dict({"ci_red_shots_only": 1})


def test_n10_ci_whatever_the_best_move():
    lines = [
        line(1, first_night_victim=True, best_move_accepted=False),
        line(2, first_night_victim=True, best_move_accepted=True, best_move_blacks=0),
    ]
    s = score_lines(lines, ScoringPolicy())
    assert s[(1, 1)].ci == Decimal("0.5") and s[(2, 1)].ci == Decimal("1.0")


@pytest.mark.parametrize(("blacks", "points"), [(0, "0"), (1, "0"), (2, "0.25"), (3, "0.5")])
def test_n6_best_move_points_by_blacks_for_red_n1_victim(blacks, points):
    s = score_lines(
        [line(1, first_night_victim=True, best_move_accepted=True, best_move_blacks=blacks)], ScoringPolicy()
    )[(1, 1)]
    assert s.best_move == Decimal(points)


def test_best_move_points_only_for_the_n1_victim_and_accepted():
    lines = [
        line(1, first_night_victim=False, best_move_accepted=True, best_move_blacks=3),
        line(2, first_night_victim=True, best_move_accepted=False, best_move_blacks=3),
    ]
    s = score_lines(lines, ScoringPolicy())
    assert s[(1, 1)].best_move == 0 and s[(2, 1)].best_move == 0


def test_penalties_and_extra_points():
    p = ScoringPolicy(
        penalty_removed_by_fouls=Decimal("0.5"),
        penalty_disqualified=Decimal("0.7"),
        penalty_ppk=Decimal("1"),
        penalty_grey_card=Decimal("0.1"),
    )
    s = score_lines(
        [
            line(1, won=True, winner="red", removed_by_fouls=True, extra=Decimal("0.3")),
            line(2, disqualified=True, ppk=True, grey_cards=2),
        ],
        p,
    )
    assert s[(1, 1)].total == Decimal("0.8")  # 1 + 0.3 − 0.5
    assert s[(2, 1)].penalty == Decimal("1.9") and s[(2, 1)].total == Decimal("-1.9")


def test_f15_grey_card_costs_nothing_by_default():
    assert score_lines([line(1, grey_cards=3)], ScoringPolicy())[(1, 1)].total == 0


def test_policy_round_trips_and_presets_load():
    p = ScoringPolicy(best_move=(0, "0.1", "0.3", "0.6"), tiebreakers=("total", "penalties"))
    assert ScoringPolicy.from_dict(p.to_dict()) == p
    for name in PRESETS:
        assert preset(name).to_dict() == PRESETS[name]
    assert ScoringPolicy.from_dict({"win": 2, "future_key": 1}).win == 2  # unknown keys ignored, defaults fill in


def test_policy_refuses_bad_values():
    with pytest.raises(ValueError):
        ScoringPolicy(tiebreakers=("total", "shoe_size"))
    with pytest.raises(ValueError):
        ScoringPolicy(extra_min=Decimal(1), extra_max=Decimal(0))
    with pytest.raises(ValueError):
        ScoringPolicy.from_dict({"win": "lots"})
