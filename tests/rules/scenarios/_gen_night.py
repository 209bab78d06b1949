"""Scenarios: Night (N2 shots, N4 checks, N6-N10 best move), the morning."""

from _lib import Scenario, left, table

ALL = list(range(1, 11))


def quiet_day1(s):
    s.setup().to_day1()
    s.speeches(range(1, 11))
    return s


def s_n2_misses_and_refusals():
    s = Scenario(
        "N2",
        "misses_and_shot_refusals",
        "N2 INTERP: different targets, a black naming nobody (null), a black not listed, or `next` are "
        "misses; shots keyed by a red or by a black no longer at the table, or naming a seat not at the "
        "table, are refused.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 9, 2: 3})
    s.vote({9: [1, 2, 3, 4, 5, 6, 7]})
    s.x(step="last_word", speaker=9)
    s.nx()
    s.x(step="mafia_shot", day=1)
    s.rej("shots", by={"1": 2})
    s.rej("shots", by={"8": 2, "9": 2, "10": 2})
    s.rej("shots", by={"8": 9, "10": 9})
    s.rej("shots", by={"8": 2, "10": 2, "5": 2})
    s.x(step="mafia_shot", at_table=table(9))
    s.a("shots", by={"8": 2, "10": 3})
    s.x(step="don_check")
    s.nx()
    s.x(step="sheriff_check")
    s.nx()
    s.x(step="speech", day=2, speaker=2, at_table=table(9), left=[left(9, "vote", 1, "day")], best_move=None)
    s.speeches([2, 3, 4, 5, 6, 7, 8, 10, 1], noms={2: 3})
    s.vote({3: []})
    s.x(step="last_word", speaker=3)
    s.nx()
    s.x(step="mafia_shot", day=2)
    s.a("shots", by={"8": 4})  # 10 not listed: named nobody -> miss
    s.x(step="don_check")
    s.nx()
    s.nx()
    s.x(step="speech", day=3, speaker=4, at_table=[1, 2, 4, 5, 6, 7, 8, 10])
    s.speeches([4, 5, 6, 7, 8, 10, 1, 2])
    s.night()  # `next` on mafia_shot: miss
    s.x(step="speech", day=4, speaker=5, at_table=[1, 2, 4, 5, 6, 7, 8, 10], status="running")
    s.speeches([5, 6, 7, 8, 10, 1, 2, 4], noms={5: 5})
    s.vote({5: []})
    s.x(step="last_word", speaker=5)
    s.nx()
    s.x(step="mafia_shot", day=4)
    s.a("shots", by={"8": 4, "10": None})
    s.x(step="don_check")
    s.nx()
    s.x(
        step="speech",
        day=5,
        speaker=6,
        at_table=[1, 2, 4, 6, 7, 8, 10],
        left=[left(9, "vote", 1, "day"), left(3, "vote", 2, "day"), left(5, "vote", 4, "day")],
    )
    return s


def s_n2_black_names_nobody_self_target():
    s = Scenario(
        "N2",
        "target_black_names_nobody_is_miss",
        "N2 INTERP: a black at the table who names nobody makes it a miss, even if he is the one the others "
        "name; then all three naming the same black (10) is a kill.",
    )
    quiet_day1(s)
    s.night(shots={8: 10, 9: 10, 10: None})
    s.x(step="speech", day=2, speaker=2, at_table=ALL, left=[])
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1])
    s.night(shots={8: 10, 9: 10, 10: 10})
    s.x(step="last_word", speaker=10, phase="night", day=2, left=[left(10, "shot", 2, "night")], best_move=None)
    return s


def s_n2_shoot_blacks_red_win():
    s = Scenario(
        "N2",
        "blacks_shoot_blacks_until_red_win",
        "N2: blacks may shoot a black (own seat included); N1 black victim leaves a best move (N10); the Don "
        "shot keeps his own check step (N4/W1); the last black shooting himself: red wins at the shot (W1), "
        "the Night's checks are not held, the morning and his W2 last word with status running and winner "
        "red, `next` -> finished.",
    )
    quiet_day1(s)
    s.night(shots={8: 9, 9: 9, 10: 9})
    s.x(step="best_move", at_table=ALL)
    s.a("best_move", seats=[8, 10, 1])
    s.x(
        step="last_word",
        speaker=9,
        phase="night",
        day=1,
        left=[left(9, "shot", 1, "night")],
        best_move={"seat": 9, "seats": [8, 10, 1], "blacks": 2},
    )
    s.nx()
    s.speeches([2, 3, 4, 5, 6, 7, 8, 10, 1])
    s.night(shots={8: 10, 10: 10})
    s.x(step="last_word", speaker=10, phase="night", day=2)
    s.nx()
    s.x(step="speech", day=3, speaker=3)
    s.speeches([3, 4, 5, 6, 7, 8, 1, 2])
    s.x(step="mafia_shot", day=3)
    s.a("shots", by={"8": 8})
    s.x(
        step="last_word",
        speaker=8,
        phase="night",
        day=3,
        status="running",
        winner="red",
        at_table=[1, 2, 3, 4, 5, 6, 7],
        left=[left(9, "shot", 1, "night"), left(10, "shot", 2, "night"), left(8, "shot", 3, "night")],
        checks=[],
    )
    s.rej("don_check", target=5)
    s.rej("sheriff_check", target=8)
    s.nx()
    s.x(status="finished", step="finished", winner="red", speaker=None, checks=[])
    s.rej("next")
    return s


def s_n4_checks_left_seats():
    s = Scenario(
        "N4",
        "checks_of_any_seat_including_left",
        "N4 INTERP: the Don and the Sheriff may check a seat that has left (9 voted out: Don false, Sheriff "
        "black; the Sheriff after he left: Don true); a captain no longer at the table has no check step.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 9, 2: 6})
    s.vote({9: [1, 2, 3, 4, 5, 7]})
    s.x(step="last_word", speaker=9)
    s.nx()
    s.x(step="mafia_shot")
    s.a("shots", by={"8": 1, "10": 1})
    s.x(step="don_check")
    s.a("don_check", target=9)
    s.x(step="sheriff_check", checks=[{"night": 1, "by": "don", "target": 9, "result": False}])
    s.a("sheriff_check", target=9)
    s.x(
        step="best_move",
        checks=[
            {"night": 1, "by": "don", "target": 9, "result": False},
            {"night": 1, "by": "sheriff", "target": 9, "result": "black"},
        ],
    )
    s.a("best_move", accepted=False)
    s.x(step="last_word", speaker=1, best_move=None)
    s.nx()
    s.x(step="speech", day=2, speaker=2)
    s.speeches([2, 3, 4, 5, 6, 7, 8, 10], noms={2: 5})
    s.vote({5: []})
    s.x(step="last_word", speaker=5)
    s.nx()
    s.x(step="mafia_shot", day=2)
    s.nx()
    s.x(step="don_check")
    s.a("don_check", target=5)
    s.x(
        step="speech",
        day=3,
        speaker=3,
        checks=[
            {"night": 1, "by": "don", "target": 9, "result": False},
            {"night": 1, "by": "sheriff", "target": 9, "result": "black"},
            {"night": 2, "by": "don", "target": 5, "result": True},
        ],
    )
    return s


def s_n4_sheriff_shot_checks():
    s = Scenario(
        "N4",
        "sheriff_shot_keeps_his_check_and_best_move",
        "N4/W1: the Sheriff shot in N1 keeps his seat (so he may still wink / take a tech pause) and his check "
        "step until the morning (red result), "
        "leaves a best move (3 blacks), then his last word; in N2 there is no Sheriff check step.",
    )
    quiet_day1(s)
    s.night(shots={8: 5, 9: 5, 10: 5}, don=5, sheriff=3)
    s.x(
        step="best_move",
        at_table=ALL,
        left=[],
        checks=[
            {"night": 1, "by": "don", "target": 5, "result": True},
            {"night": 1, "by": "sheriff", "target": 3, "result": "red"},
        ],
    )
    s.a("wink", by=5, target=1)  # still at the table until the morning
    s.a("tech_pause", seat=5)
    s.x(step="best_move", at_table=ALL)
    s.a("best_move", seats=[8, 9, 10])
    s.x(
        step="last_word",
        speaker=5,
        best_move={"seat": 5, "seats": [8, 9, 10], "blacks": 3},
        left=[left(5, "shot", 1, "night")],
        at_table=table(5),
    )
    s.nx()
    s.x(step="speech", day=2, speaker=2, best_move={"seat": 5, "seats": [8, 9, 10], "blacks": 3})
    s.speeches([2, 3, 4, 6, 7, 8, 9, 10, 1])
    s.night(sheriff_present=False)
    s.x(step="speech", day=3, speaker=3)
    return s


def s_n4_captains_removed_on_check_steps():
    s = Scenario(
        "N4",
        "captains_removed_on_their_check_steps",
        "FORMAT: a captain removed on his check step: that step is skipped (Don disqualified on don_check, "
        "Sheriff on sheriff_check); the N1 victim still gets his best move; Night removals cancel Day 2's "
        "vote (F10 INTERP); in N2 with both captains gone the Night is just the shot.",
        note="Two cancelling removals in Night 1: Day 3's vote is not asserted (the original F10 text "
        "'several removed before the result of Day 2' vs the INTERP 'on Day 2'). ",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 2, 3, 5, 6, 7]})
    s.x(step="last_word", speaker=2)
    s.nx()
    s.x(step="mafia_shot")
    s.a("shots", by={"8": 3, "9": 3, "10": 3})
    s.x(step="don_check")
    s.a("disqualify", seat=8)
    s.x(step="sheriff_check", left=[left(2, "vote", 1, "day"), left(8, "disqualified", 1, "night")])
    s.a("disqualify", seat=5)
    s.x(
        step="best_move",
        at_table=[1, 3, 4, 6, 7, 9, 10],
        left=[left(2, "vote", 1, "day"), left(8, "disqualified", 1, "night"), left(5, "disqualified", 1, "night")],
    )
    s.a("best_move", seats=[9, 10])
    s.x(
        step="last_word",
        speaker=3,
        best_move={"seat": 3, "seats": [9, 10], "blacks": 2},
        left=[
            left(2, "vote", 1, "day"),
            left(8, "disqualified", 1, "night"),
            left(5, "disqualified", 1, "night"),
            left(3, "shot", 1, "night"),
        ],
    )
    s.nx()
    s.x(step="speech", day=2, speaker=4, at_table=[1, 4, 6, 7, 9, 10])
    s.speeches([4, 6, 7, 9, 10, 1], noms={4: 6})
    s.x(step="mafia_shot", day=2, nominees=[], phase="night")
    s.a("shots", by={"9": 6, "10": 6})
    s.x(step="last_word", speaker=6, phase="night", day=2, at_table=[1, 4, 7, 9, 10])
    s.nx()
    s.x(step="speech", day=3, speaker=7)
    return s


def s_n6_best_move_shape():
    s = Scenario(
        "N6",
        "best_move_state_shape_and_persists",
        "N6: best move of the N1 red victim: {seat, seats, blacks}; kept in the state afterwards.",
    )
    quiet_day1(s)
    s.night(shots={8: 2, 9: 2, 10: 2})
    s.x(step="best_move", speaker=None, speech_seconds=None, best_move=None)
    s.a("best_move", seats=[8, 9, 3])
    bm = {"seat": 2, "seats": [8, 9, 3], "blacks": 2}
    s.x(step="last_word", speaker=2, best_move=bm, speech_seconds=60)
    s.nx()
    s.x(step="speech", day=2, speaker=3, best_move=bm)
    return s


def s_n8_best_move_repeat_own():
    s = Scenario(
        "N8",
        "best_move_repeated_and_own_seat",
        "N8: a repeated seat is accepted but counts once; his own seat is accepted.",
    )
    quiet_day1(s)
    s.night(shots={8: 4, 9: 4, 10: 4})
    s.a("best_move", seats=[9, 9, 4])
    s.x(step="last_word", speaker=4, best_move={"seat": 4, "seats": [9, 9, 4], "blacks": 1})
    return s


def s_n7_best_move_not_accepted():
    s = Scenario("N7", "best_move_not_accepted_is_null", "N7/N8: accepted false -> best_move null, then the last word.")
    quiet_day1(s)
    s.night(shots={8: 6, 9: 6, 10: 6})
    s.x(step="best_move")
    s.a("best_move", accepted=False)
    s.x(step="last_word", speaker=6, best_move=None, left=[left(6, "shot", 1, "night")])
    return s


def s_n6_best_move_pass_and_next():
    s = Scenario("N6", "best_move_next_means_none", "FORMAT: `next` on best_move = none left -> best_move null.")
    quiet_day1(s)
    s.night(shots={8: 7, 9: 7, 10: 7})
    s.x(step="best_move")
    s.nx()
    s.x(step="last_word", speaker=7, best_move=None)
    return s


def s_n7_best_move_empty_and_too_many():
    s = Scenario(
        "N7",
        "best_move_empty_seats_and_four_refused",
        "N7 INTERP / FORMAT: seats [] names nobody: not accepted, best_move stays null (issue 21); four seats refused.",
    )
    quiet_day1(s)
    s.night(shots={8: 1, 9: 1, 10: 1})
    s.x(step="best_move")
    s.rej("best_move", seats=[8, 9, 10, 2])
    s.x(step="best_move", best_move=None)
    s.a("best_move", seats=[])
    s.x(step="last_word", speaker=1, best_move=None)
    return s


def s_n9_one_voted_one_disqualified():
    s = Scenario(
        "N9",
        "best_move_kept_when_one_voted_one_disqualified",
        "N9 counts only players who left by the Day 1 vote: one voted out plus one disqualified during his "
        "last word (after the result) -> best move still given. F8: that removal cancels Day 2's vote "
        "only; Day 3 votes.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 2, 3, 5, 6, 7]})
    s.x(step="last_word", speaker=2)
    s.a("disqualify", seat=7)
    s.x(
        step="last_word",
        speaker=2,
        left=[left(2, "vote", 1, "day"), left(7, "disqualified", 1, "day")],
        at_table=[1, 3, 4, 5, 6, 8, 9, 10],
    )
    s.nx()
    s.night(shots={8: 1, 9: 1, 10: 1})
    s.x(step="best_move")
    s.a("best_move", seats=[8])
    s.x(step="last_word", speaker=1, best_move={"seat": 1, "seats": [8], "blacks": 1})
    s.nx()
    s.x(step="speech", day=2, speaker=3, at_table=[3, 4, 5, 6, 8, 9, 10])
    s.speeches([3, 4, 5, 6, 8, 9, 10], noms={3: 4})
    s.x(step="mafia_shot", day=2, nominees=[])
    s.nx()
    s.nx()
    s.nx()
    s.x(step="speech", day=3, speaker=4)
    s.speeches([4, 5, 6, 8, 9, 10, 3], noms={4: 8})
    s.x(step="voting", nominees=[8])
    s.vote({8: []})
    s.x(step="last_word", speaker=8, winner=None)
    return s


def s_n6_no_best_move_n2():
    s = Scenario(
        "N6",
        "no_best_move_after_n1_miss_and_in_n2",
        "N6: best move only for the N1 victim: an N1 miss gives none; the N2 victim has no best_move step.",
    )
    quiet_day1(s)
    s.night()
    s.x(step="speech", day=2, speaker=2, best_move=None, left=[])
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1])
    s.night(shots={8: 3, 9: 3, 10: 3})
    s.x(step="last_word", speaker=3, phase="night", day=2, best_move=None, left=[left(3, "shot", 2, "night")])
    s.nx()
    s.x(step="speech", day=3, speaker=3 + 1)
    return s


def s_n10_shot_removed_before_morning():
    s = Scenario(
        "N10",
        "shot_player_disqualified_before_morning",
        "FORMAT: the player shot and then removed before the morning leaves with the removal's how, no best "
        "move, no last word; F10 INTERP: removing the player shot this Night does not cancel a vote.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 2, 3, 5, 6, 7]})
    s.nx()
    s.x(step="mafia_shot")
    s.a("shots", by={"8": 6, "9": 6, "10": 6})
    s.x(step="don_check")
    s.a("disqualify", seat=6)
    s.x(
        step="don_check",
        at_table=[1, 3, 4, 5, 7, 8, 9, 10],
        left=[left(2, "vote", 1, "day"), left(6, "disqualified", 1, "night")],
    )
    s.nx()
    s.x(step="sheriff_check")
    s.nx()
    s.x(
        step="speech",
        phase="day",
        day=2,
        speaker=3,
        best_move=None,
        left=[left(2, "vote", 1, "day"), left(6, "disqualified", 1, "night")],
    )
    s.speeches([3, 4, 5, 7, 8, 9, 10, 1], noms={3: 4})
    s.x(step="voting", nominees=[4])
    s.vote({4: []})
    s.x(step="last_word", speaker=4)
    return s


def s_n10_shot_removed_on_best_move():
    s = Scenario(
        "N10",
        "shot_player_fouled_out_on_best_move",
        "FORMAT: the shot player removed (4th foul) on best_move: the step is skipped, no last word; fouls "
        "keeps his count; Day 2's vote is held.",
    )
    quiet_day1(s)
    s.night(shots={8: 6, 9: 6, 10: 6})
    s.x(step="best_move")
    s.a("foul", seat=6)
    s.a("foul", seat=6)
    s.a("foul", seat=6)
    s.x(step="best_move", fouls={"6": 3}, at_table=ALL)
    s.a("foul", seat=6)
    s.x(
        step="speech",
        phase="day",
        day=2,
        speaker=2,
        fouls={"6": 4},
        best_move=None,
        left=[left(6, "fouls", 1, "night")],
        at_table=table(6),
    )
    s.speeches([2, 3, 4, 5, 7, 8, 9, 10, 1], noms={2: 3})
    s.x(step="voting", nominees=[3])
    s.vote({3: []})
    s.x(step="last_word", speaker=3)
    return s


def s_morning_order():
    s = Scenario(
        "N5",
        "morning_shot_leaves_then_last_word",
        "FORMAT Night: the shot player keeps his seat through don_check, sheriff_check, best_move; in the "
        "morning he leaves (how shot, the Night's day, phase night), then his 60 s last word in phase night, "
        "then the next Day.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 3, 2: 4})
    s.vote({3: [1, 2, 3, 5, 6, 7]})
    s.x(step="last_word", speaker=3, phase="day", day=1)
    s.nx()
    s.x(step="mafia_shot", phase="night", day=1, nominees=[], speaker=None, speech_seconds=None)
    s.a("shots", by={"8": 7, "9": 7, "10": 7})
    s.x(step="don_check", at_table=table(3), left=[left(3, "vote", 1, "day")])
    s.a("don_check", target=7)
    s.x(step="sheriff_check", at_table=table(3))
    s.a("sheriff_check", target=7)
    s.x(
        step="best_move",
        at_table=table(3),
        phase="night",
        day=1,
        checks=[
            {"night": 1, "by": "don", "target": 7, "result": False},
            {"night": 1, "by": "sheriff", "target": 7, "result": "red"},
        ],
    )
    s.a("best_move", **{"pass": True})
    s.x(
        step="last_word",
        speaker=7,
        phase="night",
        day=1,
        speech_seconds=60,
        status="running",
        winner=None,
        at_table=table(3, 7),
        nominees=[],
        best_move=None,
        left=[left(3, "vote", 1, "day"), left(7, "shot", 1, "night")],
    )
    s.nx()
    s.x(step="speech", phase="day", day=2, speaker=2, speech_seconds=60, nominees=[])
    return s


SCENARIOS = [
    s_n2_misses_and_refusals,
    s_n2_black_names_nobody_self_target,
    s_n2_shoot_blacks_red_win,
    s_n4_checks_left_seats,
    s_n4_sheriff_shot_checks,
    s_n4_captains_removed_on_check_steps,
    s_n6_best_move_shape,
    s_n8_best_move_repeat_own,
    s_n7_best_move_not_accepted,
    s_n6_best_move_pass_and_next,
    s_n7_best_move_empty_and_too_many,
    s_n9_one_voted_one_disqualified,
    s_n6_no_best_move_n2,
    s_n10_shot_removed_before_morning,
    s_n10_shot_removed_on_best_move,
    s_morning_order,
]
