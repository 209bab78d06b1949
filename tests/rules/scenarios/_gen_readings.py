"""Scenarios for the readings decided in RULES W1, W2 INTERP, V5 and F10
INTERP (issues 9 and 10): a Night shot decides the game at the shot; a granted
last word is never cut short; Day 1 votes left with one candidate; the F10
chain in its two orders. An ``expect`` follows every action; every value is
written by hand from RULES.md / FORMAT.md.

Default roles: Sheriff 5, Don 8, Mafia 9, 10.
"""

from _lib import Scenario, left, table

N0 = "night"


def n0_removed(*seats: int) -> list[dict]:
    return [left(s, "removed", 0, N0) for s in seats]


def remove_in_n0(s: Scenario, seats: tuple[int, ...]) -> None:
    """X4 in N0: technical removals (they never cancel a vote, F10)."""
    gone: list[int] = []
    for seat in seats:
        s.a("remove", seat=seat)
        gone.append(seat)
        s.x(step="dogovorka", status="running", winner=None, at_table=table(*gone), left=n0_removed(*gone))


def speeches(s: Scenario, order, noms: dict, after: dict) -> None:
    """Like ``Scenario.speeches``, with a hand-written checkpoint after each
    nomination: ``after`` {nominating seat: the nominees then}."""
    for seat in order:
        s.x(step="speech", speaker=seat)
        if seat in noms:
            s.a("nominate", by=seat, target=noms[seat])
            s.x(step="speech", speaker=seat, nominees=after[seat])
        s.nx()


def quiet_day(s: Scenario, order: list[int], day: int, noms: dict | None = None) -> None:
    """The speeches of a Day whose vote is not held; ends on Night ``day``'s mafia_shot."""
    s.speeches(order, noms=noms)
    s.x(step="mafia_shot", phase="night", day=day, nominees=[], speaker=None)


def quiet_night(s: Scenario, day: int, opener: int, don: bool = True, sheriff: bool = True) -> None:
    """A miss and no checks; the next Day opens with ``opener``."""
    s.nx()  # N2: nobody named — a miss
    if don:
        s.x(step="don_check", phase="night", day=day)
        s.nx()
    if sheriff:
        s.x(step="sheriff_check", phase="night", day=day)
        s.nx()
    s.x(step="speech", phase="day", day=day + 1, speaker=opener)


# --- W1: the shot decides the game at the shot --------------------------------------------


def s_w1_two_v_two_at_shot_then_black_disqualified():
    s = Scenario(
        "W1",
        "shot_leaves_two_v_two_black_wins_at_shot_then_black_disqualified",
        "W1 (issue 10, case 1): the shot leaves 2 reds against 2 blacks: black has won at the shot; the "
        "Night's checks are not held; the player shot keeps his N1 best move (RULES W1 INTERP, issue 21: "
        "accepted, 2 blacks); the morning comes and he leaves with his last word (W2). "
        "A black disqualified afterwards the same Night changes nothing (W3).",
        "Before the reading: the pending shot did not count and the game went on after the disqualification.",
    )
    s.setup()
    remove_in_n0(s, (10, 2, 3, 4, 6))  # reds 1, 5, 7 against blacks 8, 9
    s.to_day1()
    quiet_day(s, [1, 5, 7, 8, 9], 1)
    s.a("shots", by={"8": 1, "9": 1})
    s.x(
        status="running",
        winner="black",
        phase="night",
        day=1,
        step="best_move",
        speaker=None,
        checks=[],
        best_move=None,
        at_table=[1, 5, 7, 8, 9],
    )
    s.rej("don_check", target=5)
    s.a("best_move", seats=[8, 9])
    s.x(
        status="running",
        winner="black",
        phase="night",
        day=1,
        step="last_word",
        speaker=1,
        speech_seconds=60,
        at_table=[5, 7, 8, 9],
        left=n0_removed(10, 2, 3, 4, 6) + [left(1, "shot", 1, N0)],
        checks=[],
        best_move={"seat": 1, "seats": [8, 9], "blacks": 2},
    )
    s.a("disqualify", seat=9)
    s.x(
        status="running",
        winner="black",
        step="last_word",
        speaker=1,
        at_table=[5, 7, 8],
        left=n0_removed(10, 2, 3, 4, 6) + [left(1, "shot", 1, N0), left(9, "disqualified", 1, N0)],
    )
    s.rej("don_check", target=5)
    s.x(status="running", winner="black", step="last_word", speaker=1)
    s.nx()
    s.x(status="finished", step="finished", winner="black", speaker=None, speech_seconds=None, checks=[])
    return s


def s_w1_don_shoots_himself_then_red_disqualified():
    s = Scenario(
        "W1",
        "last_black_shoots_himself_red_wins_then_red_disqualified",
        "W1 (issue 10, case 2): the Don, the last black, shoots himself: red has won at the shot (no Don "
        "check); a red disqualified during the Don's morning last word changes nothing (W3): red wins.",
        "Before the reading: the disqualification left the Don against one red and black won.",
    )
    s.setup()
    remove_in_n0(s, (9, 10, 2, 3, 4, 5, 6))  # reds 1, 7 against the Don 8
    s.to_day1()
    quiet_day(s, [1, 7, 8], 1)
    s.a("shots", by={"8": 8})
    s.x(status="running", winner="red", phase="night", day=1, step="best_move", checks=[], best_move=None)
    s.nx()  # W1 INTERP (issue 21): his N1 best move step is held; none left
    s.x(
        status="running",
        winner="red",
        phase="night",
        day=1,
        step="last_word",
        speaker=8,
        at_table=[1, 7],
        left=n0_removed(9, 10, 2, 3, 4, 5, 6) + [left(8, "shot", 1, N0)],
        checks=[],
        best_move=None,
    )
    s.a("disqualify", seat=7)
    s.x(
        status="running",
        winner="red",
        step="last_word",
        speaker=8,
        at_table=[1],
        left=n0_removed(9, 10, 2, 3, 4, 5, 6) + [left(8, "shot", 1, N0), left(7, "disqualified", 1, N0)],
    )
    s.nx()
    s.x(status="finished", step="finished", winner="red", speaker=None)
    return s


def s_w1_don_shoots_six_then_disqualified():
    s = Scenario(
        "W1",
        "don_shoots_six_then_disqualified_red_wins_six_leaves_with_last_word",
        "W1 (issue 10, case 3): the Don, the last black, shoots seat 6 (not deciding: the Night goes on) and "
        "is disqualified on his check step: red wins at the disqualification; the Night's remaining check "
        "(Sheriff) is skipped, seat 6 keeps his N1 best move (RULES W1 INTERP, issue 21), the morning: "
        "seat 6 leaves with his last word, then finished.",
        "Before the reading: the game ended at once and seat 6 stayed at the table.",
    )
    s.setup()
    remove_in_n0(s, (9, 10))  # reds 1..7 against the Don 8
    s.to_day1()
    quiet_day(s, [1, 2, 3, 4, 5, 6, 7, 8], 1)
    s.a("shots", by={"8": 6})
    s.x(status="running", winner=None, step="don_check", at_table=[1, 2, 3, 4, 5, 6, 7, 8], left=n0_removed(9, 10))
    s.a("disqualify", seat=8)
    s.x(status="running", winner="red", phase="night", day=1, step="best_move", checks=[], best_move=None)
    s.a("best_move", seats=[8])
    s.x(
        status="running",
        winner="red",
        phase="night",
        day=1,
        step="last_word",
        speaker=6,
        speech_seconds=60,
        at_table=[1, 2, 3, 4, 5, 7],
        best_move={"seat": 6, "seats": [8], "blacks": 1},
        checks=[],
        left=n0_removed(9, 10) + [left(8, "disqualified", 1, N0), left(6, "shot", 1, N0)],
    )
    s.nx()
    s.x(status="finished", step="finished", winner="red", speaker=None, at_table=[1, 2, 3, 4, 5, 7])
    return s


def s_w1_sheriff_shot_decides_before_his_check():
    s = Scenario(
        "W1",
        "sheriff_shot_decides_before_his_check",
        "W1: the Sheriff shot in Night 2 leaves 3 reds against 3 blacks: black wins at the shot; neither "
        "the Don's nor the Sheriff's check is held that Night (Night 1's checks stay).",
    )
    s.setup()
    remove_in_n0(s, (2, 3))  # reds 1, 4, 5, 6, 7 against 8, 9, 10
    s.to_day1()
    speeches(s, [1, 4, 5, 6, 7, 8, 9, 10], {1: 4, 4: 6}, {1: [4], 4: [4, 6]})
    s.x(step="voting", nominees=[4, 6])
    s.vote({4: [1, 4, 5, 6, 7, 8, 9]})  # 10 -> 6 (V4)
    s.x(step="last_word", speaker=4, winner=None, at_table=[1, 5, 6, 7, 8, 9, 10])
    s.nx()
    s.x(step="mafia_shot", phase="night", day=1)
    s.nx()  # a miss
    s.x(step="don_check")
    s.a("don_check", target=5)
    s.x(step="sheriff_check", checks=[{"night": 1, "by": "don", "target": 5, "result": True}])
    s.a("sheriff_check", target=8)
    n1_checks = [
        {"night": 1, "by": "don", "target": 5, "result": True},
        {"night": 1, "by": "sheriff", "target": 8, "result": "black"},
    ]
    s.x(step="speech", phase="day", day=2, speaker=5, checks=n1_checks)
    quiet_day(s, [5, 6, 7, 8, 9, 10, 1], 2)
    s.a("shots", by={"8": 5, "9": 5, "10": 5})
    s.x(
        status="running",
        winner="black",
        phase="night",
        day=2,
        step="last_word",
        speaker=5,
        at_table=[1, 6, 7, 8, 9, 10],
        checks=n1_checks,
        left=n0_removed(2, 3) + [left(4, "vote", 1, "day"), left(5, "shot", 2, N0)],
    )
    s.rej("sheriff_check", target=9)
    s.x(status="running", step="last_word", speaker=5, checks=n1_checks)
    s.nx()
    s.x(status="finished", step="finished", winner="black", checks=n1_checks)
    return s


def s_w1_n1_deciding_shot_no_best_move():
    s = Scenario(
        "W1",
        "n1_deciding_shot_no_checks_best_move_kept",
        "W1/N6/N9: a deciding shot in Night 1, one player left by the Day 1 vote (so N9 allows the "
        "best move): the Night's remaining checks are not held; the player shot keeps his best move "
        "(RULES W1 INTERP, issue 21): accepted, 3 blacks; the morning, the W2 last word, finished.",
    )
    s.setup()
    remove_in_n0(s, (2, 3))
    s.to_day1()
    speeches(s, [1, 4, 5, 6, 7, 8, 9, 10], {1: 4, 4: 6}, {1: [4], 4: [4, 6]})
    s.x(step="voting", nominees=[4, 6])
    s.vote({4: [1, 4, 5, 6, 7, 8, 9]})
    s.x(step="last_word", speaker=4, at_table=[1, 5, 6, 7, 8, 9, 10])
    s.nx()
    s.x(step="mafia_shot", phase="night", day=1)
    s.a("shots", by={"8": 1, "9": 1, "10": 1})  # reds 5, 6, 7 against 8, 9, 10
    s.x(
        status="running",
        winner="black",
        step="best_move",
        speaker=None,
        phase="night",
        day=1,
        best_move=None,
        checks=[],
    )
    s.rej("don_check", target=5)
    s.a("best_move", seats=[8, 9, 10])
    best = {"seat": 1, "seats": [8, 9, 10], "blacks": 3}
    s.x(
        status="running",
        winner="black",
        step="last_word",
        speaker=1,
        phase="night",
        day=1,
        best_move=best,
        checks=[],
        left=n0_removed(2, 3) + [left(4, "vote", 1, "day"), left(1, "shot", 1, N0)],
    )
    s.rej("best_move", seats=[8, 9, 10])
    s.nx()
    s.x(status="finished", step="finished", winner="black", best_move=best)
    return s


def s_w1_n1_deciding_shot_under_n9():
    s = Scenario(
        "W1",
        "n1_deciding_shot_no_best_move_under_n9",
        "W1/N9: the Day 1 lift vote removes two (9, 10): N9, no best move in Night 1. In Night 1 the Don, "
        "now the last black, shoots himself: red has won at the shot; no checks, no best move; the morning, "
        "his W2 last word, finished.",
    )
    s.setup().to_day1()
    speeches(s, list(range(1, 11)), {1: 9, 2: 10}, {1: [9], 2: [9, 10]})
    s.x(step="voting", nominees=[9, 10])
    s.vote({9: [1, 2, 3, 4, 5], 10: [6, 7, 8, 9, 10]})
    s.x(step="tie_speech", speaker=9, nominees=[9, 10])
    s.nx()
    s.x(step="tie_speech", speaker=10)
    s.nx()
    s.x(step="voting", nominees=[9, 10])
    s.vote({9: [1, 2, 3, 4, 5], 10: [6, 7, 8, 9, 10]})
    s.x(step="lift_vote", nominees=[9, 10])
    s.a("lift_vote", yes=[1, 2, 3, 4, 5, 6])
    s.x(step="last_word", speaker=9, winner=None, at_table=list(range(1, 9)))
    s.nx()
    s.x(step="last_word", speaker=10, winner=None)
    s.nx()
    s.x(step="mafia_shot", phase="night", day=1, nominees=[])
    s.a("shots", by={"8": 8})
    s.x(
        status="running",
        winner="red",
        phase="night",
        day=1,
        step="last_word",
        speaker=8,
        best_move=None,
        checks=[],
        at_table=[1, 2, 3, 4, 5, 6, 7],
        left=[left(9, "lift_vote", 1, "day"), left(10, "lift_vote", 1, "day"), left(8, "shot", 1, N0)],
    )
    s.rej("don_check", target=5)
    s.rej("best_move", seats=[1])
    s.x(step="last_word", speaker=8, checks=[], best_move=None)
    s.nx()
    s.x(status="finished", step="finished", winner="red")
    return s


def s_w1_non_deciding_shot_then_deciding_removal_on_best_move():
    s = Scenario(
        "W1",
        "non_deciding_shot_then_deciding_disqualification_on_best_move",
        "W1 INTERP: a non-deciding N1 shot (4 reds against 3 counting him out): the Night goes on, he keeps "
        "his checks and best-move step; a red disqualified on best_move decides (3 v 3): the best move under "
        "way goes on (RULES W1 INTERP, issue 21), the morning comes, the player shot leaves with his last "
        "word, then finished.",
    )
    s.setup()
    remove_in_n0(s, (2, 3))  # reds 1, 4, 5, 6, 7 against 8, 9, 10
    s.to_day1()
    quiet_day(s, [1, 4, 5, 6, 7, 8, 9, 10], 1)
    s.a("shots", by={"8": 1, "9": 1, "10": 1})
    s.x(step="don_check", winner=None, at_table=[1, 4, 5, 6, 7, 8, 9, 10])
    s.nx()
    s.x(step="sheriff_check", winner=None)
    s.nx()
    s.x(step="best_move", winner=None, status="running")
    s.a("disqualify", seat=6)
    s.x(status="running", winner="black", phase="night", day=1, step="best_move", best_move=None)
    s.a("best_move", seats=[8])
    s.x(
        status="running",
        winner="black",
        phase="night",
        day=1,
        step="last_word",
        speaker=1,
        best_move={"seat": 1, "seats": [8], "blacks": 1},
        at_table=[4, 5, 7, 8, 9, 10],
        left=n0_removed(2, 3) + [left(6, "disqualified", 1, N0), left(1, "shot", 1, N0)],
    )
    s.rej("best_move", seats=[8])
    s.x(step="last_word", speaker=1)
    s.nx()
    s.x(status="finished", step="finished", winner="black")
    return s


def s_w1_victim_removed_after_deciding_shot():
    s = Scenario(
        "W1",
        "victim_disqualified_in_his_last_word_after_deciding_shot",
        "W1/W3/F3: after a deciding shot the player shot is in his morning last word; a foul applies; a "
        "disqualification ends his last word at once (his left entry keeps 'shot'); the winner stays.",
    )
    s.setup()
    remove_in_n0(s, (10, 2, 3, 4, 6))
    s.to_day1()
    quiet_day(s, [1, 5, 7, 8, 9], 1)
    s.a("shots", by={"8": 1, "9": 1})
    s.x(status="running", winner="black", step="best_move")
    s.nx()  # W1 INTERP (issue 21): his best move step is held; none left
    s.x(status="running", winner="black", step="last_word", speaker=1, at_table=[5, 7, 8, 9])
    s.a("foul", seat=1)
    s.x(status="running", winner="black", step="last_word", speaker=1, fouls={"1": 1})
    s.a("disqualify", seat=1)
    s.x(
        status="finished",
        step="finished",
        winner="black",
        speaker=None,
        fouls={"1": 1},
        at_table=[5, 7, 8, 9],
        left=n0_removed(10, 2, 3, 4, 6) + [left(1, "shot", 1, N0)],
    )
    return s


# --- W2: a granted last word is never cut short ------------------------------------------------


def s_w2_disqualification_in_last_word_after_vote():
    s = Scenario(
        "W2",
        "disqualification_decides_during_last_word_after_vote",
        "W2 INTERP: a disqualification decides the game (3 v 3) during the last word of a player voted "
        "out: the winner is fixed, status running, his last word goes on; the removed player has none (F3); "
        "`next` gives finished.",
        "Before the reading: the game finished at once and the last word was cut short.",
    )
    s.setup()
    remove_in_n0(s, (2, 3))  # reds 1, 4, 5, 6, 7 against 8, 9, 10
    s.to_day1()
    speeches(s, [1, 4, 5, 6, 7, 8, 9, 10], {1: 4, 4: 6}, {1: [4], 4: [4, 6]})
    s.x(step="voting", nominees=[4, 6])
    s.vote({4: [1, 4, 5, 6, 7, 8, 9]})
    s.x(step="last_word", speaker=4, winner=None, status="running", at_table=[1, 5, 6, 7, 8, 9, 10])
    s.a("disqualify", seat=6)
    s.x(
        status="running",
        winner="black",
        step="last_word",
        speaker=4,
        speech_seconds=60,
        phase="day",
        day=1,
        at_table=[1, 5, 7, 8, 9, 10],
        nominees=[4],  # FORMAT: a removed nominee drops out
        left=n0_removed(2, 3) + [left(4, "vote", 1, "day"), left(6, "disqualified", 1, "day")],
    )
    s.nx()
    s.x(status="finished", step="finished", winner="black", speaker=None)
    return s


def s_w2_disqualification_in_morning_last_word():
    s = Scenario(
        "W2",
        "disqualification_decides_during_morning_last_word",
        "W2 INTERP: the player shot (not deciding) gives his morning last word; a disqualification then "
        "decides (3 v 3): winner black, his last word goes on (phase night); `next` gives finished, not "
        "Day 2.",
    )
    s.setup()
    remove_in_n0(s, (2, 3))
    s.to_day1()
    quiet_day(s, [1, 4, 5, 6, 7, 8, 9, 10], 1)
    s.a("shots", by={"8": 1, "9": 1, "10": 1})
    s.x(step="don_check", winner=None)
    s.nx()
    s.x(step="sheriff_check", winner=None)
    s.nx()
    s.x(step="best_move", winner=None)
    s.a("best_move", **{"pass": True})
    s.x(step="last_word", speaker=1, phase="night", day=1, winner=None, at_table=[4, 5, 6, 7, 8, 9, 10])
    s.a("disqualify", seat=6)
    s.x(
        status="running",
        winner="black",
        step="last_word",
        speaker=1,
        phase="night",
        day=1,
        at_table=[4, 5, 7, 8, 9, 10],
        left=n0_removed(2, 3) + [left(1, "shot", 1, N0), left(6, "disqualified", 1, N0)],
    )
    s.nx()
    s.x(status="finished", step="finished", winner="black", day=1)
    return s


def s_w2_disqualification_with_two_lift_leavers():
    s = Scenario(
        "W2",
        "disqualification_decides_with_two_lift_leavers_queued",
        "W2 INTERP: a lift vote removes two blacks (9, 10); during the first last word the Don is "
        "disqualified: red wins at that moment; both last words go on (9, then 10), then finished.",
    )
    s.setup().to_day1()
    speeches(s, list(range(1, 11)), {1: 9, 2: 10}, {1: [9], 2: [9, 10]})
    s.x(step="voting", nominees=[9, 10])
    s.vote({9: [1, 2, 3, 4, 5], 10: [6, 7, 8, 9, 10]})
    s.x(step="tie_speech", speaker=9, nominees=[9, 10])
    s.nx()
    s.x(step="tie_speech", speaker=10)
    s.nx()
    s.x(step="voting", nominees=[9, 10])
    s.vote({9: [1, 2, 3, 4, 5], 10: [6, 7, 8, 9, 10]})
    s.x(step="lift_vote", nominees=[9, 10])
    s.a("lift_vote", yes=[1, 2, 3, 4, 5, 6])
    s.x(
        step="last_word",
        speaker=9,
        winner=None,
        at_table=list(range(1, 9)),
        left=[left(9, "lift_vote", 1, "day"), left(10, "lift_vote", 1, "day")],
    )
    s.a("disqualify", seat=8)
    s.x(
        status="running",
        winner="red",
        step="last_word",
        speaker=9,
        at_table=list(range(1, 8)),
        left=[left(9, "lift_vote", 1, "day"), left(10, "lift_vote", 1, "day"), left(8, "disqualified", 1, "day")],
    )
    s.nx()
    s.x(status="running", winner="red", step="last_word", speaker=10, speech_seconds=60)
    s.nx()
    s.x(status="finished", step="finished", winner="red", speaker=None)
    return s


def s_w2_penalty_to_speaker_after_deciding_removal():
    s = Scenario(
        "W2",
        "penalty_to_last_word_speaker_after_deciding_removal",
        "W2/W3: the game decided by a disqualification during a lift leaver's last word; a foul to the "
        "speaker applies; his 2nd warning removes him (F4): his last word ends (left keeps 'lift_vote'), "
        "the next queued last word begins; the winner stays red.",
    )
    s.setup().to_day1()
    speeches(s, list(range(1, 11)), {1: 9, 2: 10}, {1: [9], 2: [9, 10]})
    s.x(step="voting", nominees=[9, 10])
    s.vote({9: [1, 2, 3, 4, 5], 10: [6, 7, 8, 9, 10]})
    s.x(step="tie_speech", speaker=9)
    s.nx()
    s.x(step="tie_speech", speaker=10)
    s.nx()
    s.x(step="voting", nominees=[9, 10])
    s.vote({9: [1, 2, 3, 4, 5], 10: [6, 7, 8, 9, 10]})
    s.x(step="lift_vote")
    s.a("lift_vote", yes=[1, 2, 3, 4, 5, 6])
    s.x(step="last_word", speaker=9, winner=None)
    s.a("disqualify", seat=8)
    s.x(status="running", winner="red", step="last_word", speaker=9)
    s.a("foul", seat=9)
    s.x(status="running", winner="red", step="last_word", speaker=9, fouls={"9": 1})
    s.a("warning", seat=9)
    s.x(status="running", winner="red", step="last_word", speaker=9)
    s.a("warning", seat=9)
    s.x(
        status="running",
        winner="red",
        step="last_word",
        speaker=10,
        at_table=list(range(1, 8)),
        left=[left(9, "lift_vote", 1, "day"), left(10, "lift_vote", 1, "day"), left(8, "disqualified", 1, "day")],
    )
    s.nx()
    s.x(status="finished", step="finished", winner="red", fouls={"9": 1})
    return s


# --- V5: Day 1 votes left with one candidate -------------------------------------------------------


def tie_day1(s: Scenario) -> None:
    s.setup().to_day1()
    speeches(s, list(range(1, 11)), {1: 2, 3: 4}, {1: [2], 3: [2, 4]})
    s.x(step="voting", nominees=[2, 4])
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.x(step="tie_speech", speaker=2, speech_seconds=30, nominees=[2, 4])


def s_v5_day1_tie_speaker_removed():
    s = Scenario(
        "V5",
        "day1_first_tie_speaker_removed_no_further_tie_speech",
        "V5/X4 (issue 10): on Day 1 the first tied candidate is removed technically during his tie speech; "
        "one candidate is left, no revote will be held, so his tie speech is not given either: the Night "
        "begins, nobody else leaves.",
        "Before the reading: seat 4 still got his 30 seconds.",
    )
    tie_day1(s)
    s.a("remove", seat=2)
    s.x(
        step="mafia_shot",
        phase="night",
        day=1,
        speaker=None,
        nominees=[],
        at_table=table(2),
        left=[left(2, "removed", 1, "day")],
    )
    return s


def s_v5_day1_other_tie_candidate_removed():
    s = Scenario(
        "V5",
        "day1_waiting_tie_candidate_removed_night_begins",
        "V5/X4: on Day 1 the tied candidate still waiting for his tie speech is removed technically while "
        "the other speaks: one candidate left, no revote: the Night begins at once.",
    )
    tie_day1(s)
    s.a("remove", seat=4)
    s.x(
        step="mafia_shot",
        phase="night",
        day=1,
        speaker=None,
        nominees=[],
        at_table=table(4),
        left=[left(4, "removed", 1, "day")],
    )
    s.nx()
    s.x(step="don_check")
    return s


def lift_day(s: Scenario, day: int) -> None:
    s.x(step="voting", nominees=[2, 4])
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.x(step="tie_speech", speaker=2, nominees=[2, 4])
    s.nx()
    s.x(step="tie_speech", speaker=4)
    s.nx()
    s.x(step="voting", nominees=[2, 4])
    s.vote({2: [1, 3, 5, 6, 7], 4: [2, 4, 8, 9, 10]})
    s.x(step="lift_vote", nominees=[2, 4], day=day)


def s_v5_day1_lift_vote_one_left():
    s = Scenario(
        "V5",
        "day1_lift_vote_one_candidate_left_night_begins",
        "V5/X4 (issue 10): on Day 1 a tied candidate is removed technically at the lift vote: one candidate "
        "left, no lift vote is held, nobody else leaves; the Night begins.",
        "Before the reading: the lift vote stayed open and a yes majority removed seat 2 by lift_vote.",
    )
    s.setup().to_day1()
    speeches(s, list(range(1, 11)), {1: 2, 3: 4}, {1: [2], 3: [2, 4]})
    lift_day(s, 1)
    s.a("remove", seat=4)
    s.x(step="mafia_shot", phase="night", day=1, nominees=[], at_table=table(4), left=[left(4, "removed", 1, "day")])
    s.rej("lift_vote", yes=[1, 3, 5, 6, 7, 8])
    s.x(step="mafia_shot", at_table=table(4))
    return s


def s_v10_day2_lift_vote_one_left_held():
    s = Scenario(
        "V10",
        "day2_lift_vote_one_candidate_left_still_held",
        "V5/V10/X4 (contrast): from Day 2 on the lift vote goes on among the others, one candidate included; "
        "a yes majority removes him (lift_vote), with his last word.",
    )
    s.setup().to_day1()
    s.speeches(list(range(1, 11)))
    s.x(step="mafia_shot", phase="night", day=1)
    quiet_night(s, 1, 2)
    speeches(s, [2, 3, 4, 5, 6, 7, 8, 9, 10, 1], {3: 2, 5: 4}, {3: [2], 5: [2, 4]})
    lift_day(s, 2)
    s.a("remove", seat=4)
    s.x(step="lift_vote", nominees=[2], at_table=table(4), left=[left(4, "removed", 2, "day")])
    s.a("lift_vote", yes=[1, 3, 5, 6, 7])  # 5 of 9: a majority
    s.x(step="last_word", speaker=2, left=[left(4, "removed", 2, "day"), left(2, "lift_vote", 2, "day")])
    s.nx()
    s.x(step="mafia_shot", phase="night", day=2)
    return s


# --- F10: the chain, in its two orders ----------------------------------------------------------


def f10_tail(s: Scenario, table2: list[int], opener3: int, opener4: int) -> None:
    """From Day 2's first speech, with two cancelling removals done: Day 2 and
    Day 3 have no vote, Day 4 votes."""
    order2 = table2
    speeches(s, order2, {order2[0]: order2[1]}, {order2[0]: [order2[1]]})
    s.x(step="mafia_shot", phase="night", day=2, nominees=[])
    quiet_night(s, 2, opener3)
    i = table2.index(opener3)
    order3 = table2[i:] + table2[:i]
    speeches(s, order3, {order3[0]: order3[1]}, {order3[0]: [order3[1]]})
    s.x(step="mafia_shot", phase="night", day=3, nominees=[])
    quiet_night(s, 3, opener4)
    j = table2.index(opener4)
    order4 = table2[j:] + table2[:j]
    speeches(s, order4, {order4[0]: order4[1]}, {order4[0]: [order4[1]]})
    s.x(step="voting", phase="day", day=4, nominees=[order4[1]], status="running")


def s_f10_after_day1_result_then_day2():
    s = Scenario(
        "F10",
        "after_day1_result_then_day2_removal_cancel_day2_and_day3",
        "F10 INTERP (first order): a disqualification after Day 1's result (during the last word) cancels "
        "Day 2's vote; a second cancelling removal on Day 2 before its result also cancels Day 3's vote; "
        "Day 4 votes.",
    )
    s.setup().to_day1()
    speeches(s, list(range(1, 11)), {1: 3, 2: 4}, {1: [3], 2: [3, 4]})
    s.x(step="voting", nominees=[3, 4])
    s.vote({3: [1, 2, 3, 5, 6, 7]})
    s.x(step="last_word", speaker=3, day=1, phase="day")
    s.a("disqualify", seat=6)
    s.x(
        step="last_word",
        speaker=3,
        at_table=table(3, 6),
        left=[left(3, "vote", 1, "day"), left(6, "disqualified", 1, "day")],
    )
    s.nx()
    s.x(step="mafia_shot", phase="night", day=1)
    quiet_night(s, 1, 2)
    s.a("disqualify", seat=7)
    s.x(
        step="speech",
        speaker=2,
        day=2,
        at_table=[1, 2, 4, 5, 8, 9, 10],
        left=[left(3, "vote", 1, "day"), left(6, "disqualified", 1, "day"), left(7, "disqualified", 2, "day")],
    )
    f10_tail(s, [2, 4, 5, 8, 9, 10, 1], 4, 5)
    return s


def s_f10_night1_then_day2():
    s = Scenario(
        "F10",
        "night1_then_day2_removal_cancel_day2_and_day3",
        "F10 INTERP (second order): a disqualification in Night 1 cancels Day 2's vote; a second cancelling "
        "removal on Day 2 before its result also cancels Day 3's vote; Day 4 votes.",
    )
    s.setup().to_day1()
    s.speeches(list(range(1, 11)))
    s.x(step="mafia_shot", phase="night", day=1)
    s.nx()
    s.x(step="don_check")
    s.a("disqualify", seat=6)
    s.x(step="don_check", at_table=table(6), left=[left(6, "disqualified", 1, N0)])
    s.nx()
    s.x(step="sheriff_check")
    s.nx()
    s.x(step="speech", phase="day", day=2, speaker=2)
    s.a("disqualify", seat=7)
    s.x(
        step="speech",
        speaker=2,
        day=2,
        at_table=[1, 2, 3, 4, 5, 8, 9, 10],
        left=[left(6, "disqualified", 1, N0), left(7, "disqualified", 2, "day")],
    )
    f10_tail(s, [2, 3, 4, 5, 8, 9, 10, 1], 3, 4)
    return s


SCENARIOS = [
    s_w1_two_v_two_at_shot_then_black_disqualified,
    s_w1_don_shoots_himself_then_red_disqualified,
    s_w1_don_shoots_six_then_disqualified,
    s_w1_sheriff_shot_decides_before_his_check,
    s_w1_n1_deciding_shot_no_best_move,
    s_w1_n1_deciding_shot_under_n9,
    s_w1_non_deciding_shot_then_deciding_removal_on_best_move,
    s_w1_victim_removed_after_deciding_shot,
    s_w2_disqualification_in_last_word_after_vote,
    s_w2_disqualification_in_morning_last_word,
    s_w2_disqualification_with_two_lift_leavers,
    s_w2_penalty_to_speaker_after_deciding_removal,
    s_v5_day1_tie_speaker_removed,
    s_v5_day1_other_tie_candidate_removed,
    s_v5_day1_lift_vote_one_left,
    s_v10_day2_lift_vote_one_left_held,
    s_f10_after_day1_result_then_day2,
    s_f10_night1_then_day2,
]
