"""N1–N12: shots, checks, best move, winks. Default roles: Sheriff 5, Don 8, Mafia 9, 10."""

from __future__ import annotations

from tests.rules.helpers import G, left, table


def night1() -> G:
    return G().to_day1().speeches()


def test_n0_no_shots_or_checks_in_the_first_night() -> None:
    g = G()
    exc = g.refuse("shots", by={"8": 1})
    assert (exc.rule, exc.code) == ("N2", "wrong_step")
    exc = g.refuse("don_check", target=5)
    assert (exc.rule, exc.code) == ("N4", "wrong_step")


def test_n1_night_order_shot_don_sheriff_best_move_morning() -> None:
    g = night1().expect(phase="night", step="mafia_shot", day=1, speaker=None, nominees=[])
    g.shots({8: 1, 9: 1, 10: 1}).expect(step="don_check")
    g.do("don_check", target=5).expect(step="sheriff_check")
    g.do("sheriff_check", target=8).expect(step="best_move")
    g.do("best_move", seats=[8, 9, 2]).expect(step="last_word", speaker=1, phase="night", day=1, at_table=table(1))
    g.expect(left=[left(1, "shot", 1, "night")])
    g.next().expect(phase="day", day=2, step="speech", speaker=2)


def test_n2_all_blacks_name_the_same_seat_a_hit() -> None:
    g = night1().shots({8: 4, 9: 4, 10: 4})
    assert g.s.record.shots[-1]["victim"] == 4
    g.expect(at_table=table())  # still at the table until the morning (W1)


def test_n2_different_seats_or_nobody_is_a_miss() -> None:
    for by in ({8: 4, 9: 4, 10: 3}, {8: 4, 9: 4, 10: None}, {8: 4, 9: 4}, {}):
        g = night1().shots(by)
        assert g.s.record.shots[-1]["victim"] is None, by
        g.next(2)  # no checks
        g.expect(step="speech", day=2, at_table=table(), best_move=None)


def test_n2_next_on_the_shot_step_is_a_miss() -> None:
    g = night1().next().expect(step="don_check")
    assert g.s.record.shots[-1] == {
        "index": g.s.record.shots[-1]["index"],
        "night": 1,
        "by": {8: None, 9: None, 10: None},
        "victim": None,
    }


def test_n2_a_black_at_the_table_naming_nobody_is_a_miss_even_if_he_is_the_target() -> None:
    g = night1().shots({8: 10, 9: 10, 10: None})
    assert g.s.record.shots[-1]["victim"] is None


def test_n2_blacks_may_shoot_a_black_even_one_of_themselves() -> None:
    g = night1().shots({8: 9, 9: 9, 10: 9})
    g.next(3)  # checks, best move
    g.expect(step="last_word", speaker=9, left=[left(9, "shot", 1, "night")])


def test_n2_shooter_must_be_a_black_at_the_table() -> None:
    g = night1()
    exc = g.refuse("shots", by={"5": 1})
    assert (exc.rule, exc.code) == ("N2", "shot_by_not_black")
    g.do("remove", seat=10)
    assert g.refuse("shots", by={"10": 1}).code == "shot_by_not_black"


def test_n2_target_must_be_at_the_table() -> None:
    g = night1().do("remove", seat=3)
    exc = g.refuse("shots", by={"8": 3, "9": 3})
    assert (exc.rule, exc.code) == ("N2", "shot_target_not_at_table")


def test_n2_only_the_blacks_still_at_the_table_shoot() -> None:
    g = G().to_day1().speeches({1: 9, 2: 3})
    g.vote({9: [1, 2, 3, 4, 5, 6, 7]}).next()
    g.shots({8: 2, 10: 2})
    assert g.s.record.shots[-1]["victim"] == 2


def test_n4_checks_and_results() -> None:
    g = night1().next()
    g.do("don_check", target=5)
    g.do("sheriff_check", target=10)
    g.expect(
        checks=[
            {"night": 1, "by": "don", "target": 5, "result": True},
            {"night": 1, "by": "sheriff", "target": 10, "result": "black"},
        ]
    )
    g.next()
    g.speeches()
    g.next()
    g.do("don_check", target=4).do("sheriff_check", target=1)
    assert g.pub["checks"][2:] == [
        {"night": 2, "by": "don", "target": 4, "result": False},
        {"night": 2, "by": "sheriff", "target": 1, "result": "red"},
    ]


def test_n4_a_captain_no_longer_at_the_table_has_no_check_step() -> None:
    g = G().to_day1().speeches({1: 8, 2: 3})
    g.vote({8: [1, 2, 3, 4, 5, 6, 7]}).next()  # the Don leaves by the vote
    g.next().expect(step="sheriff_check")
    exc = g.refuse("don_check", target=5)
    assert (exc.rule, exc.code) == ("N4", "wrong_step")


def test_n4_the_shot_captain_keeps_his_check_until_the_morning() -> None:
    g = night1().shots({8: 5, 9: 5, 10: 5})
    g.do("don_check", target=1).expect(step="sheriff_check")
    g.do("sheriff_check", target=9).expect(step="best_move")


def test_n4_a_check_may_name_a_seat_that_left() -> None:
    g = G().to_day1().speeches({1: 3, 2: 4})
    g.vote({3: [1, 2, 3, 4, 5, 6, 7]}).next()
    g.next().do("don_check", target=3)
    assert g.pub["checks"][-1] == {"night": 1, "by": "don", "target": 3, "result": False}


def test_n4_captain_removed_on_his_check_step_the_step_is_skipped() -> None:
    g = night1().next().expect(step="don_check")
    g.do("disqualify", seat=8).expect(step="sheriff_check")
    g.do("remove", seat=5).expect(step="speech", day=2)


def test_n5_the_player_shot_leaves_in_the_morning_with_a_last_word() -> None:
    g = G().to_day1().speeches()
    g.quiet_night()
    g.speeches()
    g.shots({8: 6, 9: 6, 10: 6}).next(2)  # Night 2: no best move
    g.expect(step="last_word", speaker=6, speech_seconds=60, phase="night", day=2, left=[left(6, "shot", 2, "night")])
    g.next().expect(day=3, phase="day")


def test_n6_best_move_accepted() -> None:
    g = night1().shots({8: 1, 9: 1, 10: 1}).next(2)
    g.do("best_move", seats=[8, 9, 2])
    g.expect(best_move={"seat": 1, "seats": [8, 9, 2], "blacks": 2}, step="last_word", speaker=1)
    bm = g.s.record.best_moves[-1]
    assert (bm["night"], bm["seat"], bm["accepted"], bm["passed"], bm["blacks"]) == (1, 1, True, False, 2)


def test_n6_best_move_only_in_night_1() -> None:
    g = G().to_day1().speeches()
    g.quiet_night()
    g.speeches()
    g.shots({8: 1, 9: 1, 10: 1}).next(2)
    g.expect(step="last_word", speaker=1)
    exc = g.refuse("best_move", seats=[8])
    assert (exc.rule, exc.code) == ("N6", "wrong_step")


def test_n6_pass_and_not_accepted_leave_no_best_move() -> None:
    for action in ({"pass": True}, {"accepted": False}):
        g = night1().shots({8: 1, 9: 1, 10: 1}).next(2)
        g.do("best_move", **action).expect(best_move=None, step="last_word", speaker=1)
    g = night1().shots({8: 1, 9: 1, 10: 1}).next(3)  # next: none left
    g.expect(best_move=None, step="last_word")
    assert g.s.record.best_moves[-1]["how"] == "none"


def test_n7_fewer_seats_accepted_as_named_more_than_three_refused() -> None:
    g = night1().shots({8: 1, 9: 1, 10: 1}).next(2)
    exc = g.refuse("best_move", seats=[2, 3, 4, 8])
    assert (exc.rule, exc.code) == ("N6", "best_move_too_many")
    g.do("best_move", seats=[]).expect(best_move=None)  # RULES N7: nobody named — not accepted
    g = night1().shots({8: 1, 9: 1, 10: 1}).next(2)
    g.do("best_move", seats=[9]).expect(best_move={"seat": 1, "seats": [9], "blacks": 1})


def test_n8_repeated_seat_counts_once_own_seat_accepted() -> None:
    g = night1().shots({8: 9, 9: 9, 10: 9}).next(2)
    g.do("best_move", seats=[9, 9, 8]).expect(best_move={"seat": 9, "seats": [9, 9, 8], "blacks": 2})


def test_n8_bad_best_move_forms() -> None:
    g = night1().shots({8: 1, 9: 1, 10: 1}).next(2)
    assert g.refuse("best_move").rule == "FORMAT"
    assert g.refuse("best_move", seats=[2], **{"pass": True}).rule == "FORMAT"
    assert g.refuse("best_move", seats=[2], accepted=False).rule == "FORMAT"
    assert g.refuse("best_move", seats=[11]).code == "bad_seat"
    assert g.refuse("best_move", seats="2,3").rule == "FORMAT"


def test_n9_no_best_move_if_two_or_more_left_by_the_day1_vote() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.vote({2: [1, 2, 3, 4, 5]}).next(2).vote({2: [1, 2, 3, 4, 5]})
    g.lift([1, 4, 5, 6, 7, 8]).next(2)  # 2 and 3 leave, last words
    g.shots({8: 1, 9: 1, 10: 1}).next(2)
    g.expect(step="last_word", speaker=1, best_move=None)


def test_n9_best_move_when_one_left_by_the_day1_vote() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.vote({2: [1, 2, 3, 4, 5, 6]}).next()
    g.shots({8: 1, 9: 1, 10: 1}).next(2).expect(step="best_move")
    assert g.s.step_seconds == 20


def test_n10_victim_removed_before_the_morning_no_best_move_no_last_word() -> None:
    g = night1().shots({8: 1, 9: 1, 10: 1}).next(2).expect(step="best_move")
    g.do("disqualify", seat=1)
    g.expect(step="speech", day=2, left=[left(1, "disqualified", 1, "night")], at_table=table(1))
    assert g.s.record.shots[-1]["victim"] == 1  # the shot stays in the record (N10 Ci)
    assert g.s.record.best_moves == []


def test_n10_victim_removed_earlier_in_the_night() -> None:
    g = night1().shots({8: 2, 9: 2, 10: 2}).expect(step="don_check")
    g.do("remove", seat=2).expect(step="don_check")
    g.next(2).expect(step="speech", day=2, speaker=3, left=[left(2, "removed", 1, "night")])


def test_n12_winks() -> None:
    g = G().to_day1()
    g.do("wink", by=8, target=1).do("wink", by=5, target=2).do("wink", by=8, target=3)
    exc = g.refuse("wink", by=8, target=4)
    assert (exc.rule, exc.code) == ("N12", "wink_limit")
    assert g.refuse("wink", by=1, target=2).code == "wink_not_allowed_role"
    assert g.refuse("wink", by=9, target=9).code == "wink_self"
    g.do("remove", seat=4)
    assert g.refuse("wink", by=9, target=4).code == "wink_target_not_at_table"
    g.do("remove", seat=10)
    assert g.refuse("wink", by=10, target=1).code == "wink_not_at_table"
    assert [(w["by"], w["target"]) for w in g.s.record.winks] == [(8, 1), (5, 2), (8, 3)]
