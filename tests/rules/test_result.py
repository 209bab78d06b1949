"""W1–W6: the result. Default roles: Sheriff 5, Don 8, Mafia 9, 10."""

from __future__ import annotations

from tests.rules.helpers import G, left, table


def test_w1_red_wins_the_moment_the_last_black_leaves_w2_last_word() -> None:
    g = G().to_day1().speeches({1: 8, 2: 3})
    g.vote({8: [1, 2, 3, 4, 5, 6, 7]}).next()
    g.night()
    g.nom(g.s.speaker, 9).speeches()
    g.vote({9: list(g.s.at_table)}).next()
    g.night()
    g.nom(g.s.speaker, 10).speeches()
    g.vote({10: list(g.s.at_table)})
    g.expect(winner="red", status="running", step="last_word", speaker=10)
    assert g.s.record.result["winner"] == "red"
    g.next().expect(status="finished", step="finished", winner="red", speaker=None)


def test_w1_black_wins_at_the_shot_no_checks_best_move_kept() -> None:
    # W1: the shot itself is the moment 8 is out: 3 blacks v 3 reds at once.
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (5, 6, 7):
        g.do("remove", seat=seat)
    g.expect(at_table=[1, 2, 3, 4, 8, 9, 10], winner=None)  # 3 blacks, 4 reds
    g.speeches()
    g.shots({2: 8, 3: 8, 4: 8})
    # W1: the Night's remaining checks are not held; his N1 best move is
    # (RULES W1 INTERP); then the morning: 8 leaves with his last word (W2).
    g.expect(winner="black", status="running", step="best_move", phase="night", checks=[], best_move=None)
    assert g.s.record.result["index"] == len(g.log) - 1  # decided by the shot action
    g.next()  # no best move left
    g.expect(
        winner="black",
        status="running",
        step="last_word",
        speaker=8,
        phase="night",
        checks=[],
        best_move=None,
        left=[*g.pub["left"][:3], left(8, "shot", 1, "night")],
    )
    g.next().expect(status="finished", winner="black")


def test_w1_removal_deciding_the_game_ends_it_at_once() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (5, 6, 7):
        g.do("remove", seat=seat)
    g.do("disqualify", seat=8)  # 3 blacks vs 3 reds
    g.expect(winner="black", status="finished", step="finished", speaker=None)
    assert g.pub["left"][-1] == left(8, "disqualified", 1, "day")


def test_w1_removal_deciding_in_a_night_counts_the_player_shot_out() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (5, 6):
        g.do("remove", seat=seat)
    g.speeches()
    g.shots({2: 7, 3: 7, 4: 7})  # 7 shot: out for W1 (3 blacks v 1, 8, 9, 10): not decided
    g.expect(status="running", winner=None, step="don_check", at_table=[1, 2, 3, 4, 7, 8, 9, 10])
    g.do("disqualify", seat=8)  # 3 blacks v 1, 9, 10 (7 counted out): black wins now
    # W1 (FORMAT "Penalties"): the remaining checks are skipped, 7 keeps his
    # best move; the morning: 7 leaves with his last word (W2), then finished.
    g.expect(status="running", winner="black", step="best_move").next()
    g.expect(status="running", winner="black", step="last_word", speaker=7, phase="night", at_table=[1, 2, 3, 4, 9, 10])
    assert g.pub["left"][-2:] == [left(8, "disqualified", 1, "night"), left(7, "shot", 1, "night")]
    g.next().expect(status="finished", winner="black")


def test_w1_removal_after_a_deciding_shot_changes_nothing_w3() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (5, 6, 7):
        g.do("remove", seat=seat)
    g.speeches()
    g.shots({2: 8, 3: 8, 4: 8}).next()  # W1: his best move step, none left
    g.expect(winner="black", step="last_word", speaker=8)
    for seat in (2, 3, 4):  # every black removed: W3, the result stands
        g.do("disqualify", seat=seat)
    g.expect(winner="black", status="running", step="last_word", speaker=8, at_table=[1, 9, 10])
    g.next().expect(status="finished", winner="black")


def test_w2_removal_deciding_during_a_last_word_lets_it_go_on() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (5, 6):
        g.do("remove", seat=seat)  # 3 blacks v 1, 7, 8, 9, 10
    g.speeches({1: 7})  # V5 on Day 1: one candidate, no vote
    g.expect(step="mafia_shot")
    g.night()  # a miss, no checks: the morning, Day 2
    g.speeches({g.s.speaker: 7})
    g.vote({7: list(g.s.at_table)})  # 7 leaves: 3 v 4, running
    g.expect(step="last_word", speaker=7, winner=None)
    g.do("disqualify", seat=8)  # 3 v 3: decided, but 7's last word goes on
    g.expect(winner="black", status="running", step="last_word", speaker=7, speech_seconds=60)
    g.next().expect(status="finished", step="finished", winner="black")


def test_w1_the_last_black_removed_red_wins_at_once() -> None:
    g = G().to_day1()
    for seat in (8, 9):
        g.do("disqualify", seat=seat)
    g.expect(winner=None, status="running")
    g.do("remove", seat=10)
    g.expect(winner="red", status="finished", step="finished")


def test_w2_lift_vote_deciding_both_get_last_words() -> None:
    # Sheriff 1, Don 2, Mafia 3, 4; table 2, 3, 4, 5, 6, 7, 8, 9 (3 blacks, 5 reds)
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (1, 10):
        g.do("remove", seat=seat)
    g.speeches()
    g.quiet_night()
    g.speeches({3: 5, 4: 6})
    g.vote({5: [2, 3, 4, 5]})  # 4 vs 4 (6, 7, 8, 9 to 6 by V4)
    g.next(2).vote({5: [2, 3, 4, 5]})
    g.lift([2, 3, 4, 5, 6])  # 5 of 8
    g.expect(winner="black", step="last_word", speaker=5, status="running")  # 3 v 3
    g.next().expect(step="last_word", speaker=6, winner="black")
    g.next().expect(status="finished", step="finished", winner="black")


def test_w3_disqualification_after_the_deciding_moment_keeps_the_result() -> None:
    g = G().to_day1()
    for seat in (9, 10):
        g.do("remove", seat=seat)
    g.speeches({1: 8, 2: 3})
    g.vote({8: [1, 2, 3, 4, 5, 6, 7]})
    g.expect(winner="red", step="last_word", speaker=8)
    g.do("disqualify", seat=3)  # at the table: still moves to `left`
    g.expect(winner="red", step="last_word", speaker=8, at_table=table(3, 8, 9, 10))
    assert g.pub["left"][-1] == left(3, "disqualified", 1, "day")
    g.do("foul", seat=8).do("foul", seat=8).do("foul", seat=8).do("foul", seat=8)  # 4th on his last word
    g.expect(status="finished", winner="red", fouls={8: 4})
    assert g.pub["left"][2] == left(8, "vote", 1, "day")  # keeps how he left


def test_w4_draw_after_three_nights_without_a_change() -> None:
    g = G().to_day1().speeches()  # Day 1, no vote
    g.quiet_night()  # Night 1
    g.speeches()
    g.quiet_night()  # Night 2
    g.speeches()
    g.expect(day=3, step="mafia_shot")
    g.next(3)  # Night 3: miss, no checks
    g.expect(winner="draw", status="finished", step="finished", phase="night", day=3)


def test_w4_a_change_restarts_the_count() -> None:
    g = G().to_day1().speeches()
    g.quiet_night()  # Night 1
    g.speeches({2: 4})
    g.vote({4: [1, 2, 3]}).next()  # Day 2: 4 leaves
    g.night()  # Night 2
    g.speeches()
    g.night()  # Night 3: from Night 2's start nobody left; 2 Nights only
    g.expect(status="running", day=4, phase="day")
    g.speeches()
    g.night()  # Night 4: Nights 2, 3, 4 — draw
    g.expect(winner="draw", status="finished")


def test_w4_removal_in_the_period_prevents_the_draw() -> None:
    g = G().to_day1().speeches()
    g.quiet_night()
    g.speeches()
    g.do("foul", seat=3)
    g.shots({})
    g.do("remove", seat=3)  # during Night 2
    g.next(2)
    g.speeches()
    g.night()
    g.expect(status="running", day=4)


def test_w5_ppk_the_other_team_wins() -> None:
    g = G().to_day1().do("ppk", team="black", seat=9, reason="beacons")
    g.expect(status="finished", step="finished", winner="red", ppk="black")
    assert g.s.record.result == {
        "index": g.s.record.result["index"],
        "winner": "red",
        "ppk": "black",
        "annulled": False,
        "reason": "W5",
    }
    p = g.s.record.penalties[-1]
    assert (p["kind"], p["seat"], p["team"], p["reason"]) == ("ppk", 9, "black", "beacons")


def test_w5_ppk_seat_must_be_of_that_team() -> None:
    g = G().to_day1()
    exc = g.refuse("ppk", team="red", seat=9)
    assert (exc.rule, exc.code) == ("W5", "ppk_seat_not_of_team")
    g.do("ppk", team="red").expect(winner="black", ppk="red")


def test_w5_ppk_after_the_deciding_moment_keeps_the_winner() -> None:
    g = G().to_day1()
    for seat in (9, 10):
        g.do("remove", seat=seat)
    g.speeches({1: 8, 2: 3})
    g.vote({8: [1, 2, 3, 4, 5, 6, 7]}).expect(winner="red", step="last_word")
    g.do("ppk", team="red").expect(status="finished", winner="red", ppk="red")


def test_w6_annul() -> None:
    g = G().to_day1().do("annul", reason="outsider")
    g.expect(status="annulled", step="finished", winner=None, speaker=None)
    assert g.s.record.result["annulled"] is True


def test_w6_annul_after_the_deciding_moment() -> None:
    g = G().to_day1()
    for seat in (9, 10):
        g.do("remove", seat=seat)
    g.speeches({1: 8, 2: 3})
    g.vote({8: [1, 2, 3, 4, 5, 6, 7]}).expect(winner="red")
    g.do("annul").expect(status="annulled", winner=None, step="finished")
