"""V1–V12: the vote, ties, the lift vote, last words."""

from __future__ import annotations

from games.rules import Regulations
from tests.rules.helpers import G, left, table


def day1_with(noms: dict[int, int]) -> G:
    return G().to_day1().speeches(noms)


def test_v1_v2_voting_step_after_the_last_speech_candidates_in_nomination_order() -> None:
    g = day1_with({1: 7, 2: 3, 5: 9})
    g.expect(step="voting", nominees=[7, 3, 9], speaker=None, speech_seconds=None)
    assert g.s.step_seconds is None


def test_v2_votes_only_on_the_voting_step() -> None:
    g = G().to_day1()
    exc = g.refuse("votes", **{"for": {}})
    assert (exc.rule, exc.code) == ("V2", "wrong_step")


def test_v2_a_seat_that_is_not_a_candidate_is_refused() -> None:
    g = day1_with({1: 7, 2: 3})
    exc = g.refuse("votes", **{"for": {"5": [1]}})
    assert (exc.rule, exc.code) == ("V2", "vote_not_candidate")


def test_v3_a_voter_named_twice_is_refused() -> None:
    g = day1_with({1: 7, 2: 3})
    exc = g.refuse("votes", **{"for": {"7": [1, 2], "3": [2]}})
    assert (exc.rule, exc.code) == ("V3", "vote_double_voter")
    assert exc.params == {"voter": 2}
    exc = g.refuse("votes", **{"for": {"7": [1, 1]}})
    assert exc.code == "vote_double_voter"


def test_v3_a_voter_not_at_the_table_is_refused() -> None:
    g = G().to_day1().do("remove", seat=10).speeches({1: 7, 2: 3})
    exc = g.refuse("votes", **{"for": {"7": [10]}})
    assert (exc.rule, exc.code) == ("V3", "vote_voter_not_at_table")


def test_v4_non_voters_go_to_the_last_candidate() -> None:
    g = day1_with({1: 7, 2: 3})
    g.vote({7: [1, 2, 3, 4, 5]})  # 6..10 did not vote: 5 votes to 3
    g.expect(step="tie_speech", speaker=7, nominees=[7, 3])
    v = g.s.record.votes[-1]
    assert v["totals"] == {7: 5, 3: 5}
    assert v["auto"] == [6, 7, 8, 9, 10]
    assert v["ballots"][10] == 3 and v["ballots"][1] == 7
    assert v["outcome"] == "tie"


def test_v4_empty_vote_gives_everything_to_the_last_candidate() -> None:
    g = day1_with({1: 7, 2: 3})
    g.vote({})
    g.expect(step="last_word", speaker=3, left=[left(3, "vote", 1, "day")], nominees=[7, 3])


def test_v5_day1_single_candidate_no_vote() -> None:
    g = day1_with({4: 6})
    g.expect(step="mafia_shot", phase="night", day=1, nominees=[], at_table=table())
    assert g.s.record.votes == []
    assert g.s.record.events[-1]["kind"] == "single_candidate_day1"


def test_v5_from_day2_one_candidate_is_voted() -> None:
    g = G().to_day1().speeches()
    g.quiet_night()
    g.speeches({3: 6})
    g.expect(step="voting", nominees=[6])
    g.vote({6: [1]})
    g.expect(step="last_word", speaker=6, left=[left(6, "vote", 2, "day")])


def test_v_no_nominees_no_vote() -> None:
    g = day1_with({})
    g.expect(step="mafia_shot", phase="night")


def test_v6_day1_three_way_split_ends_the_day() -> None:
    g = day1_with({1: 2, 2: 3, 3: 4})
    g.vote({2: [1, 2, 3], 3: [4, 5, 6], 4: [7, 8, 9, 10]})  # 3-3-4: 4 leaves (V7)
    g.expect(step="last_word", speaker=4)
    g = day1_with({1: 2, 2: 3, 3: 4, 4: 5})
    g.vote({2: [1, 2, 3], 3: [4, 5, 6], 4: [7, 8, 9], 5: [10]})  # 3-3-3-1
    g.expect(step="mafia_shot", phase="night", nominees=[], at_table=table())
    v = g.s.record.votes[-1]
    assert v["outcome"] == "night" and v["leaving"] == []


def test_v6_only_on_day1() -> None:
    g = G().to_day1().speeches()
    g.quiet_night()
    g.speeches({2: 2, 3: 3, 4: 4})
    g.vote({2: [1, 2, 3], 3: [4, 5, 6], 4: [7, 8, 9, 10]})  # 3-3-4 → 4
    g.expect(step="last_word", speaker=4)
    g = G().to_day1().speeches()
    g.quiet_night()
    g.speeches({2: 2, 3: 3, 4: 4, 5: 5})
    g.vote({2: [1, 2, 3], 3: [4, 5, 6], 4: [7, 8, 9], 5: [10]})  # 3-3-3-1 on Day 2
    g.expect(step="tie_speech", speaker=2, nominees=[2, 3, 4], speech_seconds=30)


def test_v7_most_votes_leaves() -> None:
    g = day1_with({1: 7, 2: 3})
    g.vote({7: [1, 2, 3, 4, 5, 6], 3: [7, 8, 9, 10]})
    g.expect(step="last_word", speaker=7, speech_seconds=60, at_table=table(7), left=[left(7, "vote", 1, "day")])


def test_v8_tie_gives_30s_speeches_in_nomination_order_then_a_revote() -> None:
    g = day1_with({1: 7, 2: 3, 4: 5})
    g.vote({7: [1, 2, 3, 4], 3: [5, 6, 7, 8], 5: [9, 10]})
    g.expect(step="tie_speech", speaker=7, speech_seconds=30, nominees=[7, 3])
    assert g.s.remaining_speakers() == [3]
    g.next().expect(step="tie_speech", speaker=3, speech_seconds=30)
    g.next().expect(step="voting", nominees=[7, 3])
    g.vote({7: [1, 2, 3, 4, 5, 6]})
    assert g.s.record.votes[-1]["kind"] == "revote"
    assert g.s.record.votes[-1]["round"] == 2
    g.expect(step="last_word", speaker=7)


def test_v9_revote_tie_among_fewer_candidates_gets_speeches_again() -> None:
    g = G().to_day1().speeches()
    g.quiet_night()
    g.speeches({2: 2, 3: 3, 4: 4, 5: 5})
    g.vote({2: [1, 2, 3], 3: [4, 5, 6], 4: [7, 8, 9], 5: [10]})
    g.expect(step="tie_speech", nominees=[2, 3, 4])
    g.next(3)
    g.vote({2: [1, 2, 3, 4], 3: [5, 6, 7, 8], 4: [9, 10]})  # 4-4-2
    g.expect(step="tie_speech", speaker=2, nominees=[2, 3])
    g.next(2).expect(step="voting", nominees=[2, 3])


def test_v10_same_tie_again_goes_to_the_lift_vote() -> None:
    g = day1_with({1: 7, 2: 3})
    g.vote({7: [1, 2, 3, 4, 5]})
    g.next(2).vote({7: [1, 2, 3, 4, 5]})
    g.expect(step="lift_vote", nominees=[7, 3], speaker=None)
    assert g.s.record.votes[-1]["outcome"] == "lift"
    exc = g.refuse("next")
    assert (exc.rule, exc.code) == ("V10", "next_not_allowed")
    g.lift([1, 2, 4, 5, 6, 8])  # 6 of 10: more than half
    g.expect(
        step="last_word",
        speaker=7,
        at_table=table(3, 7),
        left=[left(7, "lift_vote", 1, "day"), left(3, "lift_vote", 1, "day")],
    )
    g.next().expect(step="last_word", speaker=3, nominees=[7, 3])
    g.next().expect(step="mafia_shot", nominees=[])
    v = g.s.record.votes[-1]
    assert (
        v["kind"] == "lift" and v["yes"] == [1, 2, 4, 5, 6, 8] and v["no"] == [3, 7, 9, 10] and v["leaving"] == [7, 3]
    )


def test_v10_lift_needs_more_than_half_of_the_table() -> None:
    g = day1_with({1: 7, 2: 3})
    g.vote({7: [1, 2, 3, 4, 5]}).next(2).vote({7: [1, 2, 3, 4, 5]})
    g.lift([1, 2, 3, 4, 5])  # exactly half: not carried
    g.expect(step="mafia_shot", at_table=table(), nominees=[])
    assert g.s.record.votes[-1]["outcome"] == "no_elimination"


def test_v10_lift_majority_setting_half_or_more() -> None:
    g = G(regulations=Regulations(lift_majority="half_or_more")).to_day1().speeches({1: 7, 2: 3})
    g.vote({7: [1, 2, 3, 4, 5]}).next(2).vote({7: [1, 2, 3, 4, 5]})
    g.lift([1, 2, 3, 4, 5])
    g.expect(step="last_word", speaker=7)


def test_v10_lift_vote_refusals() -> None:
    g = day1_with({1: 7, 2: 3})
    g.vote({7: [1, 2, 3, 4, 5]}).next(2).vote({7: [1, 2, 3, 4, 5]})
    g.expect(step="lift_vote")
    assert g.refuse("lift_vote", yes=[1, 1]).code == "lift_double_voter"
    assert g.refuse("lift_vote", yes=[11]).code == "bad_seat"
    assert g.refuse("lift_vote").rule == "FORMAT"
    g.do("remove", seat=10)
    exc = g.refuse("lift_vote", yes=[10])
    assert (exc.rule, exc.code) == ("V10", "lift_voter_not_at_table")


def test_v11_no_lift_vote_when_the_tied_are_all_at_the_table() -> None:
    # Sheriff 1, Don 2, Mafia 3, 4; a table of 4: 1, 4, 5, 6 (1 black, 3 red).
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (2, 3, 7, 8, 9, 10):
        g.do("remove", seat=seat)
    g.speeches()
    g.quiet_night()  # Day 2 (on Day 1 a 4-way tie would be V6)
    g.speeches({1: 1, 4: 4, 5: 5, 6: 6})
    g.expect(step="voting", nominees=[4, 5, 6, 1])
    g.vote({1: [1], 4: [4], 5: [5], 6: [6]})
    g.expect(step="tie_speech", nominees=[4, 5, 6, 1])
    g.next(4).vote({1: [1], 4: [4], 5: [5], 6: [6]})
    g.expect(step="mafia_shot", phase="night", at_table=[1, 4, 5, 6], nominees=[])
    assert g.s.record.votes[-1]["outcome"] == "no_elimination"


def test_v11_lift_vote_held_when_someone_is_not_tied() -> None:
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (2, 3, 7, 8, 9, 10):
        g.do("remove", seat=seat)
    g.speeches({1: 5, 4: 6})
    g.vote({5: [1, 4], 6: [5, 6]})
    g.next(2).vote({5: [1, 4], 6: [5, 6]})
    g.expect(step="lift_vote")


def test_v12_last_word_60s_and_role_not_revealed() -> None:
    g = day1_with({1: 9, 2: 3})
    g.vote({9: [1, 2, 3, 4, 5, 6, 7]})
    g.expect(step="last_word", speaker=9, speech_seconds=60, phase="day", nominees=[9, 3])
    assert "role" not in g.pub["left"][0]
    g.next().expect(step="mafia_shot", phase="night", day=1)


def test_v_votes_keys_may_be_ints_or_strings() -> None:
    g = day1_with({1: 7, 2: 3})
    g.do("votes", **{"for": {7: [1, 2, 3, 4, 5, 6]}})
    g.expect(step="last_word", speaker=7)


def test_v_bad_votes_payloads() -> None:
    g = day1_with({1: 7, 2: 3})
    assert g.refuse("votes").rule == "FORMAT"
    assert g.refuse("votes", **{"for": [7]}).rule == "FORMAT"
    assert g.refuse("votes", **{"for": {"x": [1]}}).code == "bad_seat"
    assert g.refuse("votes", **{"for": {"7": 1}}).rule == "FORMAT"
    assert g.refuse("votes", **{"for": {"7": ["1"]}}).code == "bad_seat"


def test_v11_removals_on_the_lift_vote_leaving_only_the_tied_end_it() -> None:
    # Sheriff 1, Don 2, Mafia 3, 4; Day 2 table 1, 4, 5, 6, 7, 8 (1 black, 5 reds).
    g = G(sheriff=1, don=2, mafia=(3, 4)).to_day1()
    for seat in (2, 3, 9, 10):
        g.do("remove", seat=seat)
    g.speeches()
    g.quiet_night()
    g.expect(day=2, speaker=4, at_table=[1, 4, 5, 6, 7, 8])
    g.speeches({4: 4, 5: 5, 6: 6})
    g.vote({4: [1, 4], 5: [5, 6], 6: [7, 8]})
    g.next(3).vote({4: [1, 4], 5: [5, 6], 6: [7, 8]})
    g.expect(step="lift_vote", nominees=[4, 5, 6])
    g.do("remove", seat=1).do("remove", seat=7).expect(step="lift_vote")
    g.do("remove", seat=8)  # the tied are now all the players at the table
    g.expect(step="mafia_shot", phase="night", at_table=[4, 5, 6], nominees=[], winner=None)
