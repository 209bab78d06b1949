"""Scenarios: setup (S), Day order (D2), nominations (D3/D4), fouls and speech clocks (D6/F5/F6)."""

from _lib import PLAYERS, Scenario, left, table

ALL = list(range(1, 11))
OTHER_NAMES = [f"Q{i}" for i in range(1, 11)]


def s_setup_replace_and_start():
    s = Scenario(
        "S",
        "setup_replace_and_start",
        "Setup: start needs seat and roles; repeated seat/roles replace; roles need four distinct seats; "
        "setup-only actions refused after start; game actions refused before start.",
        note="FORMAT 'What else is refused': repeated seat/roles replaces; start needs both, four distinct role "
        "seats among 1..10. The roles table row says 'all different seats', so a roles action with a "
        "repeated seat is itself refused here.",
    )
    s.x(status="setup", step=None, phase=None, day=None, at_table=[], left=[], winner=None, speaker=None)
    s.rej("start")
    s.rej("next")
    s.rej("foul", seat=1)
    s.rej("seat", players=PLAYERS[:9])
    s.a("seat", players=list(OTHER_NAMES))
    s.x(status="setup", step=None, at_table=ALL)
    s.rej("start")  # no roles yet
    s.rej("roles", sheriff=1, don=1, mafia=[3, 4])
    s.rej("roles", sheriff=1, don=2, mafia=[3, 3])
    s.rej("roles", sheriff=1, don=2, mafia=[3, 11])
    s.x(status="setup", step=None)
    s.a("roles", sheriff=1, don=2, mafia=[3, 4])
    s.a("roles", sheriff=5, don=8, mafia=[9, 10])  # replaces
    s.a("seat", players=list(PLAYERS))  # replaces
    s.x(status="setup", at_table=ALL, step=None)
    s.rej("next")
    s.a("start")
    s.x(
        status="running",
        step="dogovorka",
        phase="night",
        day=0,
        at_table=ALL,
        left=[],
        nominees=[],
        fouls={},
        winner=None,
        ppk=None,
        best_move=None,
        checks=[],
        speaker=None,
        speech_seconds=None,
    )
    s.rej("seat", players=list(PLAYERS))
    s.rej("roles", sheriff=1, don=2, mafia=[3, 4])
    s.rej("start")
    # the second roles call is in force: seat 1 is a civilian, 8 the Don, 5 the Sheriff
    s.rej("wink", by=1, target=2)
    s.a("wink", by=8, target=1)
    s.a("wink", by=5, target=1)
    s.x(step="dogovorka")
    s.to_day1()
    return s


def s_next_refused_voting_lift():
    s = Scenario(
        "S",
        "next_refused_on_voting_and_lift_vote",
        "FORMAT Steps: `next` is refused on voting and lift_vote; nominate only on speech; votes only on voting; "
        "lift_vote with exactly half of 10 yes fails (V10), nobody leaves, Night.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 2, 3: 4})
    s.x(step="voting", phase="day", day=1, nominees=[2, 4], speaker=None, speech_seconds=None)
    s.rej("next")
    s.rej("nominate", by=1, target=3)
    s.rej("lift_vote", yes=[])
    s.vote({2: [1, 2, 3, 4, 5], 4: [6, 7, 8, 9, 10]})
    s.x(step="tie_speech", speaker=2, speech_seconds=30, nominees=[2, 4], left=[])
    s.rej("votes", **{"for": {"2": [1]}})
    s.rej("nominate", by=2, target=3)  # nominate only in a `speech` step
    s.rej("lift_vote", yes=[1])
    s.nx()
    s.x(step="tie_speech", speaker=4, speech_seconds=30)
    s.nx()
    s.x(step="voting", nominees=[2, 4], speaker=None)
    s.rej("next")
    s.vote({2: [1, 2, 3, 4, 5], 4: [6, 7, 8, 9, 10]})
    s.x(step="lift_vote", nominees=[2, 4], speaker=None, speech_seconds=None, at_table=ALL)
    s.rej("next")
    s.rej("votes", **{"for": {"2": [1]}})
    s.a("lift_vote", yes=[1, 2, 3, 4, 5])  # 5 of 10: not more than half
    s.x(step="mafia_shot", phase="night", day=1, at_table=ALL, left=[], nominees=[])
    return s


def s_d2_openers_skip_left():
    s = Scenario(
        "D2",
        "openers_skip_left_and_previous_opener_left",
        "D2: Day 2 opens with the next player at the table after Day 1's opener (seat 2 shot -> 3); "
        "Day 3 opens after Day 2's opener who has since been removed, skipping a removed seat (3, 4 gone -> 5). "
        "Current speaker removed (X4) -> next speaker's step.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 9, 4: 6})
    s.x(step="voting", nominees=[9, 6])
    s.vote({9: [1, 2, 3, 4, 5, 7], 6: [6, 8, 10]})  # 9 not listed -> 6; 9 gets 6, 6 gets 4
    s.x(step="last_word", speaker=9, speech_seconds=60, left=[left(9, "vote", 1, "day")], at_table=table(9))
    s.nx()
    s.night(shots={8: 2, 10: 2})
    s.x(step="best_move", at_table=table(9))
    s.nx()
    s.x(
        step="last_word",
        speaker=2,
        phase="night",
        day=1,
        left=[left(9, "vote", 1, "day"), left(2, "shot", 1, "night")],
        best_move=None,
    )
    s.nx()
    s.x(step="speech", phase="day", day=2, speaker=3, at_table=[1, 3, 4, 5, 6, 7, 8, 10])
    s.a("nominate", by=3, target=7)
    s.nx()
    s.x(step="speech", speaker=4)
    s.a("remove", seat=3)
    s.x(step="speech", speaker=4, nominees=[7])
    s.a("remove", seat=4)  # the current speaker removed: next speaker's step begins
    s.x(
        step="speech",
        speaker=5,
        at_table=[1, 5, 6, 7, 8, 10],
        left=[
            left(9, "vote", 1, "day"),
            left(2, "shot", 1, "night"),
            left(3, "removed", 2, "day"),
            left(4, "removed", 2, "day"),
        ],
    )
    s.nx()
    s.speeches([6, 7, 8, 10, 1])
    s.x(step="voting", nominees=[7])  # technical removals never cancel the vote
    s.vote({7: []})
    s.x(
        step="last_word",
        speaker=7,
        left=[
            left(9, "vote", 1, "day"),
            left(2, "shot", 1, "night"),
            left(3, "removed", 2, "day"),
            left(4, "removed", 2, "day"),
            left(7, "vote", 2, "day"),
        ],
    )
    s.nx()
    s.night()
    s.x(step="speech", phase="day", day=3, speaker=5, at_table=[1, 5, 6, 8, 10])
    s.speeches([5, 6, 8, 10, 1])
    s.x(step="mafia_shot", day=3)
    return s


def s_d2_opener_actual_first_speaker():
    s = Scenario(
        "D2",
        "opener_is_actual_first_speaker",
        "D2 «со следующего, после говорившего первым на предыдущем круге»: Day 1 opener 1; seat 2 shot in N1 "
        "so Day 2 is opened by 3; Day 3 is opened by 4 (next after 3), not by 3 again.",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11))
    s.night(shots={8: 2, 9: 2, 10: 2})
    s.x(step="best_move")
    s.a("best_move", **{"pass": True})
    s.x(step="last_word", speaker=2, best_move=None)
    s.nx()
    s.x(step="speech", day=2, speaker=3)
    s.speeches([3, 4, 5, 6, 7, 8, 9, 10, 1])
    s.night()
    s.x(step="speech", day=3, speaker=4, at_table=table(2))
    return s


def s_d2_wraparound():
    s = Scenario(
        "D2",
        "opener_wraps_after_seat_10_left",
        "D2 INTERP skip: openers 1, 7 (2..6 removed in N0), 9 (8 voted out), 10, then 1 after seat 10 "
        "(the previous opener) left by the vote: wrap-around.",
    )
    s.setup(sheriff=1, don=7, mafia=(2, 3))
    for seat in (2, 3, 4, 5, 6):
        s.a("remove", seat=seat)
    s.x(
        step="dogovorka",
        at_table=[1, 7, 8, 9, 10],
        status="running",
        winner=None,
        left=[left(x, "removed", 0, "night") for x in (2, 3, 4, 5, 6)],
    )
    s.to_day1()
    s.speeches([1, 7, 8, 9, 10])
    s.night()  # miss, no best move
    s.x(step="speech", day=2, speaker=7)
    s.speeches([7, 8, 9, 10, 1], noms={7: 8})
    s.x(step="voting", nominees=[8])
    s.vote({8: []})
    s.x(step="last_word", speaker=8)
    s.nx()
    s.night()
    s.x(step="speech", day=3, speaker=9, at_table=[1, 7, 9, 10])
    s.speeches([9, 10, 1, 7])
    s.night()
    s.x(step="speech", day=4, speaker=10, status="running")
    s.speeches([10, 1, 7, 9], noms={10: 10})
    s.x(step="voting", nominees=[10])
    s.vote({10: [10]})
    s.x(step="last_word", speaker=10, winner=None)
    s.nx()
    s.night()
    s.x(step="speech", day=5, speaker=1, at_table=[1, 7, 9])
    return s


def s_d3_self_and_support():
    s = Scenario(
        "D3",
        "self_nomination_support_second_new_refused",
        "D3/D4: self-nomination accepted; naming an already nominated seat is «Поддерживается» "
        "(accepted, no change, does not use the nomination, also after it was used); a second new candidate "
        "by the same player is refused; only the current speaker nominates.",
    )
    s.setup().to_day1()
    s.x(step="speech", speaker=1)
    s.a("nominate", by=1, target=1)
    s.x(nominees=[1])
    s.rej("nominate", by=2, target=3)
    s.nx()
    s.x(step="speech", speaker=2)
    s.a("nominate", by=2, target=1)
    s.x(nominees=[1])
    s.a("nominate", by=2, target=3)
    s.x(nominees=[1, 3])
    s.rej("nominate", by=2, target=4)
    s.a("nominate", by=2, target=3)
    s.a("nominate", by=2, target=1)
    s.x(nominees=[1, 3], step="speech", speaker=2)
    s.nx()
    s.x(step="speech", speaker=3)
    s.a("nominate", by=3, target=3)
    s.x(nominees=[1, 3])
    s.a("nominate", by=3, target=2)
    s.x(nominees=[1, 3, 2])
    s.rej("nominate", by=3, target=5)
    s.rej("nominate", by=1, target=5)
    s.nx()
    s.speeches([4, 5, 6, 7, 8, 9, 10])
    s.x(step="voting", nominees=[1, 3, 2])
    s.vote({1: [1], 3: [3]})  # 8 others -> 2 (V4)
    s.x(step="last_word", speaker=2, nominees=[1, 3, 2], left=[left(2, "vote", 1, "day")])
    return s


def s_d3_refusals_not_at_table():
    s = Scenario(
        "D3",
        "nominate_refused_not_at_table_or_not_speech",
        "D3: nominating a seat not at the table (voted out, shot) is refused; nominating during a last word is "
        "refused; a Day 2 single candidate is voted (V5).",
    )
    s.setup().to_day1()
    s.speeches(range(1, 11), noms={1: 4, 2: 6})
    s.vote({4: [1, 2, 3, 5, 7, 8]})  # 6 gets 4 (4, 6, 9, 10)
    s.x(step="last_word", speaker=4, left=[left(4, "vote", 1, "day")])
    s.rej("nominate", by=4, target=1)
    s.nx()
    s.night(shots={8: 7, 9: 7, 10: 7})
    s.x(step="best_move")
    s.rej("nominate", by=7, target=1)
    s.nx()
    s.x(step="last_word", speaker=7, phase="night")
    s.rej("nominate", by=7, target=1)
    s.nx()
    s.x(step="speech", day=2, speaker=2, at_table=[1, 2, 3, 5, 6, 8, 9, 10])
    s.rej("nominate", by=2, target=4)
    s.rej("nominate", by=2, target=7)
    s.x(nominees=[])
    s.a("nominate", by=2, target=3)
    s.x(nominees=[3])
    s.nx()
    s.speeches([3, 5, 6, 8, 9, 10, 1])
    s.x(step="voting", nominees=[3])
    s.vote({3: [3]})
    s.x(
        step="last_word",
        speaker=3,
        left=[left(4, "vote", 1, "day"), left(7, "shot", 1, "night"), left(3, "vote", 2, "day")],
    )
    return s


def s_d4_cancelled_day_nominations():
    s = Scenario(
        "D4",
        "nominations_recorded_on_cancelled_day",
        "F10 INTERP: a disqualification in N0 cancels Day 1's vote; Day 1 nominations are still recorded "
        "(FORMAT), the Night follows the last speech; Day 2 votes normally.",
    )
    s.setup()
    s.a("disqualify", seat=6, reason="night activity")
    s.x(step="dogovorka", at_table=table(6), left=[left(6, "disqualified", 0, "night")])
    s.to_day1()
    s.x(speaker=1)
    s.a("nominate", by=1, target=3)
    s.nx()
    s.a("nominate", by=2, target=4)
    s.nx()
    s.a("nominate", by=3, target=4)
    s.x(nominees=[3, 4])
    s.nx()
    s.x(step="speech", speaker=4)
    s.rej("nominate", by=4, target=6)
    s.nx()
    s.speeches([5, 7, 8, 9, 10])
    s.x(step="mafia_shot", phase="night", day=1, nominees=[], left=[left(6, "disqualified", 0, "night")])
    s.nx()
    s.x(step="don_check")
    s.nx()
    s.x(step="sheriff_check")
    s.nx()
    s.x(step="speech", phase="day", day=2, speaker=2)
    s.speeches([2, 3, 4, 5, 7, 8, 9, 10, 1], noms={2: 3})
    s.x(step="voting", nominees=[3])
    s.vote({3: []})
    s.x(step="last_word", speaker=3, left=[left(6, "disqualified", 0, "night"), left(3, "vote", 2, "day")])
    return s


def s_d6_zero_speech_nominates():
    s = Scenario(
        "D6",
        "three_fouls_zero_seconds_step_kept_can_nominate",
        "D6/F2: 3 fouls -> the nearest speech has speech_seconds 0 but the step exists and he nominates; his "
        "next Day's speech is 60 again.",
    )
    s.setup().to_day1()
    s.x(step="speech", speaker=1, speech_seconds=60)
    s.a("foul", seat=4)
    s.a("foul", seat=4)
    s.a("foul", seat=4, reason="shout")
    s.x(fouls={"4": 3}, step="speech", speaker=1, at_table=ALL)
    s.nx()
    s.speeches([2, 3], secs={2: 60, 3: 60})
    s.x(step="speech", speaker=4, speech_seconds=0)
    s.a("nominate", by=4, target=2)
    s.x(nominees=[2], step="speech", speaker=4)
    s.nx()
    s.x(step="speech", speaker=5, speech_seconds=60)
    s.speeches([5, 6, 7, 8, 9, 10], noms={6: 3})
    s.x(step="voting", nominees=[2, 3])
    s.vote({2: [1, 2, 4, 5]})  # 6 others -> 3
    s.x(step="last_word", speaker=3, left=[left(3, "vote", 1, "day")])
    s.nx()
    s.night()
    s.x(step="speech", day=2, speaker=2, speech_seconds=60)
    s.nx()
    s.x(step="speech", speaker=4, speech_seconds=60, fouls={"4": 3})
    return s


def s_d6_third_foul_own_speech():
    s = Scenario(
        "D6",
        "third_foul_in_own_speech_counts_from_next",
        "D6 INTERP: a 3rd foul given during his own speech counts from his next speech (Day 2: 0 s); the "
        "penalty is used up then (Day 3: 60 s).",
    )
    s.setup().to_day1()
    s.speeches([1, 2])
    s.x(step="speech", speaker=3, speech_seconds=60)
    s.a("foul", seat=3)
    s.a("foul", seat=3)
    s.a("foul", seat=3)
    s.x(step="speech", speaker=3, fouls={"3": 3})
    s.nx()
    s.x(step="speech", speaker=4, speech_seconds=60)
    s.speeches([4, 5, 6, 7, 8, 9, 10])
    s.night()
    s.x(step="speech", day=2, speaker=2, speech_seconds=60)
    s.nx()
    s.x(step="speech", speaker=3, speech_seconds=0)
    s.nx()
    s.x(step="speech", speaker=4, speech_seconds=60)
    s.speeches([4, 5, 6, 7, 8, 9, 10, 1])
    s.night()
    s.x(step="speech", day=3, speaker=3, speech_seconds=60, fouls={"3": 3})
    return s


def s_f5_tie_speech_uses_penalty():
    s = Scenario(
        "D6",
        "tie_speech_30_keeps_the_penalty_for_next_speech",
        "F5/D6 INTERP (issue 21): 3rd foul after his Day speech; a tie speech comes first: 30 s, and it is "
        "not «his minute», so his Day 2 speech is the lost one (0 s, nomination kept); the next is 60.",
    )
    s.setup().to_day1()
    s.speeches([1, 2, 3, 4], noms={1: 2, 3: 4})
    s.x(step="speech", speaker=5)
    s.a("foul", seat=4)
    s.a("foul", seat=4)
    s.a("foul", seat=4)
    s.nx()
    s.speeches([6, 7, 8, 9, 10])
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.x(step="tie_speech", speaker=2, speech_seconds=30)
    s.nx()
    s.x(step="tie_speech", speaker=4, speech_seconds=30, fouls={"4": 3})
    s.nx()
    s.x(step="voting", nominees=[2, 4])
    s.vote({2: [1, 3, 5, 6, 7, 8]})
    s.x(step="last_word", speaker=2, speech_seconds=60, left=[left(2, "vote", 1, "day")])
    s.nx()
    s.night()
    s.x(step="speech", day=2, speaker=3, speech_seconds=60)
    s.nx()
    s.x(step="speech", speaker=4, speech_seconds=0)
    s.a("nominate", by=4, target=5)
    s.nx()
    s.x(step="speech", speaker=5, speech_seconds=60, nominees=[5])
    return s


def s_d6_last_word_60():
    s = Scenario(
        "D6",
        "last_word_always_60_with_three_fouls",
        "D6 INTERP: a last word is always 60 s, also with 3 fouls (voted player, and the N1 victim in the morning).",
    )
    s.setup().to_day1()
    s.speeches([1, 2, 3, 4], noms={1: 3, 2: 4})
    s.x(step="speech", speaker=5)
    s.a("foul", seat=3)
    s.a("foul", seat=3)
    s.a("foul", seat=3)
    s.nx()
    s.speeches([6, 7, 8, 9, 10])
    s.vote({3: [1, 2, 5, 6, 7, 8]})
    s.x(step="last_word", speaker=3, speech_seconds=60, fouls={"3": 3})
    s.nx()
    s.x(step="mafia_shot")
    s.a("foul", seat=1)
    s.a("foul", seat=1)
    s.a("foul", seat=1)
    s.a("shots", by={"8": 1, "9": 1, "10": 1})
    s.x(step="don_check")
    s.nx()
    s.x(step="sheriff_check")
    s.nx()
    s.x(step="best_move")
    s.nx()
    s.x(step="last_word", speaker=1, speech_seconds=60, fouls={"3": 3, "1": 3}, phase="night")
    return s


def s_f6_short_speech():
    s = Scenario(
        "F6",
        "three_fouls_30s_with_4_at_table",
        "F6: 3 fouls and the nearest speech with 3-4 players at the table -> 30 s; with 5 at the table -> 0 s.",
    )
    s.setup()
    for seat in (9, 10, 2, 3, 4):
        s.a("remove", seat=seat)
    s.x(at_table=[1, 5, 6, 7, 8], winner=None, status="running")
    s.to_day1()
    s.x(step="speech", speaker=1, speech_seconds=60)
    s.a("foul", seat=6)
    s.a("foul", seat=6)
    s.a("foul", seat=6)
    s.a("nominate", by=1, target=7)
    s.nx()
    s.x(step="speech", speaker=5, speech_seconds=60)
    s.a("nominate", by=5, target=6)
    s.nx()
    s.x(step="speech", speaker=6, speech_seconds=0)  # 5 at the table: silent
    s.nx()
    s.speeches([7, 8])
    s.x(step="voting", nominees=[7, 6])
    s.vote({7: [1, 5, 6, 7]})  # 8 -> 6
    s.x(step="last_word", speaker=7, at_table=[1, 5, 6, 8])
    s.nx()
    s.night()
    s.x(step="speech", day=2, speaker=5, at_table=[1, 5, 6, 8], speech_seconds=60)
    s.a("foul", seat=1)
    s.a("foul", seat=1)
    s.a("foul", seat=1)
    s.nx()
    s.x(step="speech", speaker=6, speech_seconds=60)  # penalty used up on Day 1
    s.nx()
    s.x(step="speech", speaker=8, speech_seconds=60)
    s.nx()
    s.x(step="speech", speaker=1, speech_seconds=30, fouls={"6": 3, "1": 3})
    s.nx()
    s.x(step="mafia_shot", day=2)
    return s


SCENARIOS = [
    s_setup_replace_and_start,
    s_next_refused_voting_lift,
    s_d2_openers_skip_left,
    s_d2_opener_actual_first_speaker,
    s_d2_wraparound,
    s_d3_self_and_support,
    s_d3_refusals_not_at_table,
    s_d4_cancelled_day_nominations,
    s_d6_zero_speech_nominates,
    s_d6_third_foul_own_speech,
    s_f5_tie_speech_uses_penalty,
    s_d6_last_word_60,
    s_f6_short_speech,
]
