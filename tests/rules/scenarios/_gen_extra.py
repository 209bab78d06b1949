"""Scenarios, second wave: corners found while reviewing the first set."""

from _lib import Scenario, left, table

ALL = list(range(1, 11))


def quiet_day1(s):
    s.setup().to_day1()
    s.speeches(range(1, 11))
    return s


def s_setup_game_actions_refused():
    s = Scenario(
        "S",
        "game_actions_refused_before_start",
        "FORMAT: actions valid only while the game is running are refused in setup (before start).",
    )
    s.a("seat", players=[f"P{i}" for i in range(1, 11)])
    s.a("roles", sheriff=5, don=8, mafia=[9, 10])
    s.rej("wink", by=8, target=1)
    s.rej("tech_pause", seat=1)
    s.rej("ppk", team="red")
    s.rej("annul")
    s.rej("disqualify", seat=1)
    s.rej("remove", seat=1)
    s.rej("warning", seat=1)
    s.rej("grey_card", seat=1)
    s.rej("nominate", by=1, target=2)
    s.rej("votes", **{"for": {}})
    s.rej("shots", by={"8": 1})
    s.x(status="setup", step=None, left=[], at_table=ALL, winner=None, ppk=None)
    s.a("start")
    s.x(status="running", step="dogovorka")
    return s


def s_penalty_refusals():
    s = Scenario(
        "F1",
        "penalties_refused_for_players_who_left",
        "FORMAT: penalties (foul ... disqualify, grey card included) apply to a player at the table or in his "
        "own last word; remove only to a player at the table; for a player who left earlier, foul, disqualify "
        "and remove are refused, a warning or a grey card is recorded and changes nothing (RULES F19).",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 2, 3, 5, 6, 7]})
    s.x(step="last_word", speaker=2)
    s.a("grey_card", seat=2)
    s.nx()
    s.x(step="mafia_shot")
    for do in ("foul", "disqualify", "remove"):
        s.rej(do, seat=2)
    for do in ("warning", "grey_card"):
        s.a(do, seat=2)
        s.x(step="mafia_shot", at_table=[1, 3, 4, 5, 6, 7, 8, 9, 10], left=[left(2, "vote", 1, "day")])
    s.rej("foul", seat=11)
    s.x(step="mafia_shot", left=[left(2, "vote", 1, "day")], fouls={})
    return s


def s_x4_remove_tie_speaker():
    s = Scenario(
        "X4",
        "technical_removal_of_current_tie_speaker",
        "FORMAT: a tied candidate technically removed during his own tie speech drops out; the next tie "
        "speech begins; the revote is held among the others.",
    )
    quiet_day1(s)
    s.night()
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1], noms={2: 3, 3: 4, 4: 5, 5: 6})
    s.vote({3: [1, 2, 7], 4: [3, 8, 9], 5: [4, 10, 5], 6: [6]})
    s.x(step="tie_speech", speaker=3, nominees=[3, 4, 5])
    s.a("remove", seat=3)
    s.x(step="tie_speech", speaker=4, nominees=[4, 5], left=[left(3, "removed", 2, "day")])
    s.nx()
    s.x(step="tie_speech", speaker=5)
    s.nx()
    s.x(step="voting", nominees=[4, 5])
    s.rej("votes", **{"for": {"3": [1]}})
    s.vote({4: [1, 2, 4, 5, 6, 7]})  # 8, 9, 10 -> 5
    s.x(step="last_word", speaker=4, left=[left(3, "removed", 2, "day"), left(4, "vote", 2, "day")])
    return s


def s_x4_remove_nominee_at_voting_day1():
    s = Scenario(
        "X4",
        "day1_voting_one_nominee_left_after_removal",
        "FORMAT: a nominee technically removed at the voting step on Day 1 leaves one candidate: Night.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.x(step="voting", nominees=[2, 4])
    s.a("remove", seat=4)
    s.x(step="mafia_shot", phase="night", day=1, nominees=[], left=[left(4, "removed", 1, "day")])
    return s


def s_x4_remove_only_nominee_day2():
    s = Scenario(
        "X4",
        "day2_only_nominee_removed_night",
        "FORMAT: the only nominee technically removed on Day 2: none left, the Night begins after the last speech.",
    )
    quiet_day1(s)
    s.night()
    s.speeches([2, 3, 4], noms={2: 6})
    s.a("remove", seat=6)
    s.x(step="speech", speaker=5, nominees=[])
    s.speeches([5, 7, 8, 9, 10, 1])
    s.x(step="mafia_shot", day=2, nominees=[], left=[left(6, "removed", 2, "day")])
    return s


def s_v4_revote_nonvoters():
    s = Scenario(
        "V4",
        "revote_nonvoters_go_to_last_tied_candidate",
        "V4 in a revote: with `for: {}` every vote goes to the last candidate of that vote (the last tied in "
        "nomination order), not the last nominee of the Day.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 7, 3: 2, 5: 4})
    s.vote({7: [1, 2, 3, 4], 2: [5, 6, 7, 8]})  # 9, 10 -> 4
    s.x(step="tie_speech", speaker=7, nominees=[7, 2])
    s.nx()
    s.nx()
    s.x(step="voting", nominees=[7, 2])
    s.rej("votes", **{"for": {"4": [9]}})
    s.a("votes", **{"for": {}})
    s.x(step="last_word", speaker=2, left=[left(2, "vote", 1, "day")], nominees=[7, 2])
    return s


def s_v10_lift_after_fewer():
    s = Scenario(
        "V10",
        "lift_vote_after_tie_among_fewer_repeats",
        "V9/V10: 3-3-3-1 -> revote 4-4-2 (fewer) -> speeches -> revote 5-5 between the same two -> lift vote "
        "between those two; `yes: []` fails: nobody leaves, Night.",
    )
    quiet_day1(s)
    s.night()
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1], noms={2: 4, 3: 6, 5: 1, 6: 3})
    s.vote({4: [1, 2, 5], 6: [3, 4, 7], 1: [6, 8, 9], 3: [10]})
    s.nx()
    s.nx()
    s.nx()
    s.vote({4: [1, 2, 3, 5], 6: [4, 6, 7, 8], 1: [9, 10]})
    s.x(step="tie_speech", speaker=4, nominees=[4, 6])
    s.nx()
    s.nx()
    s.x(step="voting", nominees=[4, 6])
    s.vote({4: [1, 2, 3, 4, 5], 6: [6, 7, 8, 9, 10]})
    s.x(step="lift_vote", nominees=[4, 6])
    s.a("lift_vote", yes=[])
    s.x(step="mafia_shot", phase="night", day=2, left=[], at_table=ALL, nominees=[])
    return s


def s_v6_two_way_top():
    s = Scenario(
        "V6",
        "day1_3_3_2_2_is_a_two_way_tie",
        "V6 INTERP counts only the highest count: 3-3-2-2 on Day 1 is a tie of two (V8), not V6.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 2: 3, 3: 4, 4: 5})
    s.vote({2: [1, 6, 7], 3: [2, 8, 9], 4: [3, 10], 5: [4, 5]})
    s.x(step="tie_speech", speaker=2, nominees=[2, 3])
    s.nx()
    s.x(step="tie_speech", speaker=3)
    s.nx()
    s.x(step="voting", nominees=[2, 3])
    s.vote({2: [1, 2, 3, 4, 5, 6]})
    s.x(step="last_word", speaker=2)
    return s


def s_v7_single_top():
    s = Scenario(
        "V7",
        "day1_4_2_2_2_single_top_leaves",
        "V7: the single highest count leaves even when the lower counts are shared by three (not V6).",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 2: 3, 3: 4, 4: 5})
    s.vote({2: [1, 6, 7, 8], 3: [2, 9], 4: [3, 10], 5: [4, 5]})
    s.x(step="last_word", speaker=2, left=[left(2, "vote", 1, "day")], nominees=[2, 3, 4, 5])
    return s


def s_f7_two_n0_removals():
    s = Scenario(
        "F7",
        "two_removals_in_n0_cancel_only_day1",
        "F10 INTERP: removals in N0 cancel the next Day's vote (Day 1); a vote is cancelled once: Day 2 votes.",
    )
    s.setup()
    s.a("disqualify", seat=6)
    s.a("warning", seat=7)
    s.a("warning", seat=7)
    s.x(left=[left(6, "disqualified", 0, "night"), left(7, "warnings", 0, "night")], at_table=table(6, 7))
    s.to_day1()
    s.speeches([1, 2, 3, 4, 5, 8, 9, 10], noms={1: 2, 2: 3})
    s.x(step="mafia_shot", day=1, nominees=[])
    s.night()
    s.speeches([2, 3, 4, 5, 8, 9, 10, 1], noms={2: 3})
    s.x(step="voting", nominees=[3])
    return s


def s_f9_after_result_and_night():
    s = Scenario(
        "F9",
        "removal_after_result_and_in_night_cancel_day2_only",
        "F8/F10 INTERP: a removal after the Day 1 result and another in Night 1 both cancel Day 2's vote; "
        "cancelled once, Day 3 votes.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 2, 3, 5, 6, 7]})
    s.a("disqualify", seat=6)
    s.nx()
    s.x(step="mafia_shot")
    s.a("disqualify", seat=7)
    s.nx()
    s.nx()
    s.nx()
    s.x(
        step="speech",
        day=2,
        speaker=3,
        left=[left(2, "vote", 1, "day"), left(6, "disqualified", 1, "day"), left(7, "disqualified", 1, "night")],
    )
    s.speeches([3, 4, 5, 8, 9, 10, 1], noms={3: 4})
    s.x(step="mafia_shot", day=2, nominees=[])
    s.night()
    s.x(step="speech", day=3, speaker=4)
    s.speeches([4, 5, 8, 9, 10, 1, 3], noms={4: 9})
    s.x(step="voting", nominees=[9])
    return s


def s_f10_day2_one_cancelling_one_technical():
    s = Scenario(
        "F10",
        "day2_disqualification_plus_technical_removal",
        "F10 INTERP: a technical removal is not a cancelling removal: one disqualification and one technical "
        "removal on Day 2 cancel Day 2 only; Day 3 votes.",
    )
    quiet_day1(s)
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.a("disqualify", seat=6)
    s.a("remove", seat=7)
    s.speeches([2, 3, 4, 5, 8, 9, 10, 1], noms={2: 3})
    s.x(step="mafia_shot", day=2, nominees=[])
    s.night()
    s.x(step="speech", day=3, speaker=3)
    s.speeches([3, 4, 5, 8, 9, 10, 1, 2], noms={3: 4})
    s.x(step="voting", nominees=[4])
    return s


def s_f10_day3_after_double():
    s = Scenario(
        "F10",
        "day3_removal_after_double_cancel_does_not_move_it",
        "F10 INTERP: Day 2 double removal cancels Days 2 and 3; a further removal on Day 3 (whose vote is "
        "already cancelled) does not move the cancellation: Day 4 votes.",
    )
    quiet_day1(s)
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.a("disqualify", seat=6)
    s.a("disqualify", seat=7)
    s.speeches([2, 3, 4, 5, 8, 9, 10, 1])
    s.x(step="mafia_shot", day=2)
    s.night()
    s.x(step="speech", day=3, speaker=3)
    s.a("disqualify", seat=1)
    s.speeches([3, 4, 5, 8, 9, 10, 2], noms={3: 4})
    s.x(step="mafia_shot", day=3, nominees=[])
    s.night()
    s.x(step="speech", day=4, speaker=4, status="running", at_table=[2, 3, 4, 5, 8, 9, 10])
    s.speeches([4, 5, 8, 9, 10, 2, 3], noms={4: 8})
    s.x(step="voting", nominees=[8])
    return s


def s_f7_removal_in_morning_last_word():
    s = Scenario(
        "F7",
        "disqualification_during_morning_last_word",
        "F10 INTERP: a player at the table disqualified during the shot player's morning last word (Night "
        "phase): left entry phase night; Day 2's vote is cancelled; Day 3 votes.",
    )
    quiet_day1(s)
    s.night(shots={8: 3, 9: 3, 10: 3})
    s.nx()
    s.x(step="last_word", speaker=3)
    s.a("disqualify", seat=7)
    s.x(step="last_word", speaker=3, left=[left(3, "shot", 1, "night"), left(7, "disqualified", 1, "night")])
    s.nx()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 4, 5, 6, 8, 9, 10, 1], noms={2: 4})
    s.x(step="mafia_shot", day=2, nominees=[])
    s.night()
    s.x(step="speech", day=3, speaker=4)
    s.speeches([4, 5, 6, 8, 9, 10, 1, 2], noms={4: 8})
    s.x(step="voting", nominees=[8])
    return s


def s_w4_n1_shot_in_window():
    s = Scenario(
        "W4",
        "n1_shot_is_inside_night3_window",
        "W4: the N1 victim left at the end of Night 1, inside the window of Night 3 (from the start of "
        "Night 1): no draw after Night 3; draw after Night 4.",
    )
    quiet_day1(s)
    s.night(shots={8: 2, 9: 2, 10: 2})
    s.nx()
    s.nx()
    s.x(step="speech", day=2, speaker=3)
    s.speeches([3, 4, 5, 6, 7, 8, 9, 10, 1])
    s.night()
    s.speeches([4, 5, 6, 7, 8, 9, 10, 1, 3])
    s.night()
    s.x(step="speech", day=4, speaker=5, status="running", winner=None)
    s.speeches([5, 6, 7, 8, 9, 10, 1, 3, 4])
    s.night()
    s.x(status="finished", step="finished", winner="draw", left=[left(2, "shot", 1, "night")])
    return s


def s_w4_night1_disqualification():
    s = Scenario(
        "W4",
        "night1_disqualification_inside_window",
        "W4: a disqualification during Night 1 is since the start of Night 1: no draw after Night 3; draw "
        "after Night 4.",
    )
    quiet_day1(s)
    s.x(step="mafia_shot")
    s.a("disqualify", seat=7)
    s.nx()
    s.nx()
    s.nx()
    s.speeches([2, 3, 4, 5, 6, 8, 9, 10, 1])
    s.night()
    s.speeches([3, 4, 5, 6, 8, 9, 10, 1, 2])
    s.night()
    s.x(step="speech", day=4, speaker=4, status="running")
    s.speeches([4, 5, 6, 8, 9, 10, 1, 2, 3])
    s.night()
    s.x(status="finished", winner="draw", left=[left(7, "disqualified", 1, "night")])
    return s


def s_n8_black_victim_counts():
    s = Scenario(
        "N8",
        "blacks_counted_by_role_own_seat_and_left",
        "N8/N10: a black N1 victim names his own seat twice and a black who already left: blacks counts "
        "distinct black seats (2).",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 10, 2: 3})
    s.vote({10: [1, 2, 3, 4, 5, 6, 7]})
    s.nx()
    s.night(shots={8: 9, 9: 9})
    s.x(step="best_move")
    s.a("best_move", seats=[9, 9, 10])
    s.x(step="last_word", speaker=9, best_move={"seat": 9, "seats": [9, 9, 10], "blacks": 2})
    return s


def s_n4_self_checks_and_wrong_steps():
    s = Scenario(
        "N4",
        "self_checks_bad_seats_wrong_steps",
        "N4 INTERP: any seat 1..10 (the Don checking himself: false; the Sheriff himself: red); seats outside "
        "1..10 refused; night actions at the wrong step refused.",
    )
    quiet_day1(s)
    s.x(step="mafia_shot")
    s.rej("don_check", target=5)
    s.rej("best_move", seats=[8])
    s.nx()
    s.x(step="don_check")
    s.rej("shots", by={"8": 1})
    s.rej("sheriff_check", target=8)
    s.rej("don_check", target=0)
    s.rej("don_check", target=11)
    s.a("don_check", target=8)
    s.x(step="sheriff_check")
    s.rej("don_check", target=5)
    s.rej("sheriff_check", target=11)
    s.a("sheriff_check", target=5)
    s.x(
        step="speech",
        day=2,
        speaker=2,
        checks=[
            {"night": 1, "by": "don", "target": 8, "result": False},
            {"night": 1, "by": "sheriff", "target": 5, "result": "red"},
        ],
    )
    return s


def s_x4_shot_player_technically_removed():
    s = Scenario(
        "X4",
        "shot_player_technically_removed_before_morning",
        "FORMAT: the shot player removed (technical) before the morning leaves as 'removed', no best move, no "
        "last word; the next Day follows the Night directly.",
    )
    quiet_day1(s)
    s.x(step="mafia_shot")
    s.a("shots", by={"8": 4, "9": 4, "10": 4})
    s.nx()
    s.x(step="sheriff_check")
    s.a("remove", seat=4)
    s.x(step="sheriff_check", at_table=table(4))
    s.a("sheriff_check", target=4)
    s.x(step="speech", day=2, speaker=2, best_move=None, left=[left(4, "removed", 1, "night")])
    s.speeches([2, 3, 5, 6, 7, 8, 9, 10, 1], noms={2: 3})
    s.x(step="voting", nominees=[3])
    return s


SCENARIOS = [
    s_setup_game_actions_refused,
    s_penalty_refusals,
    s_x4_remove_tie_speaker,
    s_x4_remove_nominee_at_voting_day1,
    s_x4_remove_only_nominee_day2,
    s_v4_revote_nonvoters,
    s_v10_lift_after_fewer,
    s_v6_two_way_top,
    s_v7_single_top,
    s_f7_two_n0_removals,
    s_f9_after_result_and_night,
    s_f10_day2_one_cancelling_one_technical,
    s_f10_day3_after_double,
    s_f7_removal_in_morning_last_word,
    s_w4_n1_shot_in_window,
    s_w4_night1_disqualification,
    s_n8_black_victim_counts,
    s_n4_self_checks_and_wrong_steps,
    s_x4_shot_player_technically_removed,
]


def s_d6_fouls_in_night():
    s = Scenario(
        "D6",
        "three_fouls_in_night_silence_next_day",
        "D6: three fouls given in Night 1 -> his Day 2 speech has 0 s (step kept).",
    )
    quiet_day1(s)
    s.x(step="mafia_shot")
    for _ in range(3):
        s.a("foul", seat=6)
    s.nx()
    s.nx()
    s.nx()
    s.speeches([2, 3, 4, 5], secs={5: 60})
    s.x(step="speech", day=2, speaker=6, speech_seconds=0, fouls={"6": 3})
    s.nx()
    s.x(step="speech", speaker=7, speech_seconds=60)
    return s


def s_f6_three_at_table():
    s = Scenario(
        "F6",
        "three_fouls_30s_with_3_and_4_at_table",
        "F6: 3 fouls with 4 at the table -> 30 s (Day 1); with 3 at the table -> 30 s (Day 2).",
    )
    s.setup()
    for seat in (9, 10, 2, 3, 4, 7):
        s.a("remove", seat=seat)
    s.to_day1()
    s.x(step="speech", speaker=1, at_table=[1, 5, 6, 8])
    for _ in range(3):
        s.a("foul", seat=5)
    s.a("nominate", by=1, target=6)
    s.nx()
    s.x(step="speech", speaker=5, speech_seconds=30)
    s.a("nominate", by=5, target=8)
    s.nx()
    s.speeches([6, 8], secs={6: 60, 8: 60})
    s.vote({6: [1, 5, 6]})  # 8 -> 8
    s.x(step="last_word", speaker=6, at_table=[1, 5, 8], winner=None)
    s.nx()
    s.night()
    s.x(step="speech", day=2, speaker=5, speech_seconds=60)
    for _ in range(3):
        s.a("foul", seat=8)
    s.nx()
    s.x(step="speech", speaker=8, speech_seconds=30)
    s.nx()
    s.x(step="speech", speaker=1, speech_seconds=60)
    return s


def s_x4_tie_candidate_removed_day1():
    s = Scenario(
        "X4",
        "day1_tie_candidate_removed_one_left_night",
        "FORMAT: a tied candidate technically removed during his own (last) tie speech on Day 1 leaves one "
        "candidate: Night, nobody else leaves.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.nx()
    s.x(step="tie_speech", speaker=4)
    s.a("remove", seat=4)
    s.x(step="mafia_shot", phase="night", day=1, left=[left(4, "removed", 1, "day")], nominees=[])
    return s


def s_x4_tie_candidate_removed_day2():
    s = Scenario(
        "X4",
        "day2_tie_candidate_removed_revote_single",
        "FORMAT: on Day 2 a tied candidate technically removed during his own (last) tie speech: the revote "
        "is held among the others (here one), who then collects every vote.",
    )
    quiet_day1(s)
    s.night()
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1], noms={2: 3, 3: 4})
    s.vote({3: [1, 2, 3, 5, 6], 4: [4, 7, 8, 9, 10]})
    s.nx()
    s.x(step="tie_speech", speaker=4)
    s.a("remove", seat=4)
    s.x(step="voting", nominees=[3], left=[left(4, "removed", 2, "day")])
    s.a("votes", **{"for": {}})
    s.x(step="last_word", speaker=3, left=[left(4, "removed", 2, "day"), left(3, "vote", 2, "day")])
    return s


def s_n2_shooter_removed_after_shots():
    s = Scenario(
        "N2",
        "shooter_disqualified_after_shots_kill_stands",
        "N2/FORMAT: the kill is decided when all blacks name the same seat; a shooter disqualified later in "
        "the Night does not undo it (the victim leaves in the morning).",
    )
    quiet_day1(s)
    s.x(step="mafia_shot")
    s.a("shots", by={"8": 1, "9": 1, "10": 1})
    s.x(step="don_check")
    s.a("disqualify", seat=9)
    s.nx()
    s.nx()
    s.x(step="best_move")
    s.nx()
    s.x(step="last_word", speaker=1, left=[left(9, "disqualified", 1, "night"), left(1, "shot", 1, "night")])
    return s


SCENARIOS += [
    s_d6_fouls_in_night,
    s_f6_three_at_table,
    s_x4_tie_candidate_removed_day1,
    s_x4_tie_candidate_removed_day2,
    s_n2_shooter_removed_after_shots,
]


def s_f7_removal_day1_without_vote():
    s = Scenario(
        "F7",
        "day1_removal_when_day1_has_no_vote_day2_still_votes",
        "F10 INTERP (timing decides): a disqualification on Day 1 before its result cancels Day 1's vote "
        "even though Day 1 then has no nominations at all; it is not carried to Day 2, which votes.",
    )
    s.setup().to_day1()
    s.x(step="speech", speaker=1)
    s.a("disqualify", seat=7)
    s.speeches([1, 2, 3, 4, 5, 6, 8, 9, 10])
    s.x(step="mafia_shot", day=1)
    s.night()
    s.speeches([2, 3, 4, 5, 6, 8, 9, 10, 1], noms={2: 3})
    s.x(step="voting", nominees=[3])
    return s


def s_f10_day2_removal_then_night2():
    s = Scenario(
        "F10",
        "day2_removal_then_night2_removal_cancel_day2_and_day3",
        "F10 INTERP: a removal on Day 2 before its result cancels Day 2's vote; a removal in Night 2 cancels "
        "the next Day's (Day 3) vote; Day 4 votes.",
    )
    quiet_day1(s)
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.a("disqualify", seat=6)
    s.speeches([2, 3, 4, 5, 7, 8, 9, 10, 1], noms={3: 4})
    s.x(step="mafia_shot", day=2, nominees=[])
    s.a("disqualify", seat=7)
    s.nx()
    s.nx()
    s.nx()
    s.x(step="speech", day=3, speaker=3, at_table=[1, 2, 3, 4, 5, 8, 9, 10])
    s.speeches([3, 4, 5, 8, 9, 10, 1, 2], noms={3: 4})
    s.x(step="mafia_shot", day=3, nominees=[])
    s.night()
    s.x(step="speech", day=4, speaker=4, status="running")
    s.speeches([4, 5, 8, 9, 10, 1, 2, 3], noms={4: 8})
    s.x(step="voting", nominees=[8])
    return s


SCENARIOS += [s_f7_removal_day1_without_vote, s_f10_day2_removal_then_night2]


def s_f6_counted_at_moment_of_speech():
    s = Scenario(
        "F6",
        "table_size_counted_at_the_moment_of_the_speech",
        "F6 'at the moment of that speech': 3 fouls with 5 at the table at the start of Day 1; a removal "
        "during the Day leaves 4 before his speech -> 30 s.",
    )
    s.setup()
    for seat in (9, 10, 2, 3, 4):
        s.a("remove", seat=seat)
    s.to_day1()
    s.x(step="speech", speaker=1, at_table=[1, 5, 6, 7, 8])
    for _ in range(3):
        s.a("foul", seat=7)
    s.nx()
    s.x(step="speech", speaker=5)
    s.a("remove", seat=6)
    s.nx()
    s.x(step="speech", speaker=7, speech_seconds=30, at_table=[1, 5, 7, 8])
    return s


SCENARIOS += [s_f6_counted_at_moment_of_speech]
