"""Scenarios: result (W1-W6), winks (N12), technical pauses (D7)."""

from _lib import Scenario, left, table

ALL = list(range(1, 11))
N0_RED3 = [left(s, "removed", 0, "night") for s in (2, 3, 4)]


def quiet_day1(s):
    s.setup().to_day1()
    s.speeches(range(1, 11))
    return s


def three_reds_removed(s):
    """N0: reds 2, 3, 4 removed technically -> reds 1, 5, 6, 7 against blacks 8, 9, 10."""
    s.setup()
    for seat in (2, 3, 4):
        s.a("remove", seat=seat)
    s.x(at_table=[1, 5, 6, 7, 8, 9, 10], winner=None, status="running", left=N0_RED3)
    s.to_day1()
    return s


def s_w1_black_win_removal():
    s = Scenario(
        "W1",
        "black_win_at_once_by_technical_removal",
        "W1 INTERP: any removal is checked at once: a technical removal leaving 3 reds against 3 blacks ends "
        "the game (black), no last word; afterwards every action but expect is refused.",
    )
    three_reds_removed(s)
    s.x(step="speech", speaker=1)
    s.a("remove", seat=6)
    s.x(
        status="finished",
        step="finished",
        winner="black",
        speaker=None,
        speech_seconds=None,
        at_table=[1, 5, 7, 8, 9, 10],
        left=N0_RED3 + [left(6, "removed", 1, "day")],
        ppk=None,
    )
    s.rej("next")
    s.rej("foul", seat=1)
    s.rej("remove", seat=7)
    s.rej("nominate", by=1, target=5)
    s.x(status="finished", winner="black")
    return s


def s_w1_black_win_fourth_foul():
    s = Scenario(
        "W1",
        "black_win_at_once_by_fourth_foul",
        "W1 INTERP/F3: a 4th foul leaving reds = blacks ends the game at once, black wins, no last word.",
    )
    three_reds_removed(s)
    s.speeches([1])
    s.x(step="speech", speaker=5)
    for _ in range(3):
        s.a("foul", seat=7)
    s.x(status="running", winner=None)
    s.a("foul", seat=7)
    s.x(
        status="finished",
        step="finished",
        winner="black",
        speaker=None,
        fouls={"7": 4},
        left=N0_RED3 + [left(7, "fouls", 1, "day")],
    )
    return s


def s_w2_black_win_vote_w3():
    s = Scenario(
        "W2",
        "black_win_by_vote_last_word_then_w3",
        "W2: the deciding leaver keeps his last word, status running, winner black; W3: a disqualification "
        "then moves the player to left, winner unchanged; `next` -> finished; then actions are refused.",
    )
    three_reds_removed(s)
    s.speeches([1, 5, 6, 7, 8, 9, 10], noms={1: 6, 5: 7})
    s.x(step="voting", nominees=[6, 7])
    s.vote({6: [1, 5, 6, 7, 8, 9]})
    s.x(
        step="last_word",
        speaker=6,
        speech_seconds=60,
        status="running",
        winner="black",
        at_table=[1, 5, 7, 8, 9, 10],
        left=N0_RED3 + [left(6, "vote", 1, "day")],
    )
    s.a("foul", seat=1)
    s.x(step="last_word", speaker=6, fouls={"1": 1}, winner="black", status="running")
    s.rej("nominate", by=6, target=1)
    s.a("disqualify", seat=7)
    s.x(
        step="last_word",
        speaker=6,
        status="running",
        winner="black",
        at_table=[1, 5, 8, 9, 10],
        left=N0_RED3 + [left(6, "vote", 1, "day"), left(7, "disqualified", 1, "day")],
    )
    s.nx()
    s.x(status="finished", step="finished", winner="black", speaker=None)
    s.rej("next")
    s.rej("foul", seat=1)
    s.rej("annul")
    s.rej("ppk", team="black")
    s.rej("tech_pause", seat=1)
    s.x(status="finished", winner="black", ppk=None)
    return s


def s_w3_disqualify_deciding_speaker():
    s = Scenario(
        "W3",
        "deciding_leaver_disqualified_in_his_last_word",
        "W3 + FORMAT: a removing penalty ends the deciding player's last word at once (game finished), his "
        "left entry keeps 'vote', the winner stays.",
    )
    three_reds_removed(s)
    s.speeches([1, 5, 6, 7, 8, 9, 10], noms={1: 6, 5: 7})
    s.vote({6: [1, 5, 6, 7, 8, 9]})
    s.x(step="last_word", speaker=6, winner="black", status="running")
    s.a("disqualify", seat=6)
    s.x(
        status="finished",
        step="finished",
        winner="black",
        left=N0_RED3 + [left(6, "vote", 1, "day")],
        at_table=[1, 5, 7, 8, 9, 10],
    )
    return s


def s_w1_red_win_lift_vote():
    s = Scenario(
        "W1",
        "red_win_by_lift_vote_two_last_words",
        "W1/W2/V10: both remaining blacks leave by a lift vote (5 yes of 8): red wins; each still has a last "
        "word (nomination order), status running; then finished.",
    )
    s.setup()
    s.a("remove", seat=10)
    s.a("remove", seat=7)
    s.to_day1()
    s.speeches([1, 2, 3, 4, 5, 6, 8, 9], noms={1: 8, 2: 9})
    s.vote({8: [1, 2, 3, 4], 9: [5, 6, 8, 9]})
    s.x(step="tie_speech", speaker=8)
    s.nx()
    s.x(step="tie_speech", speaker=9)
    s.nx()
    s.vote({8: [1, 2, 3, 4], 9: [5, 6, 8, 9]})
    s.x(step="lift_vote", nominees=[8, 9])
    s.a("lift_vote", yes=[1, 2, 3, 4, 5])
    s.x(
        step="last_word",
        speaker=8,
        status="running",
        winner="red",
        at_table=[1, 2, 3, 4, 5, 6],
        left=[
            left(10, "removed", 0, "night"),
            left(7, "removed", 0, "night"),
            left(8, "lift_vote", 1, "day"),
            left(9, "lift_vote", 1, "day"),
        ],
    )
    s.nx()
    s.x(step="last_word", speaker=9, status="running", winner="red")
    s.nx()
    s.x(status="finished", step="finished", winner="red")
    return s


def s_w5_ppk():
    s = Scenario(
        "W5",
        "ppk_refused_wrong_team_then_game_over",
        "W5: ppk whose seat is not of that team is refused; ppk black -> winner red, ppk black, finished; "
        "then every action but expect is refused.",
    )
    s.setup().to_day1()
    s.rej("ppk", team="black", seat=1)
    s.rej("ppk", team="red", seat=8)
    s.x(status="running", winner=None, ppk=None)
    s.a("ppk", team="black", seat=9)
    s.x(status="finished", step="finished", winner="red", ppk="black", speaker=None, speech_seconds=None)
    s.rej("next")
    s.rej("foul", seat=2)
    s.rej("ppk", team="red")
    s.rej("annul")
    s.rej("wink", by=8, target=1)
    s.rej("tech_pause", seat=1)
    s.rej("nominate", by=1, target=2)
    s.x(status="finished", winner="red", ppk="black")
    return s


def s_w5_ppk_red_night():
    s = Scenario(
        "W5",
        "ppk_red_without_seat_in_night",
        "W5: ppk of the red team (no seat) during a Night after a kill was named: black wins, flagged ppk red, "
        "the game ends at once (FORMAT: a ППК ends at once, before the morning: the player shot does not move to left).",
    )
    quiet_day1(s)
    s.x(step="mafia_shot")
    s.a("shots", by={"8": 1, "9": 1, "10": 1})
    s.x(step="don_check")
    s.a("ppk", team="red")
    s.x(status="finished", step="finished", winner="black", ppk="red", at_table=ALL, left=[])
    return s


def s_w5_ppk_during_w2():
    s = Scenario(
        "W5",
        "ppk_during_deciding_last_word_keeps_winner",
        "FORMAT: ppk during the W2 last word is recorded with the winner unchanged; the game is finished.",
    )
    s.setup()
    s.a("remove", seat=9)
    s.a("remove", seat=10)
    s.to_day1()
    s.speeches(range(1, 9), noms={1: 8, 2: 3})
    s.vote({8: [1, 2, 3, 4, 5, 6]})
    s.x(step="last_word", speaker=8, winner="red", status="running")
    s.a("ppk", team="red", seat=1)
    s.x(status="finished", step="finished", winner="red", ppk="red")
    s.rej("next")
    return s


def s_w6_annul():
    s = Scenario(
        "W6",
        "annul_then_everything_refused",
        "W6: annul -> status annulled, winner null, step finished; then every action but expect is refused.",
    )
    quiet_day1(s)
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.a("annul", reason="outsider")
    s.x(status="annulled", step="finished", winner=None, speaker=None)
    s.rej("next")
    s.rej("annul")
    s.rej("ppk", team="red")
    s.rej("foul", seat=1)
    s.rej("nominate", by=2, target=3)
    s.x(status="annulled", winner=None)
    return s


def s_w6_annul_during_w2():
    s = Scenario(
        "W6",
        "annul_during_deciding_last_word",
        "FORMAT: annul during the W2 last word makes the game annulled with winner null.",
    )
    s.setup()
    s.a("remove", seat=9)
    s.a("remove", seat=10)
    s.to_day1()
    s.speeches(range(1, 9), noms={1: 8, 2: 3})
    s.vote({8: [1, 2, 3, 4, 5, 6]})
    s.x(step="last_word", speaker=8, winner="red")
    s.a("annul")
    s.x(status="annulled", step="finished", winner=None)
    s.rej("next")
    return s


def s_w4_draw_basic():
    s = Scenario(
        "W4",
        "draw_after_night_3_nobody_left",
        "W4: nobody leaves from the start: no draw after Night 2; at the end of Night 3 the game is drawn at "
        "once (finished).",
    )
    quiet_day1(s)
    s.night()
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1])
    s.night()
    s.x(step="speech", day=3, speaker=3, status="running", winner=None)
    s.speeches([3, 4, 5, 6, 7, 8, 9, 10, 1, 2])
    s.night()
    s.x(status="finished", step="finished", winner="draw", left=[], at_table=ALL, speaker=None)
    s.rej("next")
    return s


def s_w4_draw_day1_leaver():
    s = Scenario(
        "W4",
        "draw_after_night_3_day1_leaver_outside_window",
        "W4: the window starts at Night k-2 = Night 1; a Day 1 leaver is before it: draw after Night 3.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.vote({2: [1, 2, 3, 5, 6, 7]})
    s.nx()
    s.night()
    s.x(step="speech", day=2, speaker=3)
    s.speeches([3, 4, 5, 6, 7, 8, 9, 10, 1])
    s.night()
    s.x(step="speech", day=3, speaker=4)
    s.speeches([4, 5, 6, 7, 8, 9, 10, 1, 3])
    s.night()
    s.x(status="finished", step="finished", winner="draw", left=[left(2, "vote", 1, "day")])
    return s


def s_w4_draw_day2_leaver():
    s = Scenario(
        "W4",
        "no_draw_after_night_3_when_day2_leaver",
        "W4: a Day 2 leaver is inside Night 3's window (from Night 1): no draw after Night 3; the draw comes "
        "at the end of Night 4 (window from Night 2).",
    )
    quiet_day1(s)
    s.night()
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1], noms={2: 3})
    s.vote({3: []})
    s.nx()
    s.night()
    s.x(step="speech", day=3, speaker=4)
    s.speeches([4, 5, 6, 7, 8, 9, 10, 1, 2])
    s.night()
    s.x(step="speech", day=4, speaker=5, status="running", winner=None)
    s.speeches([5, 6, 7, 8, 9, 10, 1, 2, 4])
    s.night()
    s.x(status="finished", step="finished", winner="draw", left=[left(3, "vote", 2, "day")])
    return s


def s_w4_draw_technical_removal():
    s = Scenario(
        "W4",
        "technical_removal_counts_for_draw_window",
        "W4 'nobody left the table in any way': a technical removal on Day 3 prevents the draw after Nights 3 "
        "and 4; draw after Night 5.",
    )
    quiet_day1(s)
    s.night()
    s.speeches([2, 3, 4, 5, 6, 7, 8, 9, 10, 1])
    s.night()
    s.x(step="speech", day=3, speaker=3)
    s.a("remove", seat=7)
    s.speeches([3, 4, 5, 6, 8, 9, 10, 1, 2])
    s.night()
    s.x(step="speech", day=4, speaker=4, status="running")
    s.speeches([4, 5, 6, 8, 9, 10, 1, 2, 3])
    s.night()
    s.x(step="speech", day=5, speaker=5, status="running", winner=None)
    s.speeches([5, 6, 8, 9, 10, 1, 2, 3, 4])
    s.night()
    s.x(status="finished", step="finished", winner="draw", left=[left(7, "removed", 3, "day")])
    return s


def s_n12_winks():
    s = Scenario(
        "N12",
        "winks_limits",
        "N12/FORMAT: winks only by a black or the Sheriff at the table, at most 2 each, not to himself, to a "
        "seat at the table.",
    )
    s.setup()
    s.a("wink", by=8, target=1)
    s.a("wink", by=8, target=2)
    s.rej("wink", by=8, target=3)
    s.rej("wink", by=1, target=2)
    s.rej("wink", by=5, target=5)
    s.rej("wink", by=9, target=9)
    s.a("wink", by=5, target=1)
    s.to_day1()
    s.speeches(range(1, 11), noms={1: 10, 2: 3})
    s.vote({10: [1, 2, 3, 4, 5, 6, 7]})
    s.x(step="last_word", speaker=10)
    s.rej("wink", by=10, target=1)
    s.nx()
    s.x(step="mafia_shot")
    s.rej("wink", by=9, target=10)
    s.a("wink", by=9, target=1)
    s.a("wink", by=9, target=3)
    s.rej("wink", by=9, target=4)
    s.a("wink", by=5, target=3)
    s.rej("wink", by=5, target=4)
    s.x(step="mafia_shot", at_table=table(10))
    return s


def s_d7_totals():
    s = Scenario(
        "D7",
        "tech_pause_round_and_game_totals",
        "D7: one per player per round; at most 2 per round (N0 = round 0, incl. free seating) and 3 per game in total.",
    )
    s.setup()
    s.a("tech_pause", seat=1)
    s.rej("tech_pause", seat=1)
    s.a("tech_pause", seat=2)
    s.rej("tech_pause", seat=3)
    s.nx()
    s.x(step="free_seating")
    s.rej("tech_pause", seat=3)
    s.nx()
    s.x(step="speech", day=1, speaker=1)
    s.a("tech_pause", seat=3)
    s.rej("tech_pause", seat=4)
    s.speeches(range(1, 11))
    s.x(step="mafia_shot")
    s.rej("tech_pause", seat=5)
    return s


def s_d7_player_limits():
    s = Scenario(
        "D7",
        "tech_pause_player_round_and_game_limits",
        "D7: a round is a Day and the Night after it (Day 1 then Night 1: refused); a player has two per "
        "game (third refused in round 2 although the game total is 2).",
    )
    s.setup()
    s.a("tech_pause", seat=1)
    s.to_day1()
    s.a("tech_pause", seat=1)
    s.speeches(range(1, 11))
    s.x(step="mafia_shot")
    s.rej("tech_pause", seat=1)
    s.night()
    s.x(step="speech", day=2, speaker=2)
    s.rej("tech_pause", seat=1)
    s.a("tech_pause", seat=2)
    s.rej("tech_pause", seat=3)
    return s


def s_d7_morning_round():
    s = Scenario(
        "D7",
        "tech_pause_morning_last_word_is_nights_round",
        "D7 FORMAT: the morning last word belongs to the Night's round (round 1 already has 2); the player in "
        "his own last word is not at the table; Day 2 is a new round.",
    )
    s.setup().to_day1()
    s.a("tech_pause", seat=1)
    s.a("tech_pause", seat=2)
    s.speeches(range(1, 11))
    s.night(shots={8: 3, 9: 3, 10: 3})
    s.nx()
    s.x(step="last_word", speaker=3, phase="night")
    s.rej("tech_pause", seat=4)
    s.rej("tech_pause", seat=3)
    s.nx()
    s.x(step="speech", day=2, speaker=2)
    s.a("tech_pause", seat=4)
    s.x(step="speech", day=2, speaker=2)
    return s


SCENARIOS = [
    s_w1_black_win_removal,
    s_w1_black_win_fourth_foul,
    s_w2_black_win_vote_w3,
    s_w3_disqualify_deciding_speaker,
    s_w1_red_win_lift_vote,
    s_w5_ppk,
    s_w5_ppk_red_night,
    s_w5_ppk_during_w2,
    s_w6_annul,
    s_w6_annul_during_w2,
    s_w4_draw_basic,
    s_w4_draw_day1_leaver,
    s_w4_draw_day2_leaver,
    s_w4_draw_technical_removal,
    s_n12_winks,
    s_d7_totals,
    s_d7_player_limits,
    s_d7_morning_round,
]
