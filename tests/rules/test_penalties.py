"""F1–F18 and X4: penalties, removals, vote cancellation (F10 INTERP).
Default roles: Sheriff 5, Don 8, Mafia 9, 10."""

from __future__ import annotations

from games.rules import PENALTY_REASONS, reasons_for
from games.rules.catalogue import PENALTIES
from tests.rules.helpers import G, left, table


def fouls(g: G, seat: int, n: int) -> G:
    for _ in range(n):
        g.do("foul", seat=seat)
    return g


def to_day2(g: G | None = None) -> G:
    g = g or G()
    return g.to_day1().speeches().quiet_night() if g.s.step == "dogovorka" else g


# --- F1: who can be penalised ---------------------------------------------------------------


def test_f1_penalty_only_at_the_table_or_on_own_last_word() -> None:
    g = G().to_day1().speeches({1: 3, 2: 4})
    g.vote({3: [1, 2, 3, 4, 5, 6, 7]})
    g.do("foul", seat=3).expect(fouls={3: 1}, step="last_word", speaker=3)  # his own last word
    g.next()
    exc = g.refuse("foul", seat=3)
    assert (exc.rule, exc.code) == ("F19", "penalty_after_leaving")
    assert g.refuse("disqualify", seat=3).code == "penalty_after_leaving"
    # RULES F19: a warning or a grey card after leaving is recorded, nothing else.
    g.do("warning", seat=3).do("grey_card", seat=3).expect(at_table=table(3))
    exc = g.refuse("remove", seat=3)
    assert (exc.rule, exc.code) == ("X4", "remove_not_at_table")


def test_f1_remove_not_on_a_last_word() -> None:
    g = G().to_day1().speeches({1: 3, 2: 4})
    g.vote({3: [1, 2, 3, 4, 5, 6, 7]})
    assert g.refuse("remove", seat=3).code == "remove_not_at_table"


def test_f1_penalties_only_while_the_game_runs() -> None:
    g = G(start=False)
    assert g.refuse("foul", seat=1).code == "game_not_started"


# --- F2, F3, F4: counts and removals ---------------------------------------------------------


def test_f2_three_fouls_silence_the_nearest_speech() -> None:
    g = fouls(G().to_day1(), 2, 3).next().expect(speaker=2, speech_seconds=0)
    assert g.s.record.penalties[-1]["count"] == 3


def test_f3_fourth_foul_removes_at_once_without_last_word() -> None:
    g = fouls(G().to_day1(), 6, 4)
    g.expect(at_table=table(6), left=[left(6, "fouls", 1, "day")], fouls={6: 4}, step="speech", speaker=1)
    p = g.s.record.penalties[-1]
    assert (p["kind"], p["count"], p["removed"], p["how"]) == ("foul", 4, True, "fouls")


def test_f3_disqualifying_foul_removes_at_once() -> None:
    g = G().to_day1().do("disqualify", seat=6, reason="insult")
    g.expect(at_table=table(6), left=[left(6, "disqualified", 1, "day")], step="speech", speaker=1)


def test_f3_removed_current_speaker_next_speaker_begins() -> None:
    g = G().to_day1().next(2).expect(speaker=3)
    fouls(g, 3, 4).expect(step="speech", speaker=4, speech_seconds=60)


def test_f3_fourth_foul_on_own_last_word_ends_it() -> None:
    g = G().to_day1().speeches({1: 3, 2: 4})
    g.vote({3: [1, 2, 3, 4, 5, 6, 7]})
    fouls(g, 3, 4).expect(step="mafia_shot", left=[left(3, "vote", 1, "day")], fouls={3: 4})


def test_f4_second_warning_removes() -> None:
    g = G().to_day1().do("warning", seat=7)
    g.expect(at_table=table())
    assert g.s.record.penalties[-1]["count"] == 1
    g.do("warning", seat=7)
    g.expect(at_table=table(7), left=[left(7, "warnings", 1, "day")])


def test_f5_three_fouls_tie_speech_30s() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    fouls(g, 2, 3)
    g.vote({2: [1, 4, 5, 6, 7]}).expect(step="tie_speech", speaker=2, speech_seconds=30)


def test_f6_three_fouls_speech_with_three_players_30s() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (2, 3, 6, 7, 8, 9, 10):
        g.do("remove", seat=seat)
    fouls(g, 5, 3).next(2).expect(speaker=5, speech_seconds=30)


# --- F7–F10: vote cancellation -------------------------------------------------------------------


def test_f7_removal_before_the_vote_cancels_that_days_vote() -> None:
    g = G().to_day1()
    g.nom(1, 2).next().nom(2, 3).next()
    g.do("disqualify", seat=7)
    assert g.s.record.penalties[-1]["cancels_vote_day"] == 1
    g.speeches({3: 4})
    g.expect(step="mafia_shot", phase="night", nominees=[])
    assert g.s.record.events[-1]["kind"] == "vote_cancelled"
    assert [e["target"] for e in g.s.record.nominations] == [2, 3, 4]


def test_f7_removal_during_the_vote_stops_it() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.expect(step="voting")
    fouls(g, 9, 4).expect(step="mafia_shot", phase="night", nominees=[])


def test_f7_removal_during_tie_speeches_stops_the_vote() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.vote({2: [1, 4, 5, 6, 7]}).expect(step="tie_speech", speaker=2)
    g.do("disqualify", seat=8).expect(step="mafia_shot", phase="night")
    assert g.s.record.events[-1]["kind"] == "vote_stopped"


def test_f7_removal_of_a_candidate_on_the_lift_vote_stops_it() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.vote({2: [1, 4, 5, 6, 7]}).next(2).vote({2: [1, 4, 5, 6, 7]}).expect(step="lift_vote")
    g.do("warning", seat=3).do("warning", seat=3)
    g.expect(step="mafia_shot", at_table=table(3), left=[left(3, "warnings", 1, "day")])


def test_f7_the_player_shot_removed_in_the_night_does_not_cancel() -> None:
    g = G().to_day1().speeches()
    g.shots({8: 4, 9: 4, 10: 4})
    g.do("disqualify", seat=4)  # the player shot this Night
    assert g.s.record.penalties[-1]["cancels_vote_day"] is None
    g.next(3)  # checks, best move skipped (removed)
    g.expect(day=2, step="speech")
    g.speeches({2: 3, 3: 2})
    g.expect(step="voting")  # Day 2's vote is held


def test_f7_the_player_leaving_by_the_vote_removed_does_not_cancel() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.vote({2: [1, 2, 3, 4, 5, 6, 7]}).expect(step="last_word", speaker=2)
    g.do("disqualify", seat=2).expect(step="mafia_shot")
    assert g.s.record.penalties[-1]["cancels_vote_day"] is None
    g.night()
    g.speeches({2: 3, 3: 4})
    g.expect(step="voting", day=2)


def test_f8_removal_after_the_vote_result_cancels_the_next_days_vote() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.vote({2: [1, 2, 3, 4, 5, 6, 7]}).expect(step="last_word", speaker=2)
    g.do("disqualify", seat=6)  # another player, during the last word
    assert g.s.record.penalties[-1]["cancels_vote_day"] == 2
    g.expect(step="last_word", speaker=2).next()
    g.night()
    g.speeches({3: 4, 4: 5})
    g.expect(step="mafia_shot", day=2, phase="night")  # no vote on Day 2
    g.night()
    g.speeches({4: 5, 5: 7})
    g.expect(step="voting", day=3)


def test_f9_several_removed_after_the_result_only_the_next_day() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.vote({2: [1, 2, 3, 4, 5, 6, 7]})
    g.do("disqualify", seat=6).do("disqualify", seat=7)
    assert [p["cancels_vote_day"] for p in g.s.record.penalties] == [2, None]
    g.next()
    g.night()
    g.speeches({3: 4, 4: 5})
    g.expect(step="mafia_shot", day=2)
    g.night()
    g.speeches({4: 5, 5: 4})
    g.expect(step="voting", day=3)


def test_f10_two_removals_before_the_day2_result_cancel_day2_and_day3() -> None:
    g = to_day2()
    g.expect(day=2, step="speech")
    g.do("disqualify", seat=6)
    g.do("disqualify", seat=7)
    assert [p["cancels_vote_day"] for p in g.s.record.penalties] == [2, 3]
    g.speeches({2: 3, 3: 4})
    g.expect(step="mafia_shot", day=2)
    g.night()
    g.speeches({3: 4, 4: 5})
    g.expect(step="mafia_shot", day=3)
    g.night()
    g.speeches({4: 5, 5: 4})
    g.expect(step="voting", day=4)


def test_f10_two_removals_before_the_day1_result_cancel_only_day1() -> None:
    g = G().to_day1()
    g.do("disqualify", seat=6).do("disqualify", seat=7)
    g.speeches({1: 2, 2: 3})
    g.expect(step="mafia_shot", day=1)
    g.night()
    g.speeches({2: 3, 3: 4})
    g.expect(step="voting", day=2)


def test_f10_one_removal_on_day2_cancels_only_day2() -> None:
    g = to_day2().do("disqualify", seat=6)
    g.speeches({2: 3, 3: 4}).expect(step="mafia_shot", day=2)
    g.night()
    g.speeches({3: 4, 4: 5}).expect(step="voting", day=3)


def test_f10_removal_in_a_night_cancels_the_next_days_vote() -> None:
    g = G().to_day1().speeches()
    g.shots({}).do("disqualify", seat=4)  # Night 1
    assert g.s.record.penalties[-1]["cancels_vote_day"] == 2
    g.next(2)
    g.speeches({2: 3, 3: 5})
    g.expect(step="mafia_shot", day=2)


def test_f10_removal_in_n0_cancels_the_day1_vote() -> None:
    g = G().do("disqualify", seat=4)
    assert g.s.record.penalties[-1]["cancels_vote_day"] == 1
    g.to_day1().speeches({1: 2, 2: 3}).expect(step="mafia_shot", day=1)


def test_f10_a_cancellation_is_not_moved_to_a_later_day() -> None:
    g = G().to_day1().speeches()
    g.shots({}).do("disqualify", seat=4)  # Night 1: cancels Day 2
    g.do("disqualify", seat=6)  # Night 1 again: Day 2 already cancelled, no move (not on Day 2)
    assert [p["cancels_vote_day"] for p in g.s.record.penalties] == [2, None]
    g.next(2)
    g.speeches({2: 3, 3: 5}).expect(step="mafia_shot", day=2)
    g.night()
    g.speeches({3: 5, 5: 7}).expect(step="voting", day=3)


def test_f10_night1_removal_then_second_on_day2_before_result_cancels_day3() -> None:
    # F10: "several players removed before the result of the Day-2 vote" —
    # the INTERP's "second cancelling removal on Day 2 before its result".
    g = G().to_day1().speeches()
    g.shots({}).do("disqualify", seat=4)  # Night 1: cancels Day 2
    g.next(2)
    g.do("disqualify", seat=6)  # Day 2 before result: the second one, also cancels Day 3
    assert [p["cancels_vote_day"] for p in g.s.record.penalties] == [2, 3]
    g.speeches({2: 3, 3: 5}).expect(step="mafia_shot", day=2)
    g.night()
    g.speeches().expect(step="mafia_shot", day=3)


def test_f10_technical_removal_never_cancels() -> None:
    g = G().to_day1().do("remove", seat=6, reason="connection")
    assert g.s.record.penalties[-1]["cancels_vote_day"] is None
    g.speeches({1: 2, 2: 3}).expect(step="voting", day=1)


def test_f10_warning_and_fouls_below_the_limit_never_cancel() -> None:
    g = G().to_day1().do("warning", seat=6)
    fouls(g, 7, 3).do("grey_card", seat=8)
    g.speeches({1: 2, 2: 3}).expect(step="voting")


# --- F12–F18 ---------------------------------------------------------------------------------------


def test_f12_foul_after_a_farewell_speech_before_the_night() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.vote({2: [1, 2, 3, 4, 5, 6, 7]})
    g.do("foul", seat=5).expect(step="last_word", fouls={5: 1})
    g.next().expect(step="mafia_shot")


def test_f13_a_foul_for_each_continuation_until_removal() -> None:
    g = G().to_day1()
    fouls(g, 4, 4)
    assert [p["count"] for p in g.s.record.penalties] == [1, 2, 3, 4]
    assert g.refuse("foul", seat=4).code == "penalty_after_leaving"  # F19


def test_f15_grey_card_is_recorded_only() -> None:
    g = G().to_day1().do("grey_card", seat=3, reason="religious_set_phrase").do("grey_card", seat=3)
    g.expect(at_table=table(), fouls={})
    p = g.s.record.penalties[-1]
    assert (p["kind"], p["seat"], p["count"], p["removed"]) == ("grey_card", 3, None, False)


def test_f16_catalogue_reasons() -> None:
    codes = [r["code"] for r in PENALTY_REASONS]
    assert len(codes) == len(set(codes))
    for r in PENALTY_REASONS:
        assert set(r) == {"code", "text_ru", "text_en", "penalty", "rule"}
        assert r["penalty"] in PENALTIES
        assert r["code"].isidentifier() and r["code"] == r["code"].lower()
        assert r["text_ru"] and r["text_en"]
    for penalty in PENALTIES:
        assert reasons_for(penalty), penalty
        assert all(r["penalty"] == penalty for r in reasons_for(penalty))


def test_f17_night_activity_breach_removes_in_the_night() -> None:
    g = G().to_day1().speeches().do("disqualify", seat=3, reason="night_activity_breach")
    g.expect(at_table=table(3), left=[left(3, "disqualified", 1, "night")], step="mafia_shot")
    assert any(r["code"] == "night_activity_breach" and r["rule"] == "F17" for r in PENALTY_REASONS)


def test_f18_vote_retraction_is_a_foul_or_a_grey_card_with_three_fouls() -> None:
    by_code = {r["code"]: r for r in PENALTY_REASONS}
    assert by_code["vote_retraction"]["penalty"] == "foul"
    assert by_code["double_or_removed_vote_three_fouls"]["penalty"] == "grey_card"


# --- X4: technical removal -------------------------------------------------------------------------


def test_x4_removed_nominee_drops_out_and_the_vote_goes_on() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3, 3: 4})
    g.do("remove", seat=3).expect(step="voting", nominees=[2, 4])
    g.vote({2: [1, 2, 5, 6, 7, 8]}).expect(step="last_word", speaker=2)


def test_x4_removed_nominee_one_left_on_day1_night() -> None:
    g = G().to_day1().speeches({1: 2, 2: 3})
    g.do("remove", seat=3).expect(step="mafia_shot", nominees=[])


def test_x4_removed_nominee_during_speeches_v5() -> None:
    g = G().to_day1().nom(1, 2).next().nom(2, 3).do("remove", seat=3)
    g.expect(nominees=[2], step="speech", speaker=2)
    g.speeches().expect(step="mafia_shot")  # one candidate on Day 1: V5


def test_x4_removed_tie_speaker_goes_to_the_next() -> None:
    g = to_day2()
    g.speeches({2: 3, 3: 4, 4: 6})
    g.expect(nominees=[3, 4, 6])
    g.vote({3: [1, 2, 3, 10], 4: [4, 5, 6, 9], 6: [7, 8]})  # 4-4-2
    g.expect(step="tie_speech", speaker=3, nominees=[3, 4])
    g.do("remove", seat=3).expect(step="tie_speech", speaker=4, nominees=[4])
    g.next().expect(step="voting", nominees=[4])  # Day 2: one candidate is voted (V5)
