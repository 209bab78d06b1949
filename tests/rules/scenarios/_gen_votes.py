"""Scenarios: voting (V4-V11), vote refusals."""

from _lib import Scenario, left, table

ALL = list(range(1, 11))


def s_v4_nonvoters_last():
    s = Scenario(
        "V4",
        "nonvoters_go_to_last_candidate",
        "V4: voters not listed are added to the last nominated candidate (3 candidates: 3-1-6); "
        "Day 2 `for: {}` gives every vote to the last candidate.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 3, 2: 4, 5: 6})
    s.x(step="voting", nominees=[3, 4, 6])
    s.vote({3: [1, 2, 3], 4: [4]})
    s.x(step="last_word", speaker=6, nominees=[3, 4, 6], left=[left(6, "vote", 1, "day")], at_table=table(6))
    s.nx()
    s.night(shots={8: 1, 9: 1, 10: 1})
    s.x(step="best_move")
    s.a("best_move", **{"pass": True})
    s.x(step="last_word", speaker=1)
    s.nx()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 3, 4, 5, 7, 8, 9, 10], noms={2: 3, 3: 4})
    s.x(step="voting", nominees=[3, 4])
    s.a("votes", **{"for": {}})
    s.x(
        step="last_word",
        speaker=4,
        left=[left(6, "vote", 1, "day"), left(1, "shot", 1, "night"), left(4, "vote", 2, "day")],
    )
    return s


def s_v5_single_candidate():
    s = Scenario(
        "V5",
        "day1_single_no_vote_day2_single_voted",
        "V5: Day 1 with one candidate: no vote, nobody leaves, Night; Day 2 with one candidate: voted, "
        "all votes go to him, he leaves.",
    )
    s.setup().to_day1()
    s.speeches([1, 2, 3], noms={3: 5})
    s.x(nominees=[5], step="speech", speaker=4)
    s.speeches([4, 5, 6, 7, 8, 9, 10])
    s.x(step="mafia_shot", phase="night", day=1, nominees=[], left=[], at_table=ALL)
    s.night()
    s.x(step="speech", day=2, speaker=2, nominees=[])
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1], noms={4: 5})
    s.x(step="voting", nominees=[5], speaker=None)
    s.vote({5: [1, 2]})
    s.x(
        step="last_word",
        speaker=5,
        speech_seconds=60,
        nominees=[5],
        left=[left(5, "vote", 2, "day")],
        at_table=table(5),
    )
    s.nx()
    s.night(sheriff_present=False)
    s.x(step="speech", day=3, speaker=3)
    return s


def s_v6_day1_three_way():
    s = Scenario(
        "V6",
        "day1_three_way_tie_night_day2_tie_speeches",
        "V6 INTERP: Day 1, top count shared by 3 candidates (3-3-3-1): no speeches, no revote, Night. "
        "The same on Day 2 is a V8 tie: tie speeches of the three in nomination order, revote among them.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 2: 3, 3: 4, 4: 5})
    s.x(step="voting", nominees=[2, 3, 4, 5])
    s.vote({2: [1, 6, 7], 3: [2, 8, 9], 4: [3, 5, 10], 5: [4]})
    s.x(step="mafia_shot", phase="night", day=1, left=[], at_table=ALL, nominees=[], speaker=None)
    s.nx()
    s.x(step="don_check")
    s.nx()
    s.x(step="sheriff_check")
    s.nx()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1], noms={2: 3, 3: 4, 4: 5, 5: 6})
    s.x(step="voting", nominees=[3, 4, 5, 6])
    s.vote({3: [1, 2, 7], 4: [3, 8, 9], 5: [4, 10, 5], 6: [6]})
    s.x(step="tie_speech", speaker=3, speech_seconds=30, nominees=[3, 4, 5])
    s.nx()
    s.x(step="tie_speech", speaker=4)
    s.nx()
    s.x(step="tie_speech", speaker=5)
    s.nx()
    s.x(step="voting", nominees=[3, 4, 5])
    s.rej("votes", **{"for": {"6": [1]}})
    s.vote({3: [1, 2, 3, 4, 5, 6, 7], 4: [8]})
    s.x(step="last_word", speaker=3, nominees=[3, 4, 5], left=[left(3, "vote", 2, "day")])
    return s


def s_v6_day1_five_way():
    s = Scenario(
        "V6", "day1_five_way_2_2_2_2_2", "V6: Day 1, 2-2-2-2-2 between five candidates: Night at once, nobody leaves."
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 6, 2: 7, 3: 8, 4: 9, 5: 10})
    s.x(step="voting", nominees=[6, 7, 8, 9, 10])
    s.vote({6: [1, 2], 7: [3, 4], 8: [5, 6], 9: [7, 8], 10: [9, 10]})
    s.x(step="mafia_shot", phase="night", day=1, left=[], nominees=[])
    return s


def s_v8_tie_order():
    s = Scenario(
        "V8",
        "tie_speeches_in_nomination_order",
        "V8: tie -> one 30 s tie speech per candidate in nomination order (7 before 2), then a revote among "
        "them; a single top in the revote leaves (V7) with a 60 s last word.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 7, 3: 2})
    s.x(step="voting", nominees=[7, 2])
    s.vote({7: [1, 2, 3, 4, 5], 2: [6, 7, 8, 9, 10]})
    s.x(step="tie_speech", speaker=7, speech_seconds=30, nominees=[7, 2], phase="day", day=1)
    s.nx()
    s.x(step="tie_speech", speaker=2, speech_seconds=30)
    s.nx()
    s.x(step="voting", nominees=[7, 2], speaker=None, speech_seconds=None)
    s.vote({7: [1, 2, 3, 4, 5, 6]})
    s.x(
        step="last_word",
        speaker=7,
        speech_seconds=60,
        nominees=[7, 2],
        left=[left(7, "vote", 1, "day")],
        at_table=table(7),
    )
    s.nx()
    s.x(step="mafia_shot", nominees=[])
    return s


def s_v9_revote_fewer():
    s = Scenario(
        "V9",
        "revote_tie_among_fewer_speeches_again",
        "V8/V9: Day 2 3-3-3-1 -> tie speeches 4, 6, 1 -> revote 4-4-2 -> tie among fewer: speeches 4, 6 "
        "again -> revote among 4 and 6 only -> 4 leaves.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11))
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1], noms={2: 4, 3: 6, 5: 1, 6: 3})
    s.x(step="voting", nominees=[4, 6, 1, 3])
    s.vote({4: [1, 2, 5], 6: [3, 4, 7], 1: [6, 8, 9], 3: [10]})
    s.x(step="tie_speech", speaker=4, nominees=[4, 6, 1])
    s.nx()
    s.x(step="tie_speech", speaker=6)
    s.nx()
    s.x(step="tie_speech", speaker=1)
    s.nx()
    s.x(step="voting", nominees=[4, 6, 1])
    s.rej("votes", **{"for": {"3": [1]}})
    s.vote({4: [1, 2, 3, 5], 6: [4, 6, 7, 8], 1: [9, 10]})
    s.x(step="tie_speech", speaker=4, speech_seconds=30, nominees=[4, 6])
    s.nx()
    s.x(step="tie_speech", speaker=6)
    s.nx()
    s.x(step="voting", nominees=[4, 6])
    s.rej("votes", **{"for": {"1": [1]}})
    s.vote({4: [1, 2, 3, 4, 5, 6], 6: []})
    s.x(step="last_word", speaker=4, left=[left(4, "vote", 2, "day")])
    return s


def s_v10_lift_passes_nine():
    s = Scenario(
        "V10",
        "lift_passes_5_of_9_three_leave",
        "V10 INTERP: majority = more than half of the players at the table: 5 yes of 9 passes; all three "
        "tied leave (lift_vote) with last words in nomination order; lift voter not at the table refused. "
        "N4: the Don who left has no check step.",
    )
    s.setup().to_day1()
    s.x(step="speech", speaker=1)
    s.a("remove", seat=7)
    s.speeches([1, 2, 3, 4, 5, 6, 8, 9, 10])
    s.x(step="mafia_shot", at_table=table(7))
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 3, 4, 5, 6, 8, 9, 10, 1], noms={2: 3, 3: 8, 4: 4})
    s.x(step="voting", nominees=[3, 8, 4])
    s.vote({3: [1, 2, 3], 8: [4, 5, 6]})  # 8, 9, 10 -> 4
    s.x(step="tie_speech", speaker=3, nominees=[3, 8, 4])
    s.nx()
    s.x(step="tie_speech", speaker=8)
    s.nx()
    s.x(step="tie_speech", speaker=4)
    s.nx()
    s.x(step="voting", nominees=[3, 8, 4])
    s.vote({3: [1, 2, 3], 8: [4, 5, 6], 4: [8, 9, 10]})
    s.x(step="lift_vote", nominees=[3, 8, 4], speaker=None)
    s.rej("lift_vote", yes=[1, 2, 3, 4, 7])
    s.a("lift_vote", yes=[1, 2, 3, 4, 5])
    lv = [
        left(7, "removed", 1, "day"),
        left(3, "lift_vote", 2, "day"),
        left(8, "lift_vote", 2, "day"),
        left(4, "lift_vote", 2, "day"),
    ]
    s.x(step="last_word", speaker=3, speech_seconds=60, left=lv, at_table=[1, 2, 5, 6, 9, 10], winner=None)
    s.nx()
    s.x(step="last_word", speaker=8)
    s.nx()
    s.x(step="last_word", speaker=4)
    s.nx()
    s.night(don_present=False)
    s.x(step="speech", day=3, speaker=5, at_table=[1, 2, 5, 6, 9, 10])
    return s


def s_n9_lift_two_day1():
    s = Scenario(
        "N9",
        "no_best_move_after_lift_of_two_on_day1",
        "V10: 6 yes of 10 passes, both leave, last words in nomination order; N9: two left by the Day 1 vote, "
        "so the N1 victim has no best move.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 4, 3: 2})
    s.vote({4: [1, 3, 5, 6, 7], 2: [2, 4, 8, 9, 10]})
    s.x(step="tie_speech", speaker=4)
    s.nx()
    s.x(step="tie_speech", speaker=2)
    s.nx()
    s.vote({4: [1, 3, 5, 6, 7], 2: [2, 4, 8, 9, 10]})
    s.x(step="lift_vote")
    s.a("lift_vote", yes=[1, 2, 3, 5, 6, 7])
    s.x(
        step="last_word",
        speaker=4,
        left=[left(4, "lift_vote", 1, "day"), left(2, "lift_vote", 1, "day")],
        at_table=[1, 3, 5, 6, 7, 8, 9, 10],
        nominees=[4, 2],
    )
    s.nx()
    s.x(step="last_word", speaker=2)
    s.nx()
    s.night(shots={8: 1, 9: 1, 10: 1})
    s.x(
        step="last_word",
        speaker=1,
        phase="night",
        day=1,
        best_move=None,
        left=[left(4, "lift_vote", 1, "day"), left(2, "lift_vote", 1, "day"), left(1, "shot", 1, "night")],
    )
    s.nx()
    s.x(step="speech", day=2, speaker=3)
    return s


def s_v11_all_tied():
    s = Scenario(
        "V11",
        "tie_of_all_players_at_table_no_lift_vote",
        "V11: 4 at the table, all four nominated, 1-1-1-1 twice: tie speeches and a revote, then no lift vote "
        "(the tied are all the players at the table): nobody leaves, Night.",
    )
    s.setup()
    for seat in (9, 10, 2, 3, 4, 7):
        s.a("remove", seat=seat)
    s.x(at_table=[1, 5, 6, 8], status="running", winner=None)
    s.to_day1()
    s.speeches([1, 5, 6, 8])
    s.night()
    s.x(step="speech", day=2, speaker=5, at_table=[1, 5, 6, 8])
    s.speeches([5, 6, 8, 1], noms={5: 5, 6: 6, 8: 8, 1: 1})
    s.x(step="voting", nominees=[5, 6, 8, 1])
    s.vote({5: [5], 6: [6], 8: [8], 1: [1]})
    s.x(step="tie_speech", speaker=5, nominees=[5, 6, 8, 1])
    for seat in (5, 6, 8, 1):
        s.x(step="tie_speech", speaker=seat, speech_seconds=30)
        s.nx()
    s.x(step="voting", nominees=[5, 6, 8, 1])
    s.vote({5: [5], 6: [6], 8: [8], 1: [1]})
    s.x(step="mafia_shot", phase="night", day=2, at_table=[1, 5, 6, 8], nominees=[], winner=None, status="running")
    return s


def s_votes_refusals():
    s = Scenario(
        "V3",
        "votes_refused_double_not_at_table_not_candidate",
        "FORMAT refusals: votes naming a voter twice (two candidates / same list), a voter not at the table, "
        "a seat that is not a candidate of this vote (at the table, or gone) are refused, state unchanged.",
    )
    s.setup().to_day1()
    s.speeches([1, 2, 3, 4], noms={1: 3, 2: 4})
    s.x(step="speech", speaker=5)
    s.a("remove", seat=7)
    s.nx()
    s.speeches([6, 8, 9, 10])
    s.x(step="voting", nominees=[3, 4], left=[left(7, "removed", 1, "day")])
    s.rej("votes", **{"for": {"3": [1, 2], "4": [2]}})
    s.rej("votes", **{"for": {"3": [1, 1]}})
    s.rej("votes", **{"for": {"3": [7]}})
    s.rej("votes", **{"for": {"5": [1]}})
    s.rej("votes", **{"for": {"7": [1]}})
    s.x(step="voting", nominees=[3, 4], left=[left(7, "removed", 1, "day")])
    s.vote({3: [1, 2, 3, 4, 5, 6], 4: [8]})
    s.x(step="last_word", speaker=3, left=[left(7, "removed", 1, "day"), left(3, "vote", 1, "day")])
    return s


SCENARIOS = [
    s_v4_nonvoters_last,
    s_v5_single_candidate,
    s_v6_day1_three_way,
    s_v6_day1_five_way,
    s_v8_tie_order,
    s_v9_revote_fewer,
    s_v10_lift_passes_nine,
    s_n9_lift_two_day1,
    s_v11_all_tied,
    s_votes_refusals,
]
