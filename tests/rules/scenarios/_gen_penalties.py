"""Scenarios: penalties and removals (F2-F4, X4), vote cancellation (F7-F10)."""

from _lib import Scenario, left, table

ALL = list(range(1, 11))


def quiet_day1(s):
    s.setup().to_day1()
    s.speeches(range(1, 11))
    return s


def s_f3_fourth_foul_speaker():
    s = Scenario(
        "F3",
        "fourth_foul_removes_current_speaker",
        "F3: the 4th foul removes at once (how fouls), no last word; fouls keeps the count; the next speaker's "
        "step begins; F10 INTERP: it cancels Day 1's vote (Night after the last speech); Day 2 votes; a "
        "foul or disqualifying foul to a player who left (not in his last word) is refused; a warning is "
        "recorded and changes nothing (RULES F19).",
    )
    s.setup().to_day1()
    s.speeches([1, 2], noms={1: 2, 2: 4})
    s.x(step="speech", speaker=3)
    s.a("foul", seat=3)
    s.a("foul", seat=3)
    s.a("foul", seat=3)
    s.x(step="speech", speaker=3, fouls={"3": 3}, at_table=ALL)
    s.a("foul", seat=3)
    s.x(
        step="speech",
        speaker=4,
        speech_seconds=60,
        fouls={"3": 4},
        at_table=table(3),
        left=[left(3, "fouls", 1, "day")],
        nominees=[2, 4],
    )
    s.rej("foul", seat=3)
    s.a("warning", seat=3)  # RULES F19: recorded, changes nothing at the table
    s.x(step="speech", speaker=4, at_table=table(3), left=[left(3, "fouls", 1, "day")])
    s.rej("disqualify", seat=3)
    s.speeches([4, 5, 6, 7, 8, 9, 10])
    s.x(step="mafia_shot", phase="night", day=1, nominees=[], left=[left(3, "fouls", 1, "day")])
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 4, 5, 6, 7, 8, 9, 10, 1], noms={2: 4})
    s.x(step="voting", nominees=[4])
    s.vote({4: []})
    s.x(step="last_word", speaker=4, fouls={"3": 4})
    return s


def s_f4_second_warning():
    s = Scenario(
        "F4",
        "second_warning_removes_grey_card_does_not",
        "F4: the 2nd warning removes at once (how warnings), no last word, and cancels the Day's vote; a grey "
        "card (F15) changes nothing in the state; warnings are not fouls.",
    )
    s.setup().to_day1()
    s.x(step="speech", speaker=1)
    s.a("nominate", by=1, target=2)
    s.a("warning", seat=6, reason="emotions")
    s.x(at_table=ALL, left=[], fouls={}, step="speech", speaker=1)
    s.a("grey_card", seat=7)
    s.x(at_table=ALL, left=[], fouls={}, step="speech", speaker=1)
    s.a("warning", seat=6)
    s.x(step="speech", speaker=1, at_table=table(6), left=[left(6, "warnings", 1, "day")], fouls={})
    s.a("warning", seat=6)  # RULES F19: after leaving a warning is recorded, nobody removed
    s.x(step="speech", speaker=1, at_table=table(6), left=[left(6, "warnings", 1, "day")])
    s.rej("foul", seat=6)
    s.nx()
    s.speeches([2, 3, 4, 5, 7, 8, 9, 10], noms={3: 4})
    s.x(step="mafia_shot", day=1, nominees=[], left=[left(6, "warnings", 1, "day")])
    return s


def s_f3_disqualify_nominee():
    s = Scenario(
        "F3",
        "disqualified_nominee_drops_out_day2_cancelled",
        "FORMAT: a removed nominee drops out of nominees; F10 INTERP: one disqualification on Day 2 before "
        "the result cancels Day 2's vote only; Day 3 votes.",
    )
    quiet_day1(s)
    s.night()
    s.speeches([2, 3, 4], noms={2: 3, 3: 4})
    s.x(step="speech", day=2, speaker=5, nominees=[3, 4])
    s.a("disqualify", seat=3)
    s.x(step="speech", speaker=5, nominees=[4], left=[left(3, "disqualified", 2, "day")], at_table=table(3))
    s.nx()
    s.speeches([6, 7, 8, 9, 10, 1])
    s.x(step="mafia_shot", day=2, nominees=[])
    s.night(shots={8: 1, 9: 1, 10: 1})
    s.x(step="last_word", speaker=1, best_move=None)
    s.nx()
    s.x(step="speech", day=3, speaker=4, at_table=[2, 4, 5, 6, 7, 8, 9, 10])
    s.speeches([4, 5, 6, 7, 8, 9, 10, 2], noms={4: 6})
    s.x(step="voting", nominees=[6])
    s.vote({6: []})
    s.x(step="last_word", speaker=6)
    return s


def s_x4_remove_nominee():
    s = Scenario(
        "X4",
        "technical_removal_of_nominees_vote_goes_on",
        "FORMAT/X4: a technically removed nominee drops out; Day 1 with one nominee left: Night (V5); Day 2: "
        "the last speaker removed -> voting; a nominee removed during voting: the vote is held among the "
        "others; the removed seat can no longer vote.",
    )
    s.setup().to_day1()
    s.speeches([1, 2, 3, 4], noms={1: 3, 2: 4})
    s.x(step="speech", speaker=5)
    s.a("remove", seat=4)
    s.x(step="speech", speaker=5, nominees=[3], left=[left(4, "removed", 1, "day")])
    s.nx()
    s.speeches([6, 7, 8, 9, 10])
    s.x(step="mafia_shot", day=1, nominees=[], left=[left(4, "removed", 1, "day")])
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 3, 5, 6, 7, 8, 9, 10], noms={2: 8, 3: 5, 5: 6})
    s.x(step="speech", speaker=1, nominees=[8, 5, 6])
    s.a("remove", seat=1)
    s.x(step="voting", nominees=[8, 5, 6], speaker=None)
    s.a("remove", seat=6)
    s.x(
        step="voting",
        nominees=[8, 5],
        at_table=[2, 3, 5, 7, 8, 9, 10],
        left=[left(4, "removed", 1, "day"), left(1, "removed", 2, "day"), left(6, "removed", 2, "day")],
    )
    s.rej("votes", **{"for": {"8": [6]}})
    s.rej("votes", **{"for": {"6": [2]}})
    s.vote({8: [2, 3, 5, 7, 8]})  # 9, 10 -> 5
    s.x(step="last_word", speaker=8, nominees=[8, 5], winner=None)
    return s


def s_f_penalties_own_last_word():
    s = Scenario(
        "F3",
        "penalties_during_own_last_word_after_vote",
        "FORMAT: penalties apply to the player whose own last word is running (his left entry keeps 'vote'); "
        "remove is refused for him; the 2nd warning ends the last word at once (Night); removing the player "
        "leaving by the vote does not cancel a vote (Day 2 votes).",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 2, 3, 5, 6, 7]})
    s.x(step="last_word", speaker=2)
    s.a("foul", seat=2)
    s.x(step="last_word", speaker=2, fouls={"2": 1}, left=[left(2, "vote", 1, "day")])
    s.rej("remove", seat=2)
    s.a("warning", seat=2)
    s.x(step="last_word", speaker=2)
    s.a("warning", seat=2)
    s.x(step="mafia_shot", phase="night", day=1, left=[left(2, "vote", 1, "day")], at_table=table(2), fouls={"2": 1})
    s.rej("foul", seat=2)
    s.night()
    s.x(step="speech", day=2, speaker=3)
    s.speeches([3, 4, 5, 6, 7, 8, 9, 10, 1], noms={3: 4})
    s.x(step="voting", nominees=[4])
    s.vote({4: []})
    s.x(step="last_word", speaker=4)
    return s


def s_f_penalties_morning_last_word():
    s = Scenario(
        "F3",
        "fourth_foul_ends_morning_last_word",
        "FORMAT: fouls to the shot player during his morning last word; the 4th ends it at once, his left "
        "entry stays 'shot'; Day 2 then votes (the player shot does not cancel).",
    )
    quiet_day1(s)
    s.night(shots={8: 3, 9: 3, 10: 3})
    s.nx()  # best move: none
    s.x(step="last_word", speaker=3, phase="night")
    s.a("foul", seat=3)
    s.a("foul", seat=3)
    s.a("foul", seat=3)
    s.x(step="last_word", speaker=3, fouls={"3": 3})
    s.a("foul", seat=3)
    s.x(step="speech", phase="day", day=2, speaker=2, fouls={"3": 4}, left=[left(3, "shot", 1, "night")])
    s.speeches([2, 4, 5, 6, 7, 8, 9, 10, 1], noms={2: 4})
    s.x(step="voting", nominees=[4])
    s.vote({4: []})
    s.x(step="last_word", speaker=4)
    return s


def s_f3_disqualify_lift_last_words():
    s = Scenario(
        "F3",
        "disqualified_during_first_lift_last_word",
        "FORMAT: after a lift vote each leaver gets a last word in nomination order; disqualifying the first "
        "during his last word ends it, the second's begins; left keeps lift_vote; no cancellation (Day 2 "
        "votes).",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.nx()
    s.nx()
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.a("lift_vote", yes=[1, 2, 3, 5, 6, 7])
    s.x(step="last_word", speaker=2)
    s.a("disqualify", seat=2)
    s.x(step="last_word", speaker=4, left=[left(2, "lift_vote", 1, "day"), left(4, "lift_vote", 1, "day")])
    s.nx()
    s.night(shots={8: 1, 9: 1, 10: 1})
    s.x(step="last_word", speaker=1)
    s.nx()
    s.x(step="speech", day=2, speaker=3)
    s.speeches([3, 5, 6, 7, 8, 9, 10], noms={3: 8})
    s.x(step="voting", nominees=[8])
    s.vote({8: []})
    s.x(step="last_word", speaker=8)
    return s


def s_f7_removal_during_tie_speech():
    s = Scenario(
        "F7",
        "disqualification_during_tie_speech_stops_vote",
        "F10 INTERP: a cancelling removal on Day 1 during tie speeches stops the vote: Night begins at once; "
        "Day 2 votes (Day 1: only the nearest vote).",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.x(step="tie_speech", speaker=2)
    s.a("disqualify", seat=7)
    s.x(
        step="mafia_shot",
        phase="night",
        day=1,
        nominees=[],
        speaker=None,
        left=[left(7, "disqualified", 1, "day")],
        at_table=table(7),
    )
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 3, 4, 5, 6, 8, 9, 10, 1], noms={2: 3})
    s.x(step="voting", nominees=[3])
    s.vote({3: []})
    s.x(step="last_word", speaker=3)
    return s


def s_f7_removal_at_voting():
    s = Scenario(
        "F7",
        "disqualification_at_voting_step_stops_vote",
        "F10 INTERP: a disqualification while the vote is under way (voting step) cancels it: Night.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.x(step="voting")
    s.a("disqualify", seat=9)
    s.x(step="mafia_shot", phase="night", day=1, nominees=[], left=[left(9, "disqualified", 1, "day")])
    s.rej("shots", by={"8": 1, "9": 1, "10": 1})
    s.night(shots={8: 1, 10: 2})
    s.x(step="speech", day=2, speaker=2, left=[left(9, "disqualified", 1, "day")])
    s.speeches([2, 3, 4, 5, 6, 7, 8, 10, 1], noms={2: 3})
    s.x(step="voting", nominees=[3])
    return s


def s_f7_removal_at_lift_vote():
    s = Scenario(
        "F7",
        "fourth_foul_of_candidate_at_lift_vote_stops_vote",
        "F10 INTERP: a candidate's 4th foul at the lift_vote step cancels the vote under way: he leaves "
        "(fouls), nobody else, Night.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.nx()
    s.nx()
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.x(step="lift_vote")
    s.a("foul", seat=4)
    s.a("foul", seat=4)
    s.a("foul", seat=4)
    s.x(step="lift_vote", fouls={"4": 3})
    s.a("foul", seat=4)
    s.x(
        step="mafia_shot",
        phase="night",
        day=1,
        nominees=[],
        fouls={"4": 4},
        left=[left(4, "fouls", 1, "day")],
        at_table=table(4),
    )
    return s


def s_f10_day1_two_removals():
    s = Scenario(
        "F10",
        "day1_two_removals_cancel_only_day1",
        "F10: several removals before the Day 1 result cancel only the nearest vote; Day 2 votes.",
    )
    s.setup().to_day1()
    s.speeches([1], noms={1: 3})
    s.x(step="speech", speaker=2)
    s.a("disqualify", seat=6)
    s.nx()
    s.x(step="speech", speaker=3)
    s.a("disqualify", seat=7)
    s.nx()
    s.speeches([4, 5, 8, 9, 10], noms={4: 5})
    s.x(
        step="mafia_shot",
        day=1,
        nominees=[],
        left=[left(6, "disqualified", 1, "day"), left(7, "disqualified", 1, "day")],
    )
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 3, 4, 5, 8, 9, 10, 1], noms={2: 3})
    s.x(step="voting", nominees=[3])
    s.vote({3: []})
    s.x(step="last_word", speaker=3)
    return s


def s_f10_day2_two_removals():
    s = Scenario(
        "F10",
        "day2_two_removals_cancel_day2_and_day3",
        "F10 INTERP: a second cancelling removal on Day 2 before its result also cancels Day 3's vote; Day 4 votes.",
    )
    quiet_day1(s)
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.a("disqualify", seat=6)
    s.nx()
    s.speeches([3], noms={3: 4})
    s.x(step="speech", speaker=4)
    s.a("disqualify", seat=7)
    s.nx()
    s.speeches([5, 8, 9, 10, 1])
    s.x(step="mafia_shot", day=2, nominees=[])
    s.night(shots={8: 1, 9: 1, 10: 1})
    s.x(step="last_word", speaker=1)
    s.nx()
    s.x(step="speech", day=3, speaker=3, at_table=[2, 3, 4, 5, 8, 9, 10])
    s.speeches([3, 4, 5, 8, 9, 10, 2], noms={3: 4})
    s.x(step="mafia_shot", day=3, nominees=[])
    s.night()
    s.x(step="speech", day=4, speaker=4, status="running")
    s.speeches([4, 5, 8, 9, 10, 2, 3], noms={4: 8})
    s.x(step="voting", nominees=[8])
    s.vote({8: []})
    s.x(step="last_word", speaker=8)
    return s


def s_f10_day3_two_removals():
    s = Scenario(
        "F10",
        "day3_two_removals_cancel_only_day3",
        "F10 INTERP: the double cancellation is Day 2 only: two removals on Day 3 cancel Day 3's vote; Day 4 votes.",
    )
    quiet_day1(s)
    s.night()
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1], noms={2: 3})
    s.vote({3: []})
    s.nx()
    s.night()
    s.x(step="speech", day=3, speaker=4)
    s.a("disqualify", seat=6)
    s.a("nominate", by=4, target=5)
    s.nx()
    s.x(step="speech", speaker=5)
    s.a("disqualify", seat=7)
    s.nx()
    s.speeches([8, 9, 10, 1, 2])
    s.x(step="mafia_shot", day=3, nominees=[])
    s.night()
    s.x(step="speech", day=4, speaker=5, at_table=[1, 2, 4, 5, 8, 9, 10], status="running")
    s.speeches([5, 8, 9, 10, 1, 2, 4], noms={5: 9})
    s.x(step="voting", nominees=[9])
    s.vote({9: []})
    s.x(step="last_word", speaker=9)
    return s


def s_f9_after_result():
    s = Scenario(
        "F9",
        "two_removals_after_result_cancel_only_next_day",
        "F8/F9: two disqualifications after the Day 1 result (during the last word) cancel Day 2's vote only; "
        "Day 3 votes.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 2, 3, 5, 6, 7]})
    s.x(step="last_word", speaker=2)
    s.a("disqualify", seat=6)
    s.a("disqualify", seat=7)
    s.x(
        step="last_word",
        speaker=2,
        left=[left(2, "vote", 1, "day"), left(6, "disqualified", 1, "day"), left(7, "disqualified", 1, "day")],
    )
    s.nx()
    s.night()
    s.x(step="speech", day=2, speaker=3, at_table=[1, 3, 4, 5, 8, 9, 10])
    s.speeches([3, 4, 5, 8, 9, 10, 1], noms={3: 4})
    s.x(step="mafia_shot", day=2, nominees=[])
    s.night()
    s.x(step="speech", day=3, speaker=4)
    s.speeches([4, 5, 8, 9, 10, 1, 3], noms={4: 8})
    s.x(step="voting", nominees=[8])
    s.vote({8: []})
    s.x(step="last_word", speaker=8)
    return s


def s_f7_night_removal():
    s = Scenario(
        "F7",
        "night_removal_cancels_next_day_vote",
        "F10 INTERP: a disqualification in a Night (not of the player shot) cancels the next Day's vote; Day 3 votes.",
    )
    quiet_day1(s)
    s.x(step="mafia_shot")
    s.a("shots", by={"8": 1, "9": 1, "10": 1})
    s.nx()
    s.x(step="sheriff_check")
    s.a("disqualify", seat=7)
    s.x(step="sheriff_check", left=[left(7, "disqualified", 1, "night")])
    s.nx()
    s.x(step="best_move")
    s.nx()
    s.x(step="last_word", speaker=1, left=[left(7, "disqualified", 1, "night"), left(1, "shot", 1, "night")])
    s.nx()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 3, 4, 5, 6, 8, 9, 10], noms={2: 3})
    s.x(step="mafia_shot", day=2, nominees=[])
    s.night()
    s.x(step="speech", day=3, speaker=3)
    s.speeches([3, 4, 5, 6, 8, 9, 10, 2], noms={3: 4})
    s.x(step="voting", nominees=[4])
    s.vote({4: []})
    s.x(step="last_word", speaker=4)
    return s


def s_f7_n0_removal_fouls():
    s = Scenario(
        "F7",
        "fourth_foul_in_n0_cancels_day1",
        "F10 INTERP: a 4th foul in N0 (free seating) cancels Day 1's vote (two candidates, no voting); "
        "left entry day 0, phase night.",
    )
    s.setup()
    s.nx()
    s.x(step="free_seating")
    for _ in range(4):
        s.a("foul", seat=10)
    s.x(step="free_seating", left=[left(10, "fouls", 0, "night")], fouls={"10": 4}, at_table=table(10))
    s.nx()
    s.x(step="speech", day=1, speaker=1)
    s.speeches([1, 2, 3, 4, 5, 6, 7, 8, 9], noms={1: 2, 2: 3})
    s.x(step="mafia_shot", day=1, nominees=[])
    return s


def s_x4_technical_never_cancels():
    s = Scenario(
        "X4",
        "technical_removals_never_cancel",
        "F10 INTERP: a technical removal (X4) never cancels a vote: in N0, during Day 1 speeches, after the "
        "Day 1 result - Day 1 and Day 2 both vote.",
    )
    s.setup()
    s.a("remove", seat=10)
    s.to_day1()
    s.speeches([1, 2, 3, 4], noms={1: 2, 3: 4})
    s.x(step="speech", speaker=5)
    s.a("remove", seat=6)
    s.nx()
    s.speeches([7, 8, 9])
    s.x(step="voting", nominees=[2, 4])
    s.vote({2: [1, 2, 3, 4, 5, 7]})  # 8, 9 -> 4
    s.x(step="last_word", speaker=2)
    s.a("remove", seat=7)
    s.x(
        step="last_word",
        speaker=2,
        left=[
            left(10, "removed", 0, "night"),
            left(6, "removed", 1, "day"),
            left(2, "vote", 1, "day"),
            left(7, "removed", 1, "day"),
        ],
    )
    s.nx()
    s.x(step="mafia_shot")
    s.a("shots", by={"8": 4, "9": 4})
    s.nx()
    s.nx()
    s.x(step="best_move")
    s.nx()
    s.x(step="last_word", speaker=4)
    s.nx()
    s.x(step="speech", day=2, speaker=3, at_table=[1, 3, 5, 8, 9])
    s.speeches([3, 5, 8, 9, 1], noms={3: 9})
    s.x(step="voting", nominees=[9])
    s.vote({9: []})
    s.x(step="last_word", speaker=9, winner=None)
    return s


SCENARIOS = [
    s_f3_fourth_foul_speaker,
    s_f4_second_warning,
    s_f3_disqualify_nominee,
    s_x4_remove_nominee,
    s_f_penalties_own_last_word,
    s_f_penalties_morning_last_word,
    s_f3_disqualify_lift_last_words,
    s_f7_removal_during_tie_speech,
    s_f7_removal_at_voting,
    s_f7_removal_at_lift_vote,
    s_f10_day1_two_removals,
    s_f10_day2_two_removals,
    s_f10_day3_two_removals,
    s_f9_after_result,
    s_f7_night_removal,
    s_f7_n0_removal_fouls,
    s_x4_technical_never_cancels,
]
